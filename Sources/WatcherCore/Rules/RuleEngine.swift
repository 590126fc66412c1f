// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the rules over an item: a pure function from (item, feed, rules, now) to a `Decision` (SPEC §3).
///
/// Every rule is looked at in file order. Tags accumulate (feed tags first) and later rules can match on
/// them; `stop` ends evaluation; a muted item gets no notification and no hook, whatever matched before or
/// after. Each field is folded once per item, not once per rule.
public struct RuleEngine: Sendable {
  /// The rules in file order.
  public let rules: [Rule]
  /// Notification defaults.
  public let settings: NotifySettings

  /// The rules as evaluated: one reference each, so the per-item loop copies nothing.
  private let compiled: [CompiledRule]

  /// Creates an engine.
  public init(rules: [Rule], settings: NotifySettings = NotifySettings()) {
    self.rules = rules
    self.settings = settings
    compiled = rules.map(CompiledRule.init)
  }

  /// A rule ready to evaluate.
  private final class CompiledRule: Sendable {
    let name: String
    let scope: Set<String>
    let condition: Condition
    let actions: RuleActions

    init(_ rule: Rule) {
      name = rule.name
      scope = Set(rule.scope)
      condition = rule.condition
      actions = rule.actions
    }
  }

  /// The decision for `item` of `feed` at time `now`.
  public func evaluate(_ item: FeedItem, feed: FeedConfig, now: Date = Date()) -> Decision {
    var decision = Decision()
    var facts = ItemFacts(item: item, feed: feed.name)
    for tag in feed.tags where !decision.tags.contains(tag) { decision.tags.append(tag) }
    facts.tags = decision.tags
    for rule in compiled {
      guard rule.scope.isEmpty || rule.scope.contains(feed.name) || feed.tags.contains(where: rule.scope.contains)
      else { continue }
      var reasons: [Decision.Match] = []
      guard evaluate(rule.condition, &facts, now: now, rule: rule.name, reasons: &reasons) else { continue }
      decision.matches += reasons
      let actions = rule.actions
      for tag in actions.tags where !decision.tags.contains(tag) { decision.tags.append(tag) }
      facts.tags = decision.tags
      if actions.mute, decision.mutedBy == nil { decision.mutedBy = rule.name }
      if let notify = actions.notify {
        decision.notifications.append(
          notification(notify, rule: rule.name, item: item, feed: feed.name, tags: decision.tags))
      }
      if let hook = actions.hook {
        decision.hooks.append(Decision.Hook(rule: rule.name, command: hook.command, timeout: hook.timeout))
      }
      if actions.stop {
        decision.stoppedBy = rule.name
        break
      }
    }
    if feed.notify, decision.notifications.isEmpty {
      decision.notifications.append(
        notification(NotifyAction(), rule: nil, item: item, feed: feed.name, tags: decision.tags))
    }
    if decision.muted {
      decision.notifications = []
      decision.hooks = []
    }
    return decision
  }

  /// A rendered notification: the rule's settings over the defaults.
  private func notification(_ action: NotifyAction, rule: String?, item: FeedItem, feed: String, tags: [String])
    -> Decision.Notification
  {
    let summary = action.summary?.render(item, feed: feed, tags: tags) ?? "\(feed): \(item.title ?? "(untitled)")"
    let body: String
    if let template = action.body {
      body = template.render(item, feed: feed, tags: tags)
    } else {
      let text = (item.text ?? "").replacingOccurrences(of: "\n", with: " ")
      body = text.count > 200 ? String(text.prefix(199)) + "…" : text
    }
    return Decision.Notification(
      rule: rule, summary: summary, body: body, urgency: action.urgency ?? settings.urgency,
      expire: action.expire ?? settings.expire, icon: action.icon ?? settings.icon)
  }

  // MARK: - Conditions

  private func evaluate(
    _ condition: Condition, _ facts: inout ItemFacts, now: Date, rule: String, reasons: inout [Decision.Match]
  ) -> Bool {
    switch condition {
    case .field(let field, let pattern):
      guard let (name, text) = facts.match(field, pattern) else { return false }
      reasons.append(Decision.Match(rule: rule, field: name, text: text))
      return true
    case .all(let conditions):
      var collected: [Decision.Match] = []
      for condition in conditions where !evaluate(condition, &facts, now: now, rule: rule, reasons: &collected) {
        return false
      }
      reasons += collected
      return true
    case .any(let conditions):
      for condition in conditions where evaluate(condition, &facts, now: now, rule: rule, reasons: &reasons) {
        return true
      }
      return false
    case .not(let inner):
      var ignored: [Decision.Match] = []
      return !evaluate(inner, &facts, now: now, rule: rule, reasons: &ignored)
    case .olderThan(let seconds):
      guard let published = facts.item.published, now.timeIntervalSince(published) > Double(seconds) else {
        return false
      }
      reasons.append(Decision.Match(rule: rule, field: "published", text: ISODate.format(published)))
      return true
    case .newerThan(let seconds):
      guard let published = facts.item.published, now.timeIntervalSince(published) < Double(seconds) else {
        return false
      }
      reasons.append(Decision.Match(rule: rule, field: "published", text: ISODate.format(published)))
      return true
    }
  }
}

/// An item's fields as rules see them: each field's values read and folded once per item, on first use.
struct ItemFacts {
  let item: FeedItem
  let feed: String
  /// Tags so far; changing them drops the cached `tag` field.
  var tags: [String] = [] {
    didSet { cache[MatchField.tag.index] = nil }
  }
  private var cache: [FieldValues?] = Array(repeating: nil, count: MatchField.allCases.count)

  /// One field's values (several for categories and tags), as written and folded. A class, so that each
  /// rule's look at it costs one reference, not a copy of four arrays.
  final class FieldValues {
    var names: [String]
    var raw: [String]
    var folded: [String] = []
    /// Whether each raw value is ASCII (folding then keeps every offset, so matches map back).
    var ascii: [Bool] = []

    init(names: [String], raw: [String]) {
      self.names = names
      self.raw = raw
    }
  }

  init(item: FeedItem, feed: String) {
    self.item = item
    self.feed = feed
  }

  private func read(_ field: MatchField) -> FieldValues {
    func one(_ name: String, _ value: String?) -> FieldValues {
      value.map { FieldValues(names: [name], raw: [$0]) } ?? FieldValues(names: [], raw: [])
    }
    switch field {
    case .title: return one("title", item.title)
    case .text: return one("text", item.text)
    case .category: return FieldValues(names: item.categories.map { _ in "category" }, raw: item.categories)
    case .author: return one("author", item.author)
    case .link: return one("link", item.link)
    case .feed: return one("feed", feed)
    case .tag: return FieldValues(names: tags.map { _ in "tag" }, raw: tags)
    case .any:
      let all = FieldValues(names: [], raw: [])
      for part in [MatchField.title, .text, .category] {
        let values = read(part)
        all.names += values.names
        all.raw += values.raw
      }
      return all
    }
  }

  private mutating func values(_ field: MatchField) -> FieldValues {
    if let cached = cache[field.index] { return cached }
    let values = read(field)
    for raw in values.raw {
      let (folded, ascii) = TextFolding.foldReportingASCII(raw)
      values.folded.append(folded)
      values.ascii.append(ascii)
    }
    cache[field.index] = values
    return values
  }

  /// The field name and the matched text, or `nil`.
  mutating func match(_ field: MatchField, _ pattern: Pattern) -> (String, String)? {
    let values = values(field)
    for index in values.raw.indices {
      let text = pattern.caseSensitive ? values.raw[index] : values.folded[index]
      switch pattern.kind {
      case .regex(let regex):
        if let range = regex.firstMatch(in: text) {
          return (values.names[index], excerpt(values, index, range, fromRaw: pattern.caseSensitive))
        }
      case .contains(let needles):
        for needle in needles {
          if let start = Self.find(text, needle, wholeWord: false) {
            return (
              values.names[index],
              excerpt(values, index, start..<(start + needle.utf8.count), fromRaw: pattern.caseSensitive)
            )
          }
        }
      case .words(let needles):
        for needle in needles {
          if let start = Self.find(text, needle, wholeWord: true) {
            return (
              values.names[index],
              excerpt(values, index, start..<(start + needle.utf8.count), fromRaw: pattern.caseSensitive)
            )
          }
        }
      case .equals(let needles):
        let value = HTMLText.collapsed(text) ?? ""
        if let needle = needles.first(where: { $0 == value }) { return (values.names[index], needle) }
      }
    }
    return nil
  }

  /// The matched text as the item has it: the raw bytes when offsets line up (case-sensitive, or ASCII),
  /// else the folded text.
  private func excerpt(_ values: FieldValues, _ index: Int, _ range: Range<Int>, fromRaw: Bool) -> String {
    let source = fromRaw || values.ascii[index] ? values.raw[index] : values.folded[index]
    var copy = source
    return copy.withUTF8 { bytes in
      let clamped = range.clamped(to: 0..<bytes.count)
      return String(decoding: UnsafeBufferPointer(rebasing: bytes[clamped]), as: UTF8.self)
    }
  }

  /// Substring search on UTF-8 (memchr for the first byte, memcmp for the rest.
  ///
  /// glibc's memmem needs _GNU_SOURCE, which the Glibc module does not expose). With `wholeWord`, an occurrence
  /// counts only when no letter or digit touches it. Returns the byte offset of the first accepted occurrence.
  static func find(_ haystack: String, _ needle: String, wholeWord: Bool) -> Int? {
    var h = haystack
    var n = needle
    return h.withUTF8 { hay -> Int? in
      n.withUTF8 { nee -> Int? in
        guard nee.count > 0 else { return 0 }
        guard let hayBase = hay.baseAddress, let neeBase = nee.baseAddress, hay.count >= nee.count else {
          return nil
        }
        let first = Int32(nee[0])
        let last = hay.count - nee.count
        var offset = 0
        while offset <= last {
          guard let found = memchr(hayBase + offset, first, last - offset + 1) else { return nil }
          let start = hayBase.distance(to: found.assumingMemoryBound(to: UInt8.self))
          // The last byte first: a cheap test that rejects most false starts before memcmp.
          if hayBase[start + nee.count - 1] == neeBase[nee.count - 1], memcmp(hayBase + start, neeBase, nee.count) == 0,
            !wholeWord
              || (!isWordScalar(before: start, in: hay) && !isWordScalar(at: start + nee.count, in: hay))
          {
            return start
          }
          offset = start + 1
        }
        return nil
      }
    }
  }

  private static func isWordScalar(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard offset < bytes.count else { return false }
    let c = bytes[offset]
    if c < 0x80 { return isASCIIWord(c) }
    var iterator = bytes[offset...].makeIterator()
    var decoder = UTF8()
    guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return false }
    return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
  }

  private static func isWordScalar(before offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard offset > 0 else { return false }
    if bytes[offset - 1] < 0x80 { return isASCIIWord(bytes[offset - 1]) }
    var start = offset - 1
    while start > 0, bytes[start] & 0xC0 == 0x80 { start -= 1 }
    return isWordScalar(at: start, in: bytes)
  }

  @inline(__always) private static func isASCIIWord(_ c: UInt8) -> Bool {
    (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 122) || c == 95
  }
}

extension MatchField {
  /// A dense index for per-field caches.
  var index: Int {
    switch self {
    case .title: 0
    case .text: 1
    case .category: 2
    case .author: 3
    case .link: 4
    case .feed: 5
    case .tag: 6
    case .any: 7
    }
  }
}
