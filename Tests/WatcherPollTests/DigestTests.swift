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

/// Digests, with the clock driven by the test: a rule's matches collected durably and sent together.
@Suite("Digests", .serialized)
struct DigestTests {
  typealias Harness = PollerTests.Harness
  static func local(_ hour: Int, _ minute: Int = 0, days: Int = 0) -> Date {
    QuietHoursTests.local(hour, minute, days: days)
  }

  @Test("the daemon wakes for the next feed due, a held notification or a digest, whichever comes first")
  func nextWake() throws {
    var h = try Harness(settings: "  first_poll: all\n  notify: { quiet: \"10:00-10:01\" }")
    defer { h.server.stop() }
    h.config.rules = try ConfigLoader.parse(
      """
      feeds: [{ url: x, name: test }]
      rules:
        - name: morning
          match: { title: item }
          digest: { every: 1d, at: "08:00" }
      """, path: "r.yaml"
    ).rules
    let runner = DeliveringActionRunner(
      notifier: KeptNotificationTests.SwitchableNotifier(), settings: h.config.settings, environment: [:],
      log: { _ in })
    h.source.items.withLock { $0 = [("a", "Item one", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    let start = Self.local(10)
    _ = Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: runner)
      .pass(h.config.feeds, force: true, now: start)
    func wake(_ at: Date) -> TimeInterval { Schedule.nextWake(config: h.config, store: h.store, now: at) }
    let interval = TimeInterval(h.config.feeds[0].interval ?? h.config.settings.interval)
    #expect(wake(start) == interval)
    #expect(wake(start + interval + 5) == 0, "a feed due already: at once")
    // A notification held for quiet hours comes due before the feed: when they end (10:01).
    let held = FeedState.PendingAction(kind: .notify, key: "k", rule: "morning", summary: "s", created: start)
    try h.store.saveKept([KeptNotification(feed: "test", action: held, until: start + 60)])
    #expect(wake(start) == 60)
    // Whatever its 'until' says (the clock was set back): quiet hours decide.
    try h.store.saveKept([KeptNotification(feed: "test", action: held, until: start + 365 * 86_400)])
    #expect(wake(start) == 60)
    #expect(wake(start + 120) == 0, "after quiet hours it is due at once")
    // With the feed far off and nothing held, the digest's time (08:00 the next day).
    try h.store.saveKept([])
    h.config.settings.interval = 7 * 86_400
    #expect(wake(start) == Self.local(8, days: 1).timeIntervalSince(start))
  }

  /// A rule 'morning' whose digest goes out at 08:00 with `hook`; the notifier (up) and one pass at a time.
  static func morningDigest(_ h: inout Harness, hook: String) throws -> (
    KeptNotificationTests.SwitchableNotifier, (Date) -> Poller.Pass
  ) {
    h.config.rules = try ConfigLoader.parse(
      """
      feeds: [{ url: x, name: test }]
      rules:
        - name: morning
          match: { title: item }
          digest: { every: 1d, at: "08:00" }
          digest_hook: '\(hook)'
      """, path: "r.yaml"
    ).rules
    let notifier = KeptNotificationTests.SwitchableNotifier()
    notifier.up.withLock { $0 = true }
    let runner = DeliveringActionRunner(
      notifier: notifier, settings: h.config.settings, environment: [:], log: { _ in })
    let (config, store) = (h.config, h.store)
    return (
      notifier,
      { at in
        Poller(config: config, store: store, transport: CurlTransport(userAgent: "t"), runner: runner)
          .pass(config.feeds, force: true, now: at)
      }
    )
  }

  @Test("a digest goes out at its time: its hook gets the items as a JSON array, one notification lists them")
  func digest() throws {
    var h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    let out = h.dir.url.appendingPathComponent("digest.json").path
    let (notifier, pass) = try Self.morningDigest(
      &h, hook: "cat > \(out); echo \"$WATCHER_DIGEST_COUNT\" >> \(out).count")
    h.source.items.withLock {
      $0 = [("a", "Item one", "Sat, 28 Nov 2026 10:00:00 GMT"), ("b", "Item two", "Sat, 28 Nov 2026 10:00:00 GMT")]
    }
    let first = pass(Self.local(10))
    #expect(first.outcomes[0].digested.map(\.title) == ["Item one", "Item two"])
    #expect(notifier.shown.withLock { $0 }.isEmpty)
    var stored = try h.store.digests()
    #expect(stored.count == 1 && stored[0].rule == "morning" && stored[0].due == Self.local(8, days: 1))
    #expect(stored[0].items.map(\.key) == ["a", "b"])

    h.source.items.withLock { $0.append(("c", "Item three", "Sat, 28 Nov 2026 10:00:00 GMT")) }
    _ = pass(Self.local(15))
    stored = try h.store.digests()
    #expect(stored[0].items.count == 3 && stored[0].due == Self.local(8, days: 1))

    let early = pass(Self.local(7, 59, days: 1))
    #expect(early.digestsShown.isEmpty && notifier.shown.withLock { $0 }.isEmpty)

    let due = pass(Self.local(8, days: 1))
    #expect(due.digestsShown.map(\.rule) == ["morning"] && due.digestProblems.isEmpty, "\(due.digestProblems)")
    let shown = notifier.shown.withLock { $0 }
    #expect(shown.count == 1 && shown[0].summary == "Digest 'morning': 3 items", "\(shown)")
    #expect(shown.first?.body == "test: Item one\ntest: Item two\ntest: Item three")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [[String: Any]])
    #expect(json.map { $0["title"] as? String } == ["Item one", "Item two", "Item three"])
    #expect(json.allSatisfy { $0["feed"] as? String == "test" })
    #expect(try String(contentsOfFile: out + ".count", encoding: .utf8) == "3\n")
    #expect(try h.store.digests().isEmpty)
    // The journal says so.
    let log = h.store.journal(limits: JournalLimits(), now: Self.local(9, days: 1)).entries
    #expect(
      log.contains { $0.action == "notify" && $0.rule == "morning" && $0.outcome == .shown && $0.detail == "3 items" })
  }

  @Test(
    "a failing digest hook is retried spaced in time (not on every pass) and given up only after a day, said once; through quiet hours the daemon sleeps until they end"
  )
  func digestHookBackoff() throws {
    var h = try Harness(settings: "  first_poll: all\n  hook_retries: 2")
    defer { h.server.stop() }
    let count = h.dir.url.appendingPathComponent("runs").path
    let (notifier, pass) = try Self.morningDigest(&h, hook: "echo run >> \(count); exit 3")
    func runs() -> Int { ((try? String(contentsOfFile: count, encoding: .utf8)) ?? "").split(separator: "\n").count }
    h.source.items.withLock { $0 = [("a", "Item one", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    _ = pass(Self.local(10))
    let due = Self.local(8, days: 1)
    let failed = pass(due)
    #expect(runs() == 1 && failed.digestProblems.contains { $0.contains("will retry at") }, "\(failed.digestProblems)")
    // Passes every second for a minute: no retry until the minute is up.
    for second in 1..<60 { _ = pass(due + Double(second)) }
    #expect(runs() == 1, "retried before its minute was up")
    #expect(Schedule.nextWake(config: h.config, store: h.store, now: due + 30) == 30)
    _ = pass(due + 61)
    #expect(runs() == 2, "hook_retries attempts are done, but not the day")
    #expect(try h.store.digests().first?.items.count == 1)
    let late = pass(due + 86_400)
    #expect(runs() == 3)
    #expect(
      late.digestProblems.contains { $0.contains("gave up on the digest hook of rule 'morning' after 3 attempts") },
      "\(late.digestProblems)")
    let shown = notifier.shown.withLock { $0 }
    #expect(shown.contains { $0.summary == "watcher gave up on the digest hook of rule 'morning'" }, "\(shown)")
    #expect(try h.store.digests().isEmpty)

    // Quiet hours hold a digest that is due: the daemon sleeps until they end, not every half second.
    h.config.settings.notify.quiet = QuietHours(ranges: [.init(start: 22 * 60, end: 7 * 60)])
    h.config.settings.interval = 7 * 86_400
    h.config.rules[0].actions.digestHook = nil
    try h.store.saveDigests([
      Digest(
        rule: "morning", due: Self.local(23, days: 2),
        items: [.init(feed: "test", key: "k", title: "t", link: nil, item: "{}", collected: Self.local(22, days: 2))])
    ])
    // (The evening after the last pass: a time before it would find the feed's last poll in the future.)
    let wake = Schedule.nextWake(config: h.config, store: h.store, now: Self.local(23, 30, days: 2))
    #expect(wake == Self.local(7, days: 3).timeIntervalSince(Self.local(23, 30, days: 2)), "\(wake)")
  }

  @Test(
    "digest mistakes in the config are errors",
    arguments: [
      ("digest: { at: \"08:00\" }", "has no 'every'"),
      ("digest: { every: 1d, at: \"8h\" }", "invalid time '8h' for 'at'"),
      ("notify: true\n    digest_hook: 'true'", "has a digest_hook but no digest"),
    ])
  func mistakes(_ rule: String, _ message: String) {
    do {
      _ = try ConfigLoader.parse(
        "feeds: [{ url: x, name: t }]\nrules:\n  - match: { title: a }\n    \(rule)\n", path: "d.yaml")
      Issue.record("accepted: \(rule)")
    } catch {
      #expect(error.rendered.contains(message), "\(error.rendered)")
    }
  }

  @Test("when a digest is due: the next 'at' after the first item, or 'every' after it")
  func schedule() {
    let at = DigestAction(every: 86_400, at: 8 * 60)
    #expect(at.due(after: Self.local(10)) == Self.local(8, days: 1))
    #expect(at.due(after: Self.local(7)) == Self.local(8))
    #expect(DigestAction(every: 3_600).due(after: Self.local(10)) == Self.local(11))
    // Several times a day from 'at': 08:00 and 20:00.
    #expect(DigestAction(every: 43_200, at: 8 * 60).due(after: Self.local(10)) == Self.local(20))
    #expect(DigestAction(every: 43_200, at: 8 * 60).due(after: Self.local(21)) == Self.local(8, days: 1))
  }

  @Test("a digest at 08:00 goes out at 08:00 local time on the days the clocks change", arguments: ["03-29", "10-25"])
  func daylightSaving(_ day: String) throws {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
    let midnight = try #require(DateParser.parse("2026-\(day)T00:30:00+01:00"))
    let due = DigestAction(every: 86_400, at: 8 * 60).due(after: midnight, calendar: calendar)
    let parts = calendar.dateComponents([.day, .hour, .minute], from: due)
    #expect(parts.hour == 8 && parts.minute == 0, "due at \(ISODate.format(due))")
    #expect(parts.day == calendar.component(.day, from: midnight))
    // And the day after, 24 hours of clock later, not 24 hours of seconds.
    let next = DigestAction(every: 86_400, at: 8 * 60).due(after: due, calendar: calendar)
    #expect(calendar.component(.hour, from: next) == 8)
  }
}

/// Foundation's calendar as a local clock, so a test can ask for a time zone other than the process's.
extension Calendar: LocalTime {
  public func clock(_ date: Date) -> (hour: Int, minute: Int) {
    let parts = dateComponents([.hour, .minute], from: date)
    return (parts.hour ?? 0, parts.minute ?? 0)
  }

  public func date(hour: Int, minute: Int, daysAfter days: Int, of date: Date) -> Date {
    let day = self.date(byAdding: .day, value: days, to: startOfDay(for: date)) ?? date
    return self.date(bySettingHour: hour, minute: minute, second: 0, of: day) ?? day
  }
}
