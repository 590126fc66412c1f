// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherSupport

/// What `watcher test-rules` computes: the decision for every item of the chosen feeds, with no side effect (no notification, no hook, no state).
///
/// Pure apart from reading the feed files.
public struct DryRun: Sendable {
  /// One item's outcome.
  public struct Outcome: Sendable {
    /// The feed it came from.
    public var feed: FeedConfig
    /// The item.
    public var item: FeedItem
    /// What the rules decided.
    public var decision: Decision
    /// The item's learned score, when a rule tests it and the learner has one, and what moved it most.
    public var score: Double?
    public var scoreReasons: [String] = []
  }

  /// Every item's outcome, feed by feed, in document order.
  public var outcomes: [Outcome] = []
  /// Feeds that could not be read, with the reason (the run goes on without them).
  public var failures: [(feed: FeedConfig, reason: String)] = []

  /// An empty run.
  public init() {}

  /// Evaluates `items` of `feed` with the config's rules.
  public mutating func add(_ items: [FeedItem], feed: FeedConfig, engine: RuleEngine, now: Date) {
    for item in items {
      outcomes.append(
        Outcome(
          feed: feed, item: item,
          decision: engine.evaluate(item, feed: feed, now: now).split(by: engine.spreadRules).now,
          score: engine.usesScore ? engine.scorer?(item, feed.name) : nil,
          scoreReasons: engine.usesScore ? engine.scoreReasons?(item, feed.name) ?? [] : []))
    }
  }

  /// The outcomes as the documented JSON (docs/rules.md, "test-rules --json").
  public func json(includeUntouched: Bool, explain rules: [Rule]? = nil, now: Date = Date()) -> JSONOutput {
    let shown = outcomes.filter { includeUntouched || $0.decision.isTouched }
    let items: [JSONOutput] = shown.map { outcome in
      let d = outcome.decision
      let explanation: [(String, JSONOutput)] =
        rules.map { rules in
          [
            (
              "explain",
              .array(
                RuleExplainer.explain(
                  outcome.item, feed: outcome.feed, rules: rules, now: now, score: outcome.score
                ).map(\.json))
            )
          ]
        } ?? []
      return .object(
        [
          ("feed", .string(outcome.feed.name)),
          ("key", .string(outcome.item.key)),
          ("title", .optional(outcome.item.title)),
          ("link", .optional(outcome.item.link)),
          ("content", .optional(outcome.item.content)),
          ("muted", .bool(d.muted)),
          ("muted_by", .optional(d.mutedBy)),
          ("tags", .array(d.tags.map { .string($0) })),
          (
            "notify",
            .array(
              d.notifications.map {
                .object([
                  ("rule", .optional($0.rule)), ("summary", .string($0.summary)), ("body", .string($0.body)),
                  ("urgency", .string($0.urgency.rawValue)),
                ])
              })
          ),
          (
            "hooks",
            .array(
              d.hooks.map {
                .object(
                  [("rule", .string($0.rule)), ("command", .string($0.command))]
                    + ($0.arguments.map { [("run", JSONOutput.array($0.map { .string($0) }))] } ?? []))
              })
          ),
          (
            "apprise",
            .array(d.apprise.map { .object([("rule", .string($0.rule)), ("title", .string($0.message.summary))]) })
          ),
          (
            "webhooks",
            .array(
              d.webhooks.map {
                .object([("rule", .string($0.rule)), ("url", .string(URLSecrets.redacted($0.action.url)))])
              })
          ),
          (
            "matches",
            .array(
              d.matches.map {
                .object([("rule", .string($0.rule)), ("field", .string($0.field)), ("text", .string($0.text))])
              })
          ),
        ].filter { $0.0 != "content" || outcome.item.content != nil } + explanation)
    }
    return .document([("items", .array(items)), ("summary", summary.json)])
  }

  /// Counts over all outcomes.
  public var summary: Summary {
    var s = Summary()
    for outcome in outcomes {
      s.items += 1
      if outcome.decision.isTouched { s.touched += 1 }
      if outcome.decision.muted { s.muted += 1 }
      s.notifications += outcome.decision.notifications.count
      s.hooks += outcome.decision.hooks.count
      s.webhooks += outcome.decision.webhooks.count
      s.apprise += outcome.decision.apprise.count
    }
    s.feeds = Set(outcomes.map(\.feed.name)).count
    s.failedFeeds = failures.count
    return s
  }

  /// Counts for the summary line.
  public struct Summary: Sendable, Equatable {
    public var feeds = 0
    public var items = 0
    public var touched = 0
    public var muted = 0
    public var notifications = 0
    public var hooks = 0
    public var webhooks = 0
    public var apprise = 0
    public var failedFeeds = 0

    package var json: JSONOutput {
      .object([
        ("feeds", .int(feeds)), ("items", .int(items)), ("touched", .int(touched)), ("muted", .int(muted)),
        ("notifications", .int(notifications)), ("hooks", .int(hooks)), ("webhooks", .int(webhooks)),
        ("apprise", .int(apprise)), ("failed_feeds", .int(failedFeeds)),
      ])
    }

    /// "12 items in 2 feeds: 4 touched, 1 muted, 3 notifications, 1 hook".
    public var line: String {
      func n(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }
      var line = "\(n(items, "item")) in \(n(feeds, "feed")): \(touched) touched, \(muted) muted, "
      line += "\(n(notifications, "notification")), \(n(hooks, "hook"))"
      if webhooks > 0 { line += ", \(n(webhooks, "webhook"))" }
      if apprise > 0 { line += ", \(n(apprise, "Apprise message"))" }
      if failedFeeds > 0 { line += "; \(n(failedFeeds, "feed")) could not be read" }
      return line
    }
  }
}
