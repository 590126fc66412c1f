// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherConfig
import WatcherFeed
import WatcherState
import WatcherSupport

/// What a read teaches about the feed itself: its health told once, its posting rhythm for the schedule,
/// and ids that changed.
extension FeedDecider {
  /// A change in the feed's health (`FeedHealth`) is told once: a warning of the poll, and a low-urgency
  /// notification, pending like any other (quiet hours hold it), unless `settings.notify.health` is off.
  func noteHealth(_ job: inout FeedJob, mode: Poller.Mode, now: Date) {
    var events: [FeedHealth] = []
    let current = FeedHealth.current(job.state, now: now)
    if let current, current.key != job.state.healthTold {
      events.append(current)
      job.state.healthTold = current.key
    } else if current == nil {
      job.state.healthTold = nil
    }
    // Ids that changed are news only wholesale (a migration); one item or a few stay in the journal and status.
    // Told at most once a day: a feed whose ids churn on every fetch is one piece of news, not one a poll.
    if let note = job.outcome.rekeyNote, job.outcome.rekeyed >= max(5, job.outcome.items / 4),
      StoredTime.deadline(job.state.rekeyTold.map { $0.addingTimeInterval(86_400) } ?? now, longest: 86_400, now: now)
        <= now
    {
      events.append(.rekeyed(note))
      if mode == .normal, !job.restarted { job.state.rekeyTold = now }
    }
    guard !events.isEmpty, mode == .normal, !job.restarted else { return }
    let settings = config.settings.notify
    for event in events {
      if event.kind != .rekeyed { job.outcome.warnings.append("\(event.summary); \(event.advice)") }
      guard settings.health else { continue }
      var health = FeedState.PendingAction.Notification(
        summary: "watcher: feed '\(job.feed.name)' \(event.kind == .rekeyed ? "changed its item ids" : event.summary)",
        body: event.kind == .rekeyed ? event.summary : event.advice, urgency: .low, expire: settings.expire,
        icon: settings.icon)
      health.category = .health
      job.state.pending.append(
        FeedState.PendingAction(
          key: "health:\(event.key)", source: .feed,
          payload: .notify(health),
          title: "feed health: \(event.kind.rawValue)", link: job.state.movedTo, created: now))
    }
  }

  /// What the document says about when to poll it again: how often it posts (its items' dates, else when
  /// they were first seen), its `ttl`, `sy:updatePeriod` and skipped hours and days.
  func learnHints(_ feed: Feed, state: inout FeedState, now: Date) {
    var times = feed.items.compactMap { $0.published ?? $0.updated }
    if times.count < 2 { times = state.items.values.map(\.firstSeen) }
    (state.hints.posts, state.hints.postsSince) = Schedule.recentPosts(times, now: now)
    state.hints.ttl = feed.refresh.ttl
    state.hints.updatePeriod = feed.refresh.updatePeriod
    state.hints.skipHours = Array(Set(feed.refresh.skipHours)).sorted()
    state.hints.skipDays = Array(Set(feed.refresh.skipDays)).sorted()
  }

  /// Says once that known items came back under new keys, and switches a feed whose ids change on every
  /// fetch (while its links stay) to link identity: more than 5% of its items, two fetches in a row.
  func noteRekeys(
    _ rekeyed: [Novelty.Match], items: Int, feed: FeedConfig, state: inout FeedState, outcome: inout Poller.Outcome,
    now: Date
  ) {
    outcome.rekeyed = rekeyed.count
    let byLink = rekeyed.filter { $0 == .link }.count
    if byLink > 0, Double(byLink) > Double(items) * 0.05 {
      state.churn += 1
    } else {
      state.churn = 0
    }
    guard let first = rekeyed.first else { return }
    let why: String
    switch first {
    case .spelling(let difference): why = difference
    case .link: why = "new ids, same links"
    case .titleAndDate: why = "new ids, same titles and dates"
    }
    let note =
      "changed its item ids (\(why)): \(rekeyed.count) item\(rekeyed.count == 1 ? "" : "s") re-keyed, none announced"
    outcome.rekeyNote = note
    state.lastRekey = "\(ISODate.format(now)): \(note)"
    if state.churn >= 2, !feed.identityChosen, state.autoIdentity == nil {
      state.autoIdentity = "link"
      state.autoIdentityReason =
        "its ids changed on \(state.churn) fetches in a row while its links stayed (\(byLink) of \(items) items, "
        + "more than 5%); switched to link identity at \(ISODate.format(now))"
      outcome.rekeyNote = note + "; its ids change on every fetch, so its items are now told apart by their links"
    }
  }
}
