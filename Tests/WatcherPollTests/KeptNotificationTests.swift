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

/// Notifications that cannot be shown are kept, bounded, and shown later: never silently lost.
@Suite("Kept notifications", .serialized)
struct KeptNotificationTests {
  typealias Harness = PollerTests.Harness
  static let now = PollerTests.now

  /// A notifier that fails while `up` is false, and records what it showed.
  final class SwitchableNotifier: Notifier {
    let up = Locked(false)
    let shown = Locked<[DesktopNotification]>([])

    func show(_ notification: DesktopNotification) throws(ActionError) {
      guard up.withLock({ $0 }) else { throw .notificationService("no session bus (a test)") }
      shown.withLock { $0.append(notification) }
    }
  }

  static func items(_ count: Int) -> [(guid: String, title: String, date: String)] {
    (0..<count).map { ("g\($0)", "Item \($0)", "Sat, 28 Nov 2026 10:00:00 GMT") }
  }

  @Test("kept while the service is away, shown as one 'while you were away' summary when it is back")
  func keptThenShown() throws {
    var h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    h.config.rules = []
    h.config.feeds[0].notify = true
    let notifier = SwitchableNotifier()
    let runner = DeliveringActionRunner(
      notifier: notifier, settings: h.config.settings, environment: [:], log: { _ in })
    let poller = Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: runner)
    h.source.items.withLock { $0 = Self.items(3) }
    let away = poller.pass(h.config.feeds, force: true, now: Self.now)
    #expect(away.outcomes[0].kept == 3 && away.keptWaiting == 3)
    #expect(
      away.outcomes[0].actionProblems == [.notShown(.notification(.notificationService("no session bus (a test)")))])
    #expect(
      away.outcomes[0].actionProblems.map(\.description) == [
        "cannot reach the desktop notification service: no session bus (a test)"
      ])
    #expect(try h.store.load(url: h.config.feeds[0].url).state.pending.isEmpty)
    #expect(try h.store.keptNotifications().count == 3)

    let stillAway = poller.pass(h.config.feeds, force: true, now: Self.now.addingTimeInterval(60))
    #expect(
      stillAway.keptShown == 0 && stillAway.keptWaiting == 3
        && stillAway.keptError == .notShown(.notification(.notificationService("no session bus (a test)"))))

    notifier.up.withLock { $0 = true }
    let back = poller.pass(h.config.feeds, force: true, now: Self.now.addingTimeInterval(120))
    #expect(back.keptShown == 3 && back.keptWaiting == 0)
    let shown = notifier.shown.withLock { $0 }
    #expect(shown.count == 1)
    #expect(shown.first?.summary == "While you were away: 3 notifications")
    #expect(shown.first?.body == "test: Item 0\ntest: Item 1\ntest: Item 2")
    #expect(try h.store.keptNotifications().isEmpty)
  }

  @Test("one kept notification is shown as it was; the summary of several takes the highest urgency")
  func oneAsItWas() throws {
    let notifier = SwitchableNotifier()
    notifier.up.withLock { $0 = true }
    let runner = DeliveringActionRunner(notifier: notifier, settings: Settings(), environment: [:], log: { _ in })
    func kept(_ summary: String, _ urgency: String) -> KeptNotification {
      KeptNotification(
        feed: "f",
        action: .init(
          kind: .notify, key: summary, rule: nil, summary: summary, body: "b", urgency: Urgency(rawValue: urgency),
          created: Self.now))
    }
    #expect(runner.showKept([kept("Only", "low")]) == .done)
    #expect(runner.showKept([kept("A", "low"), kept("B", "critical"), kept("C", "normal")]) == .done)
    let shown = notifier.shown.withLock { $0 }
    #expect(shown.map(\.summary) == ["Only", "While you were away: 3 notifications"])
    #expect(shown.map(\.urgency) == [.low, .critical])
  }

  @Test("kept notifications are bounded by keep_max (the newest stay) and keep_for")
  func bounded() throws {
    var h = try Harness(settings: "  first_poll: all\n  notify: { keep_max: 2, keep_for: 1h }")
    defer { h.server.stop() }
    h.config.rules = []
    h.config.feeds[0].notify = true
    h.runner.notificationServiceUp.withLock { $0 = false }
    let poller = Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: h.runner)
    h.source.items.withLock { $0 = Self.items(3) }
    _ = poller.pass(h.config.feeds, force: true, now: Self.now)
    #expect(try h.store.keptNotifications().map(\.action.notification?.summary) == ["test: Item 1", "test: Item 2"])
    let later = poller.pass(h.config.feeds, force: true, now: Self.now.addingTimeInterval(7_200))
    #expect(later.keptDropped == 2 && later.keptWaiting == 0)
    #expect(try h.store.keptNotifications().isEmpty)
  }
}
