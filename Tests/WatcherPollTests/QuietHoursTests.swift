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
}
