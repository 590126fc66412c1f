// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// The secrets a URL can carry, hidden where the URL is shown or passed on.
///
/// A feed or webhook URL may hold credentials (`https://user:pass@host/…`, `?token=…`, `?api_key=…`).
/// watcher uses the URL as written to fetch or post, and everywhere else (errors, `status`, `test-rules`,
/// dry runs, `WATCHER_FEED_URL` and `feed_url` for hooks and webhooks, what the state keeps of a webhook) it
/// uses `redacted`: the user information and the values of query parameters named like secrets become `***`.
public enum URLSecrets {
  /// Query parameter names whose values are secrets (compared lowercased, `-` read as `_`).
  static let names: Set<String> = [
    "token", "access_token", "auth_token", "api_token", "private_token", "refresh_token", "id_token", "apikey",
    "api_key", "key", "secret", "client_secret", "password", "passwd", "pass", "pwd", "auth", "sig", "signature",
    "session", "sessionid", "session_id", "sid", "code", "ticket", "hash",
  ]

  /// Whether a query parameter's name says its value is a secret.
  package static func isSecret(_ name: Substring) -> Bool {
    let lower = String(name.lowercased().map { $0 == "-" ? "_" : $0 })
    return names.contains(lower) || lower.hasSuffix("_token") || lower.hasSuffix("_key") || lower.hasSuffix("secret")
      || lower.hasSuffix("password")
  }

  /// `url` with its user information and secret query values as `***`; unchanged when it has none.
  public static func redacted(_ url: String) -> String {
    guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return url }
    let start = url.index(colon, offsetBy: 3)
    var result = String(url[..<start])
    let rest = url[start...]
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    if let at = authority.lastIndex(of: "@") {
      result += "***@"
      result += authority[authority.index(after: at)...]
    } else {
      result += authority
    }
    var tail = rest[authorityEnd...]
    var fragment: Substring = ""
    if let hash = tail.firstIndex(of: "#") {
      fragment = tail[hash...]
      tail = tail[..<hash]
    }
    guard let question = tail.firstIndex(of: "?") else { return result + String(tail) + String(fragment) }
    result += tail[...question]
    let pairs = tail[tail.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map {
      pair -> String in
      guard let equals = pair.firstIndex(of: "="), isSecret(pair[..<equals]) else { return String(pair) }
      return String(pair[...equals]) + "***"
    }
    return result + pairs.joined(separator: "&") + String(fragment)
  }
}
