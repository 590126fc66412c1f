// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherConfig
import WatcherFeed
import WatcherRegex
import WatcherSupport

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

  /// Every rule's condition, compiled into one flat program of plain nodes: evaluating it touches no
  /// reference counts, which matters when several threads evaluate items at once.
  private let program: RuleProgram
  /// Each rule's root node in `program`, in rule order.
  private let roots: [Int32]
  /// Each rule's scope, for quick tests.
  private let scopes: [Set<String>]

  /// Creates an engine.
  public init(rules: [Rule], settings: NotifySettings = NotifySettings()) {
    self.rules = rules
    self.settings = settings
    var registry = NeedleRegistry()
    var program = RuleProgram()
    roots = rules.map { program.add($0.condition, registry: &registry) }
    self.program = program
    scopes = rules.map { Set($0.scope) }
    needleSet = registry.needles.isEmpty ? nil : NeedleSet(registry.needles)
  }

  /// Every case-insensitive literal of every rule, searched in one pass per field (`NeedleSet`).
  private let needleSet: NeedleSet?

  /// The decision for `item` of `feed` at time `now`.
  public func evaluate(_ item: FeedItem, feed: FeedConfig, now: Date = Date()) -> Decision {
    var decision = Decision()
    var facts = ItemFacts(item: item, feed: feed.name, needles: needleSet)
    for tag in feed.tags where !decision.tags.contains(tag) { decision.tags.append(tag) }
    facts.tags = decision.tags
    for index in roots.indices {
      let scope = scopes[index]
      guard scope.isEmpty || scope.contains(feed.name) || feed.tags.contains(where: scope.contains) else { continue }
      var reasons: [Decision.Match] = []
      guard evaluate(roots[index], &facts, now: now, rule: index, reasons: &reasons) else { continue }
      let rule = rules[index]
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

  /// The longest notification title, in characters, whatever the feed or the template holds.
  ///
  /// It bounds what a desktop shows and what the state keeps for a notification still to deliver.
  public static let maxSummaryCharacters = 200
  /// The longest templated notification body, in characters (the default body is 200).
  public static let maxBodyCharacters = 1_000

  /// `text`, or its first `limit - 1` characters and "…".
  package static func clipped(_ text: String, to limit: Int) -> String {
    text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
  }

  /// A rendered notification: the rule's settings over the defaults.
  private func notification(_ action: NotifyAction, rule: String?, item: FeedItem, feed: String, tags: [String])
    -> Decision.Notification
  {
    let summary = action.summary?.render(item, feed: feed, tags: tags) ?? "\(feed): \(item.title ?? "(untitled)")"
    let body: String
    if let template = action.body {
      body = Self.clipped(template.render(item, feed: feed, tags: tags), to: Self.maxBodyCharacters)
    } else {
      body = Self.clipped((item.text ?? "").replacingOccurrences(of: "\n", with: " "), to: 200)
    }
    return Decision.Notification(
      rule: rule, summary: Self.clipped(summary, to: Self.maxSummaryCharacters), body: body,
      urgency: action.urgency ?? settings.urgency,
      expire: action.expire ?? settings.expire, icon: action.icon ?? settings.icon)
  }

  // MARK: - Conditions

  /// Evaluates node `node`; reasons name rule number `rule`.
  private func evaluate(
    _ node: Int32, _ facts: inout ItemFacts, now: Date, rule: Int, reasons: inout [Decision.Match]
  ) -> Bool {
    let n = program.nodes[Int(node)]
    switch n.op {
    case .needles:
      let ids = program.lists[Int(n.a)..<Int(n.a + n.b)]
      guard let (name, text) = facts.matchNeedles(n.field, ids, wholeWord: n.wholeWord) else { return false }
      reasons.append(Decision.Match(rule: rules[rule].name, field: name, text: text))
      return true
    case .regex:
      let literal = n.b >= 0 ? Int(n.b) : nil
      guard let (name, text) = facts.matchRegex(n.field, program.regexes[Int(n.a)], literal: literal) else {
        return false
      }
      reasons.append(Decision.Match(rule: rules[rule].name, field: name, text: text))
      return true
    case .general:
      guard let (name, text) = facts.match(n.field, program.patterns[Int(n.a)]) else { return false }
      reasons.append(Decision.Match(rule: rules[rule].name, field: name, text: text))
      return true
    case .all:
      var collected: [Decision.Match] = []
      for child in program.lists[Int(n.a)..<Int(n.a + n.b)]
      where !evaluate(child, &facts, now: now, rule: rule, reasons: &collected) {
        return false
      }
      reasons += collected
      return true
    case .any:
      for child in program.lists[Int(n.a)..<Int(n.a + n.b)]
      where evaluate(child, &facts, now: now, rule: rule, reasons: &reasons) {
        return true
      }
      return false
    case .not:
      var ignored: [Decision.Match] = []
      return !evaluate(n.a, &facts, now: now, rule: rule, reasons: &ignored)
    case .olderThan, .newerThan:
      guard let published = facts.item.published else { return false }
      let age = now.timeIntervalSince(published)
      guard n.op == .olderThan ? age > Double(n.seconds) : age < Double(n.seconds) else { return false }
      reasons.append(Decision.Match(rule: rules[rule].name, field: "published", text: ISODate.format(published)))
      return true
    }
  }
}

/// Rule conditions compiled into plain nodes (no references), evaluated by index.
package struct RuleProgram: Sendable {
  /// What a node does.
  package enum Op: UInt8, Sendable {
    /// Any of the needle ids `lists[a..<a+b]` in the field (whole words when `wholeWord`).
    case needles
    /// `regexes[a]` on the field, where needle `b` (its required literal; -1 for none) occurs.
    case regex
    /// `patterns[a]` matched directly (case-sensitive, equals, tags).
    case general
    /// Every child in `lists[a..<a+b]`.
    case all
    /// Any child in `lists[a..<a+b]`.
    case any
    /// Not child `a`.
    case not
    /// Published more than `seconds` ago.
    case olderThan
    /// Published less than `seconds` ago.
    case newerThan
  }

  /// One node.
  package struct Node: Sendable {
    package var op: Op
    package var field: MatchField = .title
    package var wholeWord = false
    package var a: Int32 = 0
    package var b: Int32 = 0
    package var seconds: Int = 0
  }

  package var nodes: [Node] = []
  package var lists: [Int32] = []
  package var regexes: [LinearRegex] = []
  package var patterns: [Pattern] = []

  /// Compiles `condition`; returns its node index.
  package mutating func add(_ condition: Condition, registry: inout NeedleRegistry) -> Int32 {
    var node: Node
    switch condition {
    case .field(let field, let pattern):
      node = Node(op: .general, field: field)
      // Tags change during evaluation, so they and case-sensitive patterns are matched directly.
      if field != .tag, !pattern.caseSensitive {
        switch pattern.kind {
        case .contains(let needles) where !needles.contains(""):
          node = list(.needles, needles.map { Int32(registry.id($0)) })
          node.field = field
        case .words(let needles) where !needles.contains(""):
          node = list(.needles, needles.map { Int32(registry.id($0)) })
          node.field = field
          node.wholeWord = true
        case .regex(let regex):
          regexes.append(regex)
          node = Node(
            op: .regex, field: field, a: Int32(regexes.count - 1),
            b: regex.requiredLiteral.map { Int32(registry.id($0)) } ?? -1)
        default: break
        }
      }
      if node.op == .general {
        patterns.append(pattern)
        node.a = Int32(patterns.count - 1)
      }
    case .all(let children): node = list(.all, children.map { add($0, registry: &registry) })
    case .any(let children): node = list(.any, children.map { add($0, registry: &registry) })
    case .not(let inner): node = Node(op: .not, a: add(inner, registry: &registry))
    case .olderThan(let seconds): node = Node(op: .olderThan, seconds: seconds)
    case .newerThan(let seconds): node = Node(op: .newerThan, seconds: seconds)
    }
    nodes.append(node)
    return Int32(nodes.count - 1)
  }

  private mutating func list(_ op: Op, _ items: [Int32]) -> Node {
    let start = Int32(lists.count)
    lists += items
    return Node(op: op, a: start, b: Int32(items.count))
  }
}

/// Assigns ids to the literals the automaton searches for.
package struct NeedleRegistry {
  package private(set) var needles: [[UInt8]] = []
  private var ids: [String: Int] = [:]

  package mutating func id(_ needle: String) -> Int {
    if let id = ids[needle] { return id }
    ids[needle] = needles.count
    needles.append(Array(needle.utf8))
    return needles.count - 1
  }
}

/// An item's fields as rules see them: each field's values read and folded once per item, on first use.
package struct ItemFacts {
  package let item: FeedItem
  package let feed: String
  /// Tags so far; changing them drops the cached `tag` field.
  package var tags: [String] = [] {
    didSet { cache[MatchField.tag.index] = nil }
  }
  private var cache: [FieldValues?] = Array(repeating: nil, count: MatchField.allCases.count)

  /// One field's values (several for categories and tags), as written and folded.
  ///
  /// A class, so that each rule's look at it costs one reference, not a copy of four arrays.
  package final class FieldValues {
    package var names: [String]
    package var raw: [String]
    package var folded: [String] = []
    /// Whether each raw value is ASCII (folding then keeps every offset, so matches map back).
    package var ascii: [Bool] = []
    /// For value v and needle id, at (v·needles + id)·2: the first occurrence, and after it the first
    /// whole-word occurrence, in the folded text, or -1; filled on first use.
    package var hits: [Int32] = []
    package var hitsReady = false

    package init(names: [String], raw: [String]) {
      self.names = names
      self.raw = raw
    }
  }

  private let needles: NeedleSet?

  package init(item: FeedItem, feed: String, needles: NeedleSet? = nil) {
    self.item = item
    self.feed = feed
    self.needles = needles
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
    if field == .any {
      // Built from the parts, so each text is folded (and scanned) once even when rules use both.
      let any = FieldValues(names: [], raw: [])
      for part in [MatchField.title, .text, .category] {
        let values = values(part)
        any.names += values.names
        any.raw += values.raw
        any.folded += values.folded
        any.ascii += values.ascii
      }
      cache[field.index] = any
      return any
    }
    let values = read(field)
    for raw in values.raw {
      let (folded, ascii) = TextFolding.foldReportingASCII(raw)
      values.folded.append(folded)
      values.ascii.append(ascii)
    }
    cache[field.index] = values
    return values
  }

  /// The field's values with the automaton's findings, computed once per item and field.
  private mutating func scanned(_ field: MatchField) -> FieldValues {
    let values = values(field)
    guard !values.hitsReady, let needles else { return values }
    if field == .any {
      values.hits = scanned(.title).hits + scanned(.text).hits + scanned(.category).hits
      values.hitsReady = true
      return values
    }
    let count = needles.needles.count
    var found = [Int32](repeating: -1, count: values.folded.count * count * 2)
    for (index, folded) in values.folded.enumerated() {
      let base = index * count * 2
      var copy = folded
      copy.withUTF8 { bytes in
        needles.scan(bytes) { id, start in
          let slot = base + id * 2
          if found[slot] < 0 { found[slot] = Int32(start) }
          if found[slot + 1] < 0, !ByteSearch.isWordScalar(before: start, in: bytes),
            !ByteSearch.isWordScalar(at: start + needles.needles[id].count, in: bytes)
          {
            found[slot + 1] = Int32(start)
          }
        }
      }
    }
    values.hits = found
    values.hitsReady = true
    return values
  }

  /// The first value of `field` containing any of the needles (as whole words when asked).
  package mutating func matchNeedles(_ field: MatchField, _ ids: ArraySlice<Int32>, wholeWord: Bool) -> (
    String, String
  )? {
    guard let needles else { return nil }
    let values = scanned(field)
    let count = needles.needles.count
    for index in values.folded.indices {
      for id32 in ids {
        let id = Int(id32)
        let start = Int(values.hits[(index * count + id) * 2 + (wholeWord ? 1 : 0)])
        if start >= 0 {
          return (
            values.names[index], excerpt(values, index, start..<(start + needles.needles[id].count), fromRaw: false)
          )
        }
      }
    }
    return nil
  }

  /// The first value of `field` the regex matches, looking only where its literal occurs.
  package mutating func matchRegex(_ field: MatchField, _ regex: LinearRegex, literal: Int?) -> (String, String)? {
    guard let literal, let needles else { return match(field, Pattern(.regex(regex))) }
    let values = scanned(field)
    let count = needles.needles.count
    for index in values.folded.indices where values.hits[(index * count + literal) * 2] >= 0 {
      if let range = regex.firstMatch(in: values.folded[index]) {
        return (values.names[index], excerpt(values, index, range, fromRaw: false))
      }
    }
    return nil
  }

  /// The field name and the matched text, or `nil`.
  package mutating func match(_ field: MatchField, _ pattern: Pattern) -> (String, String)? {
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
          if let start = ByteSearch.find(text, needle, wholeWord: false) {
            return (
              values.names[index],
              excerpt(values, index, start..<(start + needle.utf8.count), fromRaw: pattern.caseSensitive)
            )
          }
        }
      case .words(let needles):
        for needle in needles {
          if let start = ByteSearch.find(text, needle, wholeWord: true) {
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
}

extension MatchField {
  /// A dense index for per-field caches.
  package var index: Int {
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
