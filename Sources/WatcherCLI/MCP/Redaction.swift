// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Secrets taken out of what an assistant is shown: passwords in URLs, token-like query parameters, Apprise
/// URLs (whose host and path are the credentials), and in config text the values of secret-like keys and of
/// every header.
enum Redaction {
  static let mark = "[redacted]"
  /// Query parameters and config keys whose values are secrets.
  static let secretNames = [
    "token", "secret", "password", "passwd", "auth", "authorization", "apikey", "api_key", "api-key", "key",
    "sig", "signature", "access_token", "cookie", "session",
  ]

  static func isSecretName(_ name: String) -> Bool {
    let lower = name.lowercased()
    return secretNames.contains { lower == $0 || lower.hasSuffix("_" + $0) || lower.hasSuffix("-" + $0) }
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

  /// One URL redacted: anything but http(s) and file loses all after its scheme; http(s) loses its
  /// user information and the values of secret-like query parameters.
  static func url(_ token: String) -> String {
    let characters = Array(token)
    guard
      let start = (0..<max(0, characters.count - 2)).first(where: {
        characters[$0] == ":" && characters[$0 + 1] == "/" && characters[$0 + 2] == "/"
      }), start > 0
    else { return token }
    let scheme = String(characters[..<start]).lowercased()
    let schemeCharacters = scheme.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
    guard schemeCharacters else { return token }
    let head = String(characters[..<(start + 3)])
    guard ["http", "https", "file"].contains(scheme) else { return head + mark }
    var rest = Array(characters[(start + 3)...])
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.count
    if let at = rest[..<authorityEnd].lastIndex(of: "@") { rest = Array(mark) + rest[at...] }
    guard let query = rest.firstIndex(of: "?") else { return head + String(rest) }
    let fragment = rest[query...].firstIndex(of: "#") ?? rest.count
    let pairs = String(rest[(query + 1)..<fragment]).split(separator: "&", omittingEmptySubsequences: false)
    let cleaned = pairs.map { pair -> String in
      guard let equals = pair.firstIndex(of: "="), isSecretName(String(pair[..<equals])) else { return String(pair) }
      return String(pair[...equals]) + mark
    }
    return head + String(rest[...query]) + cleaned.joined(separator: "&") + String(rest[fragment...])
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
