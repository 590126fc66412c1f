// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherConfig
import WatcherFeed
import WatcherRules
import WatcherState
import WatcherSupport

/// The last step of deciding: the rules' decision for one item made into its pending actions (kept in the
/// feed's state until they have run) and its digest entries, and counted in the feed's outcome.
struct ActionRecorder: Sendable {
  /// The feeds snoozed now (their notifications are not made).
  var snoozed: Set<String> = []
  /// The buttons of each rule that has some.
  let buttonsByRule: [String: [NotifyButton]]
  /// Whether item notifications carry 👍 and 👎 buttons (`settings.notify.learn`).
  var learn = false

  init(rules: [Rule]) {
    buttonsByRule = Dictionary(
      rules.filter { !$0.actions.buttons.isEmpty }.map { ($0.name, $0.actions.buttons) },
      uniquingKeysWith: { first, _ in first })
  }

  /// What one item's actions are made from: the item as they keep it, its key, its feed, and when.
  struct Subject {
    let item: FeedItem
    let key: String
    let feed: FeedConfig
    let tags: [String]
    let now: Date

    /// The document a hook gets on stdin and a webhook in its body (with no rule for a digest's entry).
    func document(rule: String?) -> String {
      var extra: [(String, JSONOutput)] = [
        ("feed", .string(feed.name)), ("feed_url", .string(URLSecrets.redacted(feed.url))),
      ]
      if let rule { extra += [("rule", .string(rule)), ("tags", .array(tags.map { .string($0) }))] }
      return FeedJSONWriter.itemJSON(item, extra: extra)
    }

    func pending(_ payload: FeedState.PendingAction.Payload, source: ActionSource, link: Bool = true)
      -> FeedState.PendingAction
    {
      FeedState.PendingAction(
        key: key, source: source, payload: payload, title: item.title, link: link ? item.link : nil, created: now)
    }
  }

  /// Records `decision` for `item` (keyed `key`) in `state`, its digest entries in `digests`, and counts it.
  func record(
    _ decision: Decision, for item: FeedItem, key: String, feed: FeedConfig, state: inout FeedState,
    outcome: inout Poller.Outcome, digests: inout [(rule: String, entry: Digest.Entry)], now: Date
  ) {
    var decision = decision
    // A snoozed feed ("Snooze feed" on a notification, `watcher snooze`): its items notify nobody for now.
    if snoozed.contains(feed.name), !decision.notifications.isEmpty {
      outcome.snoozed += 1
      decision.notifications = []
    }
    // What the actions keep of the item: every field within its stored size, whatever the feed sent.
    let subject = Subject(item: item.stored, key: key, feed: feed, tags: decision.tags, now: now)
    let image = image(decision, of: subject)
    state.pending += notifications(decision, image: image, of: subject) + hooks(decision, of: subject)
    state.pending += decision.webhooks.map { webhook($0, of: subject) }
    state.pending += decision.apprise.map { apprise($0, image: image, of: subject) }
    for rule in decision.digests {
      outcome.digested.append((rule, subject.item.title ?? key))
      digests.append((rule, digestEntry(of: subject)))
    }
    outcome.count(decision)
  }

  /// The picture only a notification shows (or Apprise attaches): looked for in the HTML only then.
  private func image(_ decision: Decision, of subject: Subject) -> String? {
    guard !decision.notifications.isEmpty || !decision.apprise.isEmpty else { return nil }
    let item = subject.item
    return item.image.flatMap { FeedLocation.isHTTP($0) ? $0 : nil }
      ?? item.html.flatMap { FeedDiscovery.firstImage(in: $0, base: item.link ?? subject.feed.url) }
  }

  private func notifications(_ decision: Decision, image: String?, of subject: Subject) -> [FeedState.PendingAction] {
    decision.notifications.map { notification in
      var shown = notification.content
      shown.image = image
      // The rule's buttons, and the document their hooks get when one is clicked.
      if let rule = notification.rule, let buttons = buttonsByRule[rule], !buttons.isEmpty {
        shown.buttons = buttons.map(\.label)
        shown.item = subject.document(rule: rule)
      }
      // 👍 and 👎 label the item with what it says: the document goes with them.
      if learn {
        shown.learn = true
        shown.item = shown.item ?? subject.document(rule: notification.rule ?? "")
      }
      return subject.pending(.notify(shown), source: notification.rule.map { .rule($0) } ?? .feed)
    }
  }

  private func hooks(_ decision: Decision, of subject: Subject) -> [FeedState.PendingAction] {
    decision.hooks.map { hook in
      var payload = FeedState.PendingAction.Hook(
        command: hook.command, arguments: hook.arguments, timeout: hook.timeout, item: subject.document(rule: hook.rule)
      )
      payload.decidedInPass = true
      return subject.pending(.hook(payload), source: hook.source, link: false)
    }
  }

  private func webhook(_ webhook: Decision.Webhook, of subject: Subject) -> FeedState.PendingAction {
    let target = webhook.action
    return subject.pending(
      .webhook(
        .init(
          url: target.url, secretFile: target.secretFile, secretEnv: target.secretEnv, timeout: target.timeout,
          item: subject.document(rule: webhook.rule))),
      source: .rule(webhook.rule))
  }

  private func apprise(_ apprise: Decision.Apprise, image: String?, of subject: Subject) -> FeedState.PendingAction {
    let message = apprise.message
    return subject.pending(
      .apprise(.init(title: message.summary, body: message.body, urgency: message.urgency, attach: image)),
      source: apprise.source)
  }

  private func digestEntry(of subject: Subject) -> Digest.Entry {
    Digest.Entry(
      feed: subject.feed.name, key: subject.key, title: subject.item.title, link: subject.item.link,
      item: subject.document(rule: nil), collected: subject.now)
  }
}

extension Poller.Outcome {
  /// Counts what the rules decided for one item.
  mutating func count(_ decision: Decision) {
    actions += decision.notifications.count + decision.hooks.count + decision.webhooks.count + decision.apprise.count
    apprised += decision.apprise.isEmpty ? 0 : 1
    webhooks += decision.webhooks.isEmpty ? 0 : 1
    if decision.muted {
      muted += 1
    } else if decision.notifications.isEmpty && decision.hooks.isEmpty && decision.webhooks.isEmpty
      && decision.apprise.isEmpty && decision.digests.isEmpty
    {
      untouched += 1
    }
    if !decision.notifications.isEmpty { notified += 1 }
    if !decision.hooks.isEmpty { hooked += 1 }
  }
}
