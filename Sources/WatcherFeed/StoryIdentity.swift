// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
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

  /// The compared form of an id or link (worked on its UTF-8 bytes: it runs for every new item).
  public func normalized(_ value: String) -> String {
    var value = value
    return value.withUTF8 { input -> String? in
      var bytes = ByteSink()
      return visit(input, into: &bytes) ? String(decoding: bytes.bytes, as: UTF8.self) : nil
    } ?? value.trimmingASCIIWhitespace
  }

  /// The story of `link` for an item whose key is `key`: the hash of its compared form (as
  /// `StableHash.value(of: normalized(link).utf8)`), or 0 when it is the key's own (the key, compared, tells
  /// the same: nothing to keep).
  public func story(_ link: String, key: String) -> UInt64 {
    // Most feeds' guid is their link.
    if link == key { return 0 }
    // Hashed as they are walked: no compared form is made (this runs for every new item).
    func hash(_ value: String) -> UInt64? {
      var value = value
      return value.withUTF8 { input in
        var sink = HashSink()
        return visit(input, into: &sink) ? sink.hash.value : nil
      }
    }
    if let linkHash = hash(link) {
      return linkHash == hash(key) ? 0 : linkHash
    }
    let trimmed = link.trimmingASCIIWhitespace
    return trimmed == key.trimmingASCIIWhitespace ? 0 : StableHash.value(of: trimmed.utf8)
  }

  /// Walks the compared form of an http(s) URL's bytes into `sink`; false (nothing given) for anything else.
  private func visit<Sink: StorySink>(_ input: UnsafeBufferPointer<UInt8>, into sink: inout Sink) -> Bool {
    var start = 0
    var end = input.count
    while start < end, input[start] <= 32 { start += 1 }
    while end > start, input[end - 1] <= 32 { end -= 1 }
    @inline(__always) func lower(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte + 32 : byte }
    // The scheme, in any case: http:// or https://.
    guard end - start > 7, lower(input[start]) == 104, lower(input[start + 1]) == 116,
      lower(input[start + 2]) == 116, lower(input[start + 3]) == 112
    else { return false }
    var index = start + 4
    if lower(input[index]) == 115 { index += 1 }
    guard index + 2 < end, input[index] == 58, input[index + 1] == 47, input[index + 2] == 47 else { return false }
    index += 3
    // Up to the fragment.
    var stop = index
    while stop < end, input[stop] != 35 { stop += 1 }
    end = stop
    var authorityEnd = index
    while authorityEnd < end, input[authorityEnd] != 47, input[authorityEnd] != 63 { authorityEnd += 1 }
    var hostStart = index
    var position = index
    while position < authorityEnd {
      if input[position] == 64 { hostStart = position + 1 }
      position += 1
    }
    var hostEnd = authorityEnd
    // A default port, a trailing dot, a leading www.
    if hostEnd - hostStart > 3, input[hostEnd - 3] == 58, input[hostEnd - 2] == 56, input[hostEnd - 1] == 48 {
      hostEnd -= 3
    } else if hostEnd - hostStart > 4, input[hostEnd - 4] == 58, input[hostEnd - 3] == 52, input[hostEnd - 2] == 52,
      input[hostEnd - 1] == 51
    {
      hostEnd -= 4
    }
    if hostEnd > hostStart, input[hostEnd - 1] == 46 { hostEnd -= 1 }
    if hostEnd - hostStart > 4, lower(input[hostStart]) == 119, lower(input[hostStart + 1]) == 119,
      lower(input[hostStart + 2]) == 119, input[hostStart + 3] == 46
    {
      hostStart += 4
    }
    sink.reserve(end - hostStart)
    let host = UnsafeBufferPointer(rebasing: input[hostStart..<hostEnd])
    if host.contains(where: { $0 >= 0x80 }) || URLSpelling.hasPunycode(host) {
      // An internationalized host, as Unicode (`xn--caf-dma.example` and `café.example` are one host).
      for byte in URLSpelling.unicodeHost(host) { sink.add(byte) }
    } else {
      for byte in host { sink.add(lower(byte)) }
    }
    var queryStart = authorityEnd
    while queryStart < end, input[queryStart] != 63 { queryStart += 1 }
    var pathEnd = queryStart
    while pathEnd > authorityEnd, input[pathEnd - 1] == 47 { pathEnd -= 1 }
    URLSpelling.unescape(UnsafeBufferPointer(rebasing: input[authorityEnd..<pathEnd]), into: &sink)
    guard queryStart + 1 < end else { return true }
    var kept: [Range<Int>] = []
    var pairStart = queryStart + 1
    while pairStart <= end {
      // `&amp;` is `&` written for HTML once too often.
      if end - pairStart >= 4, input[pairStart] == 97, input[pairStart + 1] == 109, input[pairStart + 2] == 112,
        input[pairStart + 3] == 59, pairStart > queryStart + 1
      {
        pairStart += 4
      }
      var pairEnd = pairStart
      while pairEnd < end, input[pairEnd] != 38 { pairEnd += 1 }
      if pairEnd > pairStart {
        var nameEnd = pairStart
        while nameEnd < pairEnd, input[nameEnd] != 61 { nameEnd += 1 }
        if !ignores(UnsafeBufferPointer(rebasing: input[pairStart..<nameEnd])) { kept.append(pairStart..<pairEnd) }
      }
      pairStart = pairEnd + 1
    }
    guard !kept.isEmpty else { return true }
    // Each parameter with its escapes undone, sorted as it reads.
    var pairs = kept.map { range in
      var bytes = ByteSink()
      URLSpelling.unescape(UnsafeBufferPointer(rebasing: input[range]), into: &bytes)
      return bytes.bytes
    }
    if pairs.count > 1 { pairs.sort { $0.lexicographicallyPrecedes($1) } }
    sink.add(63)
    for (offset, pair) in pairs.enumerated() {
      if offset > 0 { sink.add(38) }
      for byte in pair { sink.add(byte) }
    }
    return true
  }

  /// Whether a query parameter's name (its bytes) is one that does not identify.
  private func ignores(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
    // Most are utm_ parameters: no string is made for them.
    if name.count > 4, (name[0] | 32) == 117, (name[1] | 32) == 116, (name[2] | 32) == 109, name[3] == 95,
      prefixes.contains("utm_")
    {
      return true
    }
    return ignores(Substring(decoding: name, as: UTF8.self))
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

  /// For an item without a link: its title and date, which then stand for it as its story (0 without both).
  ///
  /// The hash of "title", the title and the date as `ISODate` writes it, joined by 0x1F; made with no string.
  public static func fingerprint(title: String?, published: Date?) -> UInt64 {
    guard let title, !title.isEmpty, let published else { return 0 }
    var hash = StableHash.Running()
    hash.add("title\u{1F}")
    hash.add(title)
    hash.add(0x1F)
    ISODate.append(published, to: &hash)
    return hash.value
  }

  /// Its title and text, to tell an edit from the item as first seen.
  public static func digest(title: String?, text: String?) -> UInt64 {
    var hash = StableHash.Running()
    hash.add(title ?? "")
    hash.add(0x1F)
    hash.add(text ?? "")
    return hash.value
  }
}

/// Where `StoryIdentity` walks a compared form: into bytes, or straight into its hash.
protocol StorySink {
  mutating func reserve(_ count: Int)
  mutating func add(_ byte: UInt8)
  mutating func add(_ bytes: UnsafeBufferPointer<UInt8>)
}

/// The compared form's bytes.
struct ByteSink: StorySink {
  var bytes: [UInt8] = []
  mutating func reserve(_ count: Int) { bytes.reserveCapacity(count) }
  mutating func add(_ byte: UInt8) { bytes.append(byte) }
  mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes.append(contentsOf: bytes) }
}

/// The compared form's `StableHash.value`, with no bytes kept.
private struct HashSink: StorySink {
  var hash = StableHash.Running()
  func reserve(_ count: Int) {}
  mutating func add(_ byte: UInt8) { hash.add(byte) }
  mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
    for byte in bytes { hash.add(byte) }
  }
}
