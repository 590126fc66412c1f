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

  /// Creates an engine.
  public init(rules: [Rule], settings: NotifySettings = NotifySettings()) {
    self.rules = rules
    self.settings = settings
  }

  /// The decision for `item` of `feed` at time `now`.
  public func evaluate(_ item: FeedItem, feed: FeedConfig, now: Date = Date()) -> Decision {
    var decision = Decision()
    var facts = ItemFacts(item: item, feed: feed.name)
    for tag in feed.tags where !decision.tags.contains(tag) { decision.tags.append(tag) }
    facts.tags = decision.tags
    for rule in rules {
      guard rule.scope.isEmpty || rule.scope.contains(feed.name) || rule.scope.contains(where: feed.tags.contains)
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

/// An item's fields as rules see them, folded lazily and once.
struct ItemFacts {
  let item: FeedItem
  let feed: String
  var tags: [String] = []
  private var folded: [MatchField: [String]] = [:]

  init(item: FeedItem, feed: String) {
    self.item = item
    self.feed = feed
  }

  /// The raw values of a field (several for categories and tags).
  func values(_ field: MatchField) -> [(String, String)] {
    func one(_ name: String, _ value: String?) -> [(String, String)] { value.map { [(name, $0)] } ?? [] }
    switch field {
    case .title: return one("title", item.title)
    case .text: return one("text", item.text)
    case .category: return item.categories.map { ("category", $0) }
    case .author: return one("author", item.author)
    case .link: return one("link", item.link)
    case .feed: return [("feed", feed)]
    case .tag: return tags.map { ("tag", $0) }
    case .any: return values(.title) + values(.text) + values(.category)
    }
  }

  /// The field name and the matched text, or `nil`.
  mutating func match(_ field: MatchField, _ pattern: Pattern) -> (String, String)? {
    let raw = values(field)
    if case .regex(let regex) = pattern.kind {
      for (name, value) in raw {
        if let range = regex.firstMatch(in: value) {
          let utf8 = Array(value.utf8)
          return (name, String(decoding: utf8[range.clamped(to: 0..<utf8.count)], as: UTF8.self))
        }
      }
      return nil
    }
    let texts: [String]
    if pattern.caseSensitive {
      texts = raw.map(\.1)
    } else if field != .tag, let cached = folded[field] {
      texts = cached
    } else {
      texts = raw.map { TextFolding.fold($0.1) }
      if field != .tag { folded[field] = texts }
    }
    for (index, text) in texts.enumerated() {
      switch pattern.kind {
      case .contains(let needles):
        if let needle = needles.first(where: { Self.contains(text, $0) }) {
          return (raw[index].0, Self.original(of: needle, folded: text, raw: raw[index].1))
        }
      case .words(let needles):
        if let needle = needles.first(where: { Self.containsWord(text, $0) }) {
          return (raw[index].0, Self.original(of: needle, folded: text, raw: raw[index].1))
        }
      case .equals(let needles):
        let value = HTMLText.collapsed(text) ?? ""
        if let needle = needles.first(where: { $0 == value }) { return (raw[index].0, needle) }
      case .regex: break
      }
    }
    return nil
  }

  /// The item's own text where `needle` was found in its folded form, when the positions are known to line
  /// up (ASCII text, where folding keeps every offset); else the needle.
  static func original(of needle: String, folded: String, raw: String) -> String {
    guard raw.utf8.count == folded.utf8.count, raw.utf8.allSatisfy({ $0 < 0x80 }),
      let range = folded.range(of: needle)
    else { return needle }
    let start = folded.utf8.distance(from: folded.startIndex, to: range.lowerBound)
    let utf8 = Array(raw.utf8)
    return String(decoding: utf8[start..<(start + needle.utf8.count)], as: UTF8.self)
  }

  /// Substring search on UTF-8.
  static func contains(_ haystack: String, _ needle: String) -> Bool {
    findAll(haystack, needle) { _, _ in true }
  }

  /// Whether `needle` occurs with no letter or digit right before or after it.
  static func containsWord(_ haystack: String, _ needle: String) -> Bool {
    findAll(haystack, needle) { bytes, range in
      !isWordScalar(before: range.lowerBound, in: bytes) && !isWordScalar(at: range.upperBound, in: bytes)
    }
  }

  /// Calls `accept` for each occurrence until it returns true.
  private static func findAll(
    _ haystack: String, _ needle: String, accept: (UnsafeBufferPointer<UInt8>, Range<Int>) -> Bool
  ) -> Bool {
    var h = haystack
    var n = needle
    return h.withUTF8 { hay in
      n.withUTF8 { nee in
        guard nee.count > 0 else { return true }
        guard let hayBase = hay.baseAddress, let neeBase = nee.baseAddress, hay.count >= nee.count else {
          return false
        }
        // memchr for the first byte, memcmp for the rest (glibc's memmem needs _GNU_SOURCE, which the
        // Glibc module does not expose).
        let first = Int32(nee[0])
        let last = hay.count - nee.count
        var offset = 0
        while offset <= last {
          guard let found = memchr(hayBase + offset, first, last - offset + 1) else { return false }
          let start = hayBase.distance(to: found.assumingMemoryBound(to: UInt8.self))
          if memcmp(hayBase + start, neeBase, nee.count) == 0, accept(hay, start..<(start + nee.count)) {
            return true
          }
          offset = start + 1
        }
        return false
      }
    }
  }

  private static func isWordScalar(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard offset < bytes.count else { return false }
    var iterator = bytes[offset...].makeIterator()
    var decoder = UTF8()
    guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return false }
    return isWord(scalar)
  }

  private static func isWordScalar(before offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard offset > 0 else { return false }
    var start = offset - 1
    while start > 0, bytes[start] & 0xC0 == 0x80 { start -= 1 }
    return isWordScalar(at: start, in: bytes)
  }

  private static func isWord(_ scalar: Unicode.Scalar) -> Bool {
    scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar == "_"
  }
}
