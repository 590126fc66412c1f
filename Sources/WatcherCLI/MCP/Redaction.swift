// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport

/// Secrets taken out of what an assistant is shown: passwords in URLs, token-like query parameters, Apprise
/// URLs (whose host and path are the credentials), and in config text the values of secret-like keys and of
/// every header.
enum Redaction {
  static let mark = "[redacted]"

  /// Whether a config key's value is a secret: a query parameter's secret names (`URLSecrets`), and the
  /// headers that carry credentials.
  static func isSecretName(_ name: String) -> Bool {
    URLSecrets.isSecret(Substring(name))
      || ["authorization", "cookie", "proxy-authorization"].contains(name.lowercased())
  }

  /// `text` with every URL in it redacted (text around them is kept).
  static func text(_ text: String) -> String {
    guard text.contains("://") else { return text }
    var out = ""
    var token = ""
    for character in text {
      if character.isWhitespace || character == "\"" || character == "'" || character == "<" || character == ">" {
        out += url(token)
        out.append(character)
        token = ""
      } else {
        token.append(character)
      }
    }
    return out + url(token)
  }

  /// One URL redacted: anything but http(s) and file loses all after its scheme (Apprise's URLs, whose host
  /// and path are credentials); http(s) loses its user information and secret query values (`URLSecrets`).
  static func url(_ token: String) -> String {
    guard let colon = token.firstIndex(of: ":"), token[colon...].hasPrefix("://"), colon > token.startIndex else {
      return token
    }
    let scheme = token[..<colon].lowercased()
    guard scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) else { return token }
    guard ["http", "https", "file"].contains(scheme) else { return scheme + "://" + mark }
    return URLSecrets.redacted(token)
  }

  private static func trimmed(_ text: Substring) -> String {
    String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }

  /// A config file's text for an assistant: every URL redacted, the values of secret-like keys and of every
  /// header (under `headers:`) replaced.
  static func config(_ text: String) -> String {
    var headersIndent: Int?
    var lines: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      let indent = line.prefix { $0 == " " }.count
      let body = line.dropFirst(indent).drop { $0 == "-" || $0 == " " }
      if let open = headersIndent, !body.isEmpty, !body.hasPrefix("#"), indent <= open { headersIndent = nil }
      guard let colon = body.firstIndex(of: ":"), !body.hasPrefix("#") else {
        lines.append(Self.text(line))
        continue
      }
      let key = String(trimmed(body[..<colon]).filter { $0 != "\"" && $0 != "'" })
      let value = trimmed(body[body.index(after: colon)...])
      let prefix = line[..<body.startIndex] + key + ":"
      if key == "headers" {
        if value.isEmpty || value.hasPrefix("#") { headersIndent = indent } else { lines.append(prefix + " " + mark) }
        if value.isEmpty || value.hasPrefix("#") { lines.append(String(line)) }
        continue
      }
      if !value.isEmpty, headersIndent != nil || isSecretName(key) {
        lines.append(prefix + " " + mark)
      } else {
        lines.append(Self.text(line))
      }
    }
    return lines.joined(separator: "\n")
  }
}
