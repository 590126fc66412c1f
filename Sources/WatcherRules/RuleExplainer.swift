// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherRegex
import WatcherSupport

/// Why each rule did or did not match an item: `test-rules --explain`.
///
/// A separate walk over the rules' conditions, with the engine's own matching (`ItemFacts`), so that
/// explaining costs nothing when it is not asked for: the engine's compiled program is untouched.
public enum RuleExplainer {
  /// One condition, whether it held, and on what.
  public struct Step: Sendable, Equatable {
    /// The condition, as written ("title contains 'linux'", "any", "not").
    public var condition: String
    /// Whether it held.
    public var held: Bool
    /// What decided it: the matched text, or what was missing ("title has no 'linux'").
    public var detail: String
    /// The conditions inside `all`, `any` and `not`.
    public var children: [Step] = []
  }

  /// One rule's verdict for the item.
  public struct Verdict: Sendable, Equatable {
    /// The rule.
    public var rule: String
    /// Whether it matched (and so acted).
    public var matched: Bool
    /// Why it was not looked at: its scope excludes the feed, or an earlier rule stopped evaluation.
    public var skipped: String?
    /// The condition, step by step (nil when skipped).
    public var steps: Step?
  }

  /// The verdict of every rule for `item` of `feed`, in file order, with tags accumulated as the engine does.
  public static func explain(
    _ item: FeedItem, feed: FeedConfig, rules: [Rule], now: Date = Date(), score: Double? = nil
  ) -> [Verdict] {
    var facts = ItemFacts(item: item, feed: feed.name)
    facts.score = score
    var tags: [String] = []
    for tag in feed.tags where !tags.contains(tag) { tags.append(tag) }
    facts.tags = tags
    var verdicts: [Verdict] = []
    var stoppedBy: String?
    for rule in rules {
      if let stoppedBy {
        verdicts.append(
          Verdict(rule: rule.name, matched: false, skipped: "rule '\(stoppedBy)' stopped evaluation", steps: nil))
        continue
      }
      guard rule.applies(to: feed) else {
        verdicts.append(
          Verdict(
            rule: rule.name, matched: false,
            skipped: "rule '\(rule.name)' is for feeds [\(rule.scope.joined(separator: ", "))]", steps: nil))
        continue
      }
      var step = explain(rule.condition, &facts, now: now)
      if let spread = rule.spread {
        // A spread trigger never acts on an item by itself: the poll's story stage acts on the item that
        // brings its story to the feeds.
        let waits = Step(
          condition: "story in \(spread.feeds) feeds within \(spread.within) s", held: false,
          detail: "a spread trigger: a poll acts once per story, on the item that brings it there "
            + "(watcher stories lists them)")
        step = Step(condition: "all", held: false, detail: "waits for its story", children: [waits, step])
      }
      verdicts.append(Verdict(rule: rule.name, matched: step.held, skipped: nil, steps: step))
      guard step.held else { continue }
      for tag in rule.actions.tags where !tags.contains(tag) { tags.append(tag) }
      facts.tags = tags
      if rule.actions.stop { stoppedBy = rule.name }
    }
    return verdicts
  }

  private static func explain(_ condition: Condition, _ facts: inout ItemFacts, now: Date) -> Step {
    switch condition {
    case .all(let parts):
      if parts.isEmpty { return Step(condition: "every item", held: true, detail: "no condition") }
      let children = parts.map { explain($0, &facts, now: now) }
      let held = children.allSatisfy(\.held)
      return Step(
        condition: "all", held: held,
        detail: held ? "every condition held" : "\(children.filter { !$0.held }.count) did not", children: children)
    case .any(let parts):
      let children = parts.map { explain($0, &facts, now: now) }
      let held = children.contains(where: \.held)
      return Step(
        condition: "any", held: held, detail: held ? "one held" : "none held", children: children)
    case .not(let inner):
      let child = explain(inner, &facts, now: now)
      return Step(
        condition: "not", held: !child.held, detail: child.held ? "the inner condition held" : "it did not",
        children: [child])
    case .olderThan(let seconds), .newerThan(let seconds):
      let older = { if case .olderThan = condition { return true } else { return false } }()
      let what = "\(older ? "older" : "newer") than \(seconds) s"
      guard let published = facts.item.published else {
        return Step(condition: what, held: false, detail: "the item has no date")
      }
      let age = now.timeIntervalSince(published)
      let held = older ? age > Double(seconds) : age < Double(seconds)
      return Step(condition: what, held: held, detail: "published \(ISODate.format(published))")
    case .scoreAbove(let bound), .scoreBelow(let bound):
      let above = { if case .scoreAbove = condition { return true } else { return false } }()
      let what = "score \(above ? "above" : "below") \(Relevance.shown(bound))"
      guard let score = facts.score else {
        return Step(
          condition: what, held: false,
          detail: "no score yet (the learner needs \(Relevance.minimumLabels) labels: watcher like/dislike)")
      }
      return Step(
        condition: what, held: above ? score > bound : score < bound, detail: "scored \(Relevance.shown(score))")
    case .field(let field, let pattern):
      let what = describe(field, pattern)
      if let (name, text) = facts.match(field, pattern) {
        return Step(condition: what, held: true, detail: "\(name) has \"\(text)\"")
      }
      return Step(condition: what, held: false, detail: "\(field.rawValue) has no \(needles(pattern))")
    }
  }

  private static func describe(_ field: MatchField, _ pattern: Pattern) -> String {
    let how: String
    switch pattern.kind {
    case .contains: how = "contains"
    case .words: how = "has the word"
    case .equals: how = "equals"
    case .regex: how = "matches"
    }
    return "\(field.rawValue) \(how) \(needles(pattern))" + (pattern.caseSensitive ? " (case-sensitive)" : "")
  }

  private static func needles(_ pattern: Pattern) -> String {
    switch pattern.kind {
    case .contains(let list), .words(let list), .equals(let list):
      return list.map { "'\($0)'" }.joined(separator: " or ")
    case .regex(let regex): return "/\(regex.pattern)/"
    }
  }
}

extension RuleExplainer.Verdict {
  /// The verdict as `test-rules --explain --json` writes it (docs/rules.md).
  public var json: JSONOutput {
    .object([
      ("rule", .string(rule)), ("matched", .bool(matched)), ("skipped", .optional(skipped)),
      ("condition", steps.map(\.json) ?? .null),
    ])
  }
}

extension RuleExplainer.Step {
  /// The step and its children as JSON.
  public var json: JSONOutput {
    .object([
      ("condition", .string(condition)), ("held", .bool(held)), ("detail", .string(detail)),
      ("children", .array(children.map(\.json))),
    ])
  }

  /// The step and its children as indented lines: "✓ title contains 'swift': title has \"Swift\"".
  public func lines(indent: String) -> [String] {
    ["\(indent)\(held ? "✓" : "✗") \(condition): \(detail)"] + children.flatMap { $0.lines(indent: indent + "  ") }
  }
}
