// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the rules over an item: a pure function from (item, feed, rules, now) to a `Decision`.
///
/// Every rule is looked at in file order. Tags accumulate (feed tags first) and later rules can match on
/// them; `stop` ends evaluation; a muted item gets no notification and no hook, whatever matched before or
/// after. Each field is folded once per item, not once per rule.
public struct RuleEngine: Sendable {
  /// The rules in file order.
  public let rules: [Rule]
  /// Notification defaults.
  public let settings: NotifySettings
  /// The learned score of an item of a feed (nil: no score yet), for rules on `score`.
  public var scorer: (@Sendable (FeedItem, String) -> Double?)?
  /// What moved an item's score most (words and fields with their weights), for explanations.
  public var scoreReasons: (@Sendable (FeedItem, String) -> [String])?
  /// Whether any rule tests the score (only then is an item scored).
  public let usesScore: Bool
  /// The spread triggers (`match: { story: … }`): their actions wait for a story's feeds, so a dry run
  /// leaves them out (`Decision.split`) and a poll's story stage records them.
  public let spreadRules: Set<String>

  /// Every rule's condition, compiled into one flat program of plain nodes: evaluating it touches no
  /// reference counts, which matters when several threads evaluate items at once.
  private let program: RuleProgram
  /// Each rule's root node in `program`, in rule order.
  private let roots: [Int32]
  /// Each rule's scope, for quick tests.
  private let scopes: [Set<String>]
  /// Whether each rule has a scope (most do not: then its set is never looked at).
  private let scoped: [Bool]

  /// Creates an engine.
  public init(rules: [Rule], settings: NotifySettings = NotifySettings()) {
    self.rules = rules
    self.settings = settings
    var registry = NeedleRegistry()
    var program = RuleProgram()
    roots = rules.map { program.add($0.condition, registry: &registry) }
    self.program = program
    spreadRules = Set(rules.filter { $0.spread != nil }.map(\.name))
    scopes = rules.map { Set($0.scope) }
    scoped = rules.map { !$0.scope.isEmpty }
    usesScore = rules.contains { rule in
      rule.condition.testsScore
        || rule.actions.notify.map { [$0.summary, $0.body].contains { $0?.showsScore == true } } == true
    }
    needleSet = registry.needles.isEmpty ? nil : NeedleSet(registry.needles)
  }

  /// Every case-insensitive literal of every rule, searched in one pass per field (`NeedleSet`).
  private let needleSet: NeedleSet?

  /// The decision for `item` of `feed` at time `now`.
  ///
  /// Without `excerpts`, each match names its rule and field but not the text that matched (a poll acts on
  /// the decision and never shows the text; test-rules does): regexes then never look for where they match.
  public func evaluate(_ item: FeedItem, feed: FeedConfig, now: Date = Date(), excerpts: Bool = true) -> Decision {
    var decision = Decision()
    var facts = ItemFacts(item: item, feed: feed.name)
    facts.wantsExcerpts = excerpts
    if usesScore { facts.score = scorer?(item, feed.name) }
    for tag in feed.tags where !decision.tags.contains(tag) { decision.tags.append(tag) }
    facts.tags = decision.tags
    for index in roots.indices {
      if scoped[index] {
        let scope = scopes[index]
        guard scope.contains(feed.name) || feed.tags.contains(where: scope.contains) else { continue }
      }
      var reasons: [Decision.Match] = []
      guard evaluate(roots[index], &facts, now: now, rule: index, reasons: &reasons) else { continue }
      decision.matches += reasons
      // The rule's parts are read in place: copying a whole rule per match costs a retain per field.
      let name = rules[index].name
      if !rules[index].actions.tags.isEmpty {
        for tag in rules[index].actions.tags where !decision.tags.contains(tag) { decision.tags.append(tag) }
        facts.tags = decision.tags
      }
      if rules[index].actions.mute, decision.mutedBy == nil { decision.mutedBy = name }
      if let notify = rules[index].actions.notify {
        decision.notifications.append(
          notification(
            notify, rule: name, item: item, feed: feed.name, tags: decision.tags,
            score: facts.score.map(Relevance.shown)))
      }
      if let hook = rules[index].actions.hook {
        decision.hooks.append(
          Decision.Hook(
            rule: name, command: hook.command,
            arguments: hook.run.map { Template.arguments($0, item: item, feed: feed.name, tags: decision.tags) },
            timeout: hook.timeout))
      }
      if let webhook = rules[index].actions.webhook {
        decision.webhooks.append(Decision.Webhook(rule: name, action: webhook))
      }
      // A digest rule's apprise: gets the digest when it goes out, not each item.
      if let apprise = rules[index].actions.apprise, rules[index].actions.digest == nil {
        let message = notification(apprise.message, rule: name, item: item, feed: feed.name, tags: decision.tags)
        decision.apprise.append(Decision.Apprise(rule: name, source: .rule(name), message: message))
      }
      if rules[index].actions.digest != nil, !decision.digests.contains(name) { decision.digests.append(name) }
      if rules[index].actions.stop {
        decision.stoppedBy = name
        break
      }
    }
    if feed.notify, decision.notifications.isEmpty {
      decision.notifications.append(
        notification(NotifyAction(), rule: nil, item: item, feed: feed.name, tags: decision.tags))
    }
    // One item, one notification: the first rule's texts, the highest urgency any rule asked for.
    if var first = decision.notifications.first, decision.notifications.count > 1 {
      first.urgency = decision.notifications.map(\.urgency).max() ?? first.urgency
      decision.notifications = [first]
    }
    if let hook = feed.hook, !decision.hooks.contains(where: { $0.command == hook.command }) {
      decision.hooks.append(
        Decision.Hook(
          rule: "feed '\(feed.name)'", source: .feed, command: hook.command,
          arguments: hook.run.map { Template.arguments($0, item: item, feed: feed.name, tags: decision.tags) },
          timeout: hook.timeout))
    }
    if let apprise = feed.apprise, decision.apprise.isEmpty {
      let message = notification(apprise.message, rule: nil, item: item, feed: feed.name, tags: decision.tags)
      decision.apprise.append(Decision.Apprise(rule: "feed '\(feed.name)'", source: .feed, message: message))
    }
    if decision.muted {
      decision.notifications = []
      decision.hooks = []
      decision.webhooks = []
      decision.apprise = []
      decision.digests = []
    }
    return decision
  }

  /// The longest notification title, in characters, whatever the feed or the template holds.
  ///
  /// It bounds what a desktop shows and what the state keeps for a notification still to deliver.
  public static let maxSummaryCharacters = 200
  /// The longest templated notification body, in characters (the default body is 200).
  public static let maxBodyCharacters = 1_000

  /// `text`, or its first `limit - 1` characters and "…" (and at most `4 * limit` bytes).
  package static func clipped(_ text: String, to limit: Int) -> String {
    let clipped = text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    // A character may be any number of combining marks: bounded in bytes too.
    return TextBudget.prefix(clipped, maxBytes: 4 * limit, marked: true)
  }

  /// A rendered notification: the rule's settings over the defaults.
  private func notification(
    _ action: NotifyAction, rule: String?, item: FeedItem, feed: String, tags: [String], score: String? = nil
  ) -> Decision.Notification {
    let summary =
      action.summary?.render(item, feed: feed, tags: tags, score: score) ?? "\(feed): \(item.title ?? "(untitled)")"
    let body: String
    if let template = action.body {
      body = Self.clipped(template.render(item, feed: feed, tags: tags, score: score), to: Self.maxBodyCharacters)
    } else {
      body = Self.clipped((item.text ?? "").replacing("\n", with: " "), to: 200)
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
      guard let needleSet,
        let (name, text) = facts.matchNeedles(n.field, ids, wholeWord: n.wholeWord, in: needleSet)
      else { return false }
      reasons.append(Decision.Match(rule: rules[rule].name, field: name, text: text))
      return true
    case .regex:
      let literal = n.b >= 0 ? Int(n.b) : nil
      guard let (name, text) = facts.matchRegex(n.field, program.regexes[Int(n.a)], literal: literal, in: needleSet)
      else {
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
    case .scoreAbove, .scoreBelow:
      guard let score = facts.score, n.op == .scoreAbove ? score > n.bound : score < n.bound else { return false }
      reasons.append(Decision.Match(rule: rules[rule].name, field: "score", text: Relevance.shown(score)))
      return true
    }
  }
}
