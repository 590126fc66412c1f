// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherFetch
import WatcherPoll
import WatcherState
import WatcherSupport
import WatcherTestSupport

/// A clicked button becomes a pending hook of its feed, durably, and is run with a hook's guarantees;
/// notifications carry their rule's buttons; a snoozed feed notifies nobody.
@Suite("Clicks and snoozes", .serialized)
struct ClickTests {
  typealias Harness = PollerTests.Harness

  func harness() throws -> Harness {
    var h = try Harness(settings: "  first_poll: all")
    h.config.rules = try ConfigLoader.parse(
      """
      feeds: [{ url: x, name: test }]
      rules:
        - name: r
          match: { title: '' }
          notify: true
          buttons: [{ label: Archive, hook: 'echo "$WATCHER_LINK"' }]
      """, path: "r.yaml"
    ).rules
    h.source.items.withLock { $0 = [("a", "One", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    return h
  }

  @Test("a notification carries its rule's buttons and the item's document; the state keeps them")
  func carried() throws {
    let h = try harness()
    defer { h.server.stop() }
    _ = h.poll()
    let action = try #require(h.runner.actions.first?.action)
    guard case .notify(let shown) = action.payload else {
      Issue.record("not a notification")
      return
    }
    #expect(shown.buttons == ["Archive"] && shown.item?.contains("\"title\":\"One\"") == true)
    // Written and read back as it was (a notification kept for later keeps its buttons).
    var state = FeedState(url: "u")
    state.pending = [action]
    #expect(try StateStore.decode(Data(state.pretty)).pending == [action])
  }

  @Test("a click is made a pending hook of its feed, saved, run as the button's hook; a stale one is given up")
  func absorbed() throws {
    let h = try harness()
    defer { h.server.stop() }
    _ = h.poll()
    let feed = h.config.feeds[0]
    try h.store.record(
      Click(
        feedURL: feed.url, key: "a", rule: "r", button: "Archive", title: "One", link: "http://example.org/a",
        item: "{\"title\":\"One\",\"link\":\"http://example.org/a\"}", time: PollerTests.now))
    try h.store.record(
      Click(
        feedURL: feed.url, key: "a", rule: "gone", button: "Archive", title: "One", link: nil, item: nil,
        time: PollerTests.now))
    #expect(h.store.clicks().count == 2)
    let before = h.runner.actions.count
    // Not due: the pass still runs what is pending.
    let pass = Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: h.runner)
      .pass(h.config.feeds, force: false, now: PollerTests.now.addingTimeInterval(60))
    #expect(h.store.clicks().isEmpty, "every click file is taken")
    #expect(pass.clickProblems.count == 1 && pass.clickProblems[0].contains("no longer in the config"))
    let ran = h.runner.actions.dropFirst(before).map(\.action)
    #expect(ran.count == 1 && ran[0].source == .button(rule: "r", label: "Archive"), "\(ran)")
    guard case .hook(let hook)? = ran.first?.payload else { return }
    #expect(hook.command == "echo \"$WATCHER_LINK\"" && hook.item?.contains("example.org/a") == true)
    #expect(try h.store.load(url: feed.url).state.pending.isEmpty)
    let journal = try String(contentsOfFile: h.store.directory + "/journal.jsonl", encoding: .utf8)
    #expect(journal.contains("\"rule\":\"gone\"") && journal.contains("\"outcome\":\"dropped\""))
  }

  @Test("a snoozed feed's items notify nobody until the snooze ends; its hooks and digests are not held")
  func snoozed() throws {
    let h = try harness()
    defer { h.server.stop() }
    try h.store.snooze("test", until: PollerTests.now.addingTimeInterval(3_600), now: PollerTests.now)
    let outcome = h.poll()
    #expect(outcome.snoozed == 1 && h.runner.actions.isEmpty, "\(h.runner.actions)")
    h.source.items.withLock { $0.append(("b", "Two", "Sat, 28 Nov 2026 11:00:00 GMT")) }
    _ = h.poll(at: PollerTests.now.addingTimeInterval(3_601))
    #expect(h.runner.actions.map(\.action.key) == ["b"])
    #expect(
      h.store.snoozes(now: PollerTests.now).keys.sorted() == ["test"],
      "an ended snooze stays in the file (dropped at the next write) and holds nothing")
  }
}
