// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherActions
import WatcherConfig
import WatcherFetch
import WatcherPoll
import WatcherState
import WatcherSupport
import WatcherTestSupport

/// Quiet hours, with the clock driven by the test: notifications wait (durably) and go out when they end.
@Suite("Quiet hours", .serialized)
struct QuietHoursTests {
  typealias Harness = PollerTests.Harness
  typealias Notifier = KeptNotificationTests.SwitchableNotifier

  /// `hour:minute` local time on the day of `PollerTests.now` (plus `days`).
  static func local(_ hour: Int, _ minute: Int = 0, days: Int = 0) -> Date {
    let calendar = Calendar.current
    let day = calendar.date(byAdding: .day, value: days, to: PollerTests.now) ?? PollerTests.now
    return calendar.date(bySettingHour: hour, minute: minute, second: 0, of: day) ?? day
  }

  @Test("ranges, midnight, lists, the end of a quiet time, and what quiet_allows lets through")
  func model() throws {
    let config = try ConfigLoader.parse(
      "settings:\n  notify: { quiet: [\"22:00-07:00\", \"12:00-13:30\"], quiet_allows: critical }\nfeeds: []\n",
      path: "q.yaml")
    let quiet = config.settings.notify.quiet
    #expect(quiet.ranges == [.init(start: 22 * 60, end: 7 * 60), .init(start: 12 * 60, end: 13 * 60 + 30)])
    #expect(quiet.isQuiet(Self.local(23)) && quiet.isQuiet(Self.local(3)) && quiet.isQuiet(Self.local(12, 45)))
    #expect(!quiet.isQuiet(Self.local(7)) && !quiet.isQuiet(Self.local(21, 59)) && !quiet.isQuiet(Self.local(13, 30)))
    #expect(quiet.end(after: Self.local(23)) == Self.local(7, days: 1))
    #expect(quiet.end(after: Self.local(12, 10)) == Self.local(13, 30))
    #expect(quiet.holds(.normal, at: Self.local(23)) && !quiet.holds(.critical, at: Self.local(23)))
    #expect(!quiet.holds(.low, at: Self.local(9)))
  }

  @Test(
    "bad quiet hours are errors that say how to write them",
    arguments: ["22-07", "25:00-07:00", "07:00-07:00", "7pm-8am"])
  func invalid(_ text: String) {
    do {
      _ = try ConfigLoader.parse("settings:\n  notify: { quiet: \"\(text)\" }\nfeeds: []\n", path: "q.yaml")
      Issue.record("'\(text)' was accepted")
    } catch {
      #expect(error.rendered.contains("invalid quiet hours '\(text)'") && error.rendered.contains("22:00-07:00"))
    }
  }

  @Test("inside quiet hours notifications wait, hooks run; after them, one summary; critical goes through")
  func heldThenShown() throws {
    var h = try Harness(settings: "  first_poll: all\n  notify: { quiet: \"22:00-07:00\", quiet_allows: critical }")
    defer { h.server.stop() }
    h.config.rules = try ConfigLoader.parse(
      """
      feeds: [{ url: x, name: test }]
      rules:
        - { name: loud, match: { title: urgent }, notify: { urgency: critical } }
        - { name: all, match: { title: item }, notify: true, hook: 'true' }
      """, path: "r.yaml"
    ).rules
    let notifier = Notifier()
    notifier.up.withLock { $0 = true }
    let runner = DeliveringActionRunner(
      notifier: notifier, settings: h.config.settings, environment: [:], log: { _ in })
    func poller() -> Poller {
      // A new poller each time: what is held survives a restart.
      Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: runner)
    }
    h.source.items.withLock {
      $0 = [
        ("a", "Item one", "Sat, 28 Nov 2026 10:00:00 GMT"), ("b", "Item two", "Sat, 28 Nov 2026 10:00:00 GMT"),
        ("c", "urgent thing", "Sat, 28 Nov 2026 10:00:00 GMT"),
      ]
    }
    let night = poller().pass(h.config.feeds, force: true, now: Self.local(23))
    #expect(night.outcomes[0].held == 2, "\(night.outcomes[0])")
    #expect(notifier.shown.withLock { $0 }.map(\.summary) == ["test: urgent thing"])
    let held = try h.store.keptNotifications()
    #expect(held.count == 2 && held.allSatisfy { $0.until == Self.local(7, days: 1) })
    #expect(night.outcomes[0].journal.filter { $0.outcome == .held }.count == 2)
    #expect(night.outcomes[0].journal.filter { $0.outcome == .ok }.count == 2, "hooks are not held")

    let stillNight = poller().pass(h.config.feeds, force: true, now: Self.local(6, 59, days: 1))
    #expect(stillNight.keptShown == 0 && stillNight.keptHeld == 2)
    #expect(notifier.shown.withLock { $0 }.count == 1)

    let morning = poller().pass(h.config.feeds, force: true, now: Self.local(7, 1, days: 1))
    #expect(morning.keptShown == 2)
    let shown = notifier.shown.withLock { $0 }
    #expect(shown.count == 2 && shown[1].summary == "While you were away: 2 notifications", "\(shown)")
    #expect(try h.store.keptNotifications().isEmpty)
  }

  @Test("a feed's health is told by a low-urgency notification that quiet hours hold, and only once")
  func healthHeld() throws {
    let h = try Harness(settings: "  notify: { quiet: \"22:00-07:00\" }")
    defer { h.server.stop() }
    h.source.status.withLock { $0 = 410 }
    let notifier = Notifier()
    notifier.up.withLock { $0 = true }
    let night = Self.poller(h, notifier).pass(h.config.feeds, force: true, now: Self.local(23))
    #expect(night.outcomes[0].held == 1, "\(night.outcomes[0])")
    #expect(notifier.shown.withLock { $0 }.isEmpty)
    _ = Self.poller(h, notifier).pass(h.config.feeds, force: true, now: Self.local(7, 1, days: 1))
    let shown = notifier.shown.withLock { $0 }
    #expect(shown.count == 1 && shown[0].summary.contains("gone: the server answers 410"), "\(shown)")
    #expect(shown[0].urgency == .low)
  }

  /// A poller whose notifications reach `notifier`, with `h`'s config as it is now.
  static func poller(_ h: Harness, _ notifier: Notifier) -> Poller {
    let runner = DeliveringActionRunner(
      notifier: notifier, settings: h.config.settings, environment: [:], log: { _ in })
    return Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: runner)
  }

  /// `count` new items.
  static func items(_ count: Int, prefix: String = "i") -> [(String, String, String)] {
    (0..<count).map { ("\(prefix)\($0)", "Item \(prefix)\($0)", "Sat, 28 Nov 2026 10:00:00 GMT") }
  }

  @Test("more held than keep_max: the poll, the journal and status say how many are held and which were given up")
  func heldPastKeepMax() throws {
    var h = try Harness(settings: "  first_poll: all\n  notify: { quiet: \"22:00-07:00\", keep_max: 200 }")
    defer { h.server.stop() }
    h.config.rules = try ConfigLoader.parse(
      "feeds: [{ url: x, name: test }]\nrules:\n  - { name: all, match: { title: item }, notify: true }\n",
      path: "r.yaml"
    ).rules
    h.config.settings.notify.maxPerPoll = 1_000
    let notifier = Notifier()
    notifier.up.withLock { $0 = true }
    h.source.items.withLock { $0 = Self.items(300) }
    let night = Self.poller(h, notifier).pass(h.config.feeds, force: true, now: Self.local(23))
    let outcome = night.outcomes[0]
    #expect(outcome.held == 200, "before: all 300 were said to be held while 100 were dropped")
    #expect(outcome.warnings.contains { $0.contains("gave up on 100 kept notifications") }, "\(outcome.warnings)")
    #expect(try h.store.keptNotifications().count == 200)
    let journal = h.store.journal(limits: JournalLimits(), now: Self.local(23)).entries
    let dropped = journal.filter { $0.outcome == .dropped }
    #expect(dropped.count == 100 && dropped.allSatisfy { $0.detail?.contains("keep_max (200)") == true })
    // The oldest went: the newest 200 are the ones kept.
    #expect(Set(try h.store.keptNotifications().map(\.action.key)) == Set((100..<300).map { "i\($0)" }))
  }

  @Test("held notifications go out when quiet hours are removed from the config, or when the clock was set back")
  func heldGoOutWhenNoLongerQuiet() throws {
    var h = try Harness(settings: "  first_poll: all\n  notify: { quiet: \"22:00-07:00\" }")
    defer { h.server.stop() }
    let notifier = Notifier()
    notifier.up.withLock { $0 = true }
    h.source.items.withLock { $0 = Self.items(2) }
    let night = Self.poller(h, notifier).pass(h.config.feeds, force: true, now: Self.local(23))
    #expect(night.outcomes[0].held == 2)
    h.config.settings.notify.quiet = QuietHours()
    let shown = Self.poller(h, notifier).pass(h.config.feeds, force: true, now: Self.local(23, 5))
    #expect(shown.keptShown == 2, "quiet hours were removed: held ones go out now, not at 07:00")
    #expect(try h.store.keptNotifications().isEmpty)

    // Held until a time a year off (the clock was set back): out as soon as quiet hours no longer hold it.
    let far = [
      KeptNotification(
        feed: "test",
        action: FeedState.PendingAction(
          kind: .notify, key: "k", rule: "everything", summary: "s", body: "b", created: Self.local(9)),
        until: Self.local(7, days: 365))
    ]
    try h.store.saveKept(far)
    let morning = Self.poller(h, notifier).pass(h.config.feeds, force: true, now: Self.local(9))
    #expect(morning.keptShown == 1, "an 'until' far beyond what the config allows is due now")
  }
}
