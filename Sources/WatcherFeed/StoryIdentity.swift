// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport

/// What identifies a story, whatever a feed's keys and links carry that does not: the form of an id or link
/// that novelty and cross-feed duplicates are decided on.
///
/// For an http(s) URL: no scheme, the host in lower case without a leading `www.`, no default port, no
/// fragment, no trailing slash, and the query without tracking parameters (the rest sorted: `?p=123` still
/// names the post). Anything else (a `tag:` URI, a bare id) is kept as it is, trimmed. Links handed to hooks
/// and notifications are never changed: this form is only compared.
public struct StoryIdentity: Sendable {
  /// Query parameters that track the reader, not the story (a name ending in `*` is a prefix).
  public static let trackingParameters = [
    "utm_*", "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "mc_cid", "mc_eid", "igshid", "_hsenc",
    "_hsmi", "yclid", "mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id", "rb_clickid", "s_cid", "ncid", "cmpid",
    "ref_src", "ref_url", "amp", "_ga", "_gl", "spm",
  ]

  private let names: Set<String>
  private let prefixes: [String]

  /// The documented list, and `extra` from `settings.ignore_parameters`.
  public init(extra: [String] = []) {
    let all = Self.trackingParameters + extra
    names = Set(all.filter { !$0.hasSuffix("*") }.map { $0.lowercased() })
    prefixes = all.filter { $0.hasSuffix("*") }.map { String($0.dropLast()).lowercased() }
  }

  /// Whether a query parameter is one that does not identify.
  public func ignores(_ name: Substring) -> Bool {
    let lower = name.lowercased()
    return names.contains(lower) || prefixes.contains { lower.hasPrefix($0) }
  }

  /// The compared form of an id or link.
  public func normalized(_ value: String) -> String {
    let trimmed = value.trimmingASCIIWhitespace
    let lower = trimmed.prefix(8).lowercased()
    let rest: Substring
    if lower.hasPrefix("https://") {
      rest = trimmed.dropFirst(8)
    } else if lower.hasPrefix("http://") {
      rest = trimmed.dropFirst(7)
    } else {
      return trimmed
    }
    let withoutFragment = rest.prefix { $0 != "#" }
    let authorityEnd = withoutFragment.firstIndex { $0 == "/" || $0 == "?" } ?? withoutFragment.endIndex
    var host = withoutFragment[..<authorityEnd].lowercased()
    if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
    for port in [":80", ":443"] where host.hasSuffix(port) { host.removeLast(port.count) }
    if host.hasPrefix("www.") { host.removeFirst(4) }
    if host.hasSuffix(".") { host.removeLast() }
    let pathAndQuery = withoutFragment[authorityEnd...]
    let queryStart = pathAndQuery.firstIndex(of: "?") ?? pathAndQuery.endIndex
    var path = pathAndQuery[..<queryStart]
    while path.hasSuffix("/") { path = path.dropLast() }
    var result = host + path
    if queryStart < pathAndQuery.endIndex {
      let kept = pathAndQuery[pathAndQuery.index(after: queryStart)...].split(separator: "&").filter { pair in
        !pair.isEmpty && !ignores(pair.prefix { $0 != "=" })
      }
      if !kept.isEmpty { result += "?" + kept.sorted().joined(separator: "&") }
    }
    return result
  }

  /// What tells two spellings of the same URL apart, for messages ("https", "www.", "tracking parameters").
  public func difference(_ old: String, _ new: String) -> String {
    func scheme(_ value: String) -> String { value.prefix(8).lowercased().hasPrefix("https://") ? "https" : "http" }
    func host(_ value: String) -> String {
      let rest = value.drop { $0 != "/" }.drop { $0 == "/" }
      return rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }.lowercased()
    }
    var reasons: [String] = []
    guard FeedLocation.isHTTP(old), FeedLocation.isHTTP(new) else { return "ids" }
    if scheme(old) != scheme(new) { reasons.append(scheme(new)) }
    if host(old).hasPrefix("www.") != host(new).hasPrefix("www.") { reasons.append("www.") }
    if old.contains("?") || new.contains("?") { reasons.append("tracking parameters") }
    if old.contains("#") != new.contains("#") { reasons.append("fragment") }
    return reasons.isEmpty ? "spelling" : reasons.joined(separator: ", ")
  }

  /// For an item without a link: its title and date, which then stand for it (nil without both).
  public static func fingerprint(title: String?, published: String?) -> String? {
    guard let title, !title.isEmpty, let published else { return nil }
    return StableHash.hex(of: title + "\u{1F}" + published).prefix(16).description
  }

  /// Its title and text, to tell an edit from the item as first seen.
  public static func digest(title: String?, text: String?) -> String {
    StableHash.hex(of: (title ?? "") + "\u{1F}" + (text ?? "")).prefix(16).description
  }
}
