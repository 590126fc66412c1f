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

#if canImport(Glibc)
  import Glibc
#endif

/// State that cannot be read, cannot be written, is corrupt or holds absurd numbers: never an action
/// repeated, never a state file lost, never a crash.
@Suite("State safety", .serialized)
struct StateSafetyTests {
  typealias Harness = PollerTests.Harness
  static let now = PollerTests.now

  @Test(
    "a state file that exists but is not a readable regular file is an error, left alone, and nothing is done",
    arguments: ["fifo", "directory", "symlink"])
  func unreadableStateFile(kind: String) throws {
    let h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    h.source.items.withLock { $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    let path = h.store.path(for: h.config.feeds[0].url)
    switch kind {
    case "fifo": #expect(mkfifo(path, 0o600) == 0)
    case "directory": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    default: #expect(symlink("/etc/hostname", path) == 0)
    }
    let outcome = h.poll()
    guard case .unreadableState(.unreadable) = outcome.failures.first else {
      Issue.record("expected an unreadable state, got \(outcome.failures)")
      return
    }
    #expect(outcome.failures.count == 1 && "\(outcome.failures[0])".contains("cannot read the state file"))
    #expect(!outcome.polled && outcome.actions == 0)
    #expect(h.runner.actions.isEmpty)
    #expect(h.server.requests.isEmpty, "a feed with unreadable state was fetched")
    var info = stat()
    #expect(lstat(path, &info) == 0)
    let expected: mode_t = kind == "fifo" ? S_IFIFO : kind == "directory" ? S_IFDIR : S_IFLNK
    #expect(info.st_mode & S_IFMT == expected, "the state file was replaced")
  }

  @Test(
    "a corrupt state file restarts the feed silently, whatever first_poll says",
    arguments: ["all", "latest 5"])
  func corruptStateIsSilent(firstPoll: String) throws {
    let h = try Harness(settings: "  first_poll: \(firstPoll)")
    defer { h.server.stop() }
    h.source.items.withLock {
      $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT"), ("b", "B", "Sat, 28 Nov 2026 11:00:00 GMT")]
    }
    let first = h.poll()
    #expect(first.actions == 2)
    try "{ not json".write(toFile: h.store.path(for: h.config.feeds[0].url), atomically: true, encoding: .utf8)
    let again = h.poll(at: Self.now.addingTimeInterval(60))
    #expect(again.warnings.contains { $0.contains("unreadable") })
    #expect(again.actions == 0, "items already handled were acted on again")
    #expect(h.runner.actions.count == 2)
    h.source.items.withLock { $0.append(("c", "C", "Sun, 29 Nov 2026 10:00:00 GMT")) }
    let later = h.poll(at: Self.now.addingTimeInterval(120))
    #expect(later.actions == 1)
  }

  @Test("a state file whose known items alone are corrupt is scheduled, then moved aside when they are needed")
  func corruptItemsAreSilent() throws {
    let h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    h.source.items.withLock {
      $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT"), ("b", "B", "Sat, 28 Nov 2026 11:00:00 GMT")]
    }
    #expect(h.poll().actions == 2)
    // The items come last: the read that schedules the feed stops before them and succeeds, and a poll
    // that changes nothing (a 304) needs no more.
    let path = h.store.path(for: h.config.feeds[0].url)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let items = try #require(text.range(of: "\"item_digests\"") ?? text.range(of: "\"items\""))
    try (text[..<items.lowerBound] + "\"items\": {{{").write(toFile: path, atomically: true, encoding: .utf8)
    let url = h.config.feeds[0].url
    #expect(try StateStore.load(url: url, directory: h.store.directory, items: false).restarted == nil)
    #expect(h.poll(at: Self.now.addingTimeInterval(60)).actions == 0)
    // A poll that reads the items finds them corrupt: the file goes aside and the feed starts again as from
    // any corrupt file, acting on nothing it cannot tell from what it already handled.
    h.source.items.withLock { $0.append(("c", "C", "Sun, 29 Nov 2026 10:00:00 GMT")) }
    let again = h.poll(at: Self.now.addingTimeInterval(120))
    #expect(again.warnings.contains { $0.contains("unreadable") && $0.contains(".corrupt-") }, "\(again.warnings)")
    #expect(again.actions == 0, "items already handled were acted on again")
    #expect(h.runner.actions.count == 2)
    h.source.items.withLock { $0.append(("d", "D", "Mon, 30 Nov 2026 10:00:00 GMT")) }
    #expect(h.poll(at: Self.now.addingTimeInterval(180)).actions == 1)
  }

  @Test("numbers no computation can hold, from a state file, do not crash the poll")
  func absurdNumbers() throws {
    let h = try Harness(settings: "  interval: 5200w")
    defer { h.server.stop() }
    h.source.status.withLock { $0 = 500 }
    let path = h.store.path(for: h.config.feeds[0].url)
    let state = """
      {"version": 1, "url": "\(h.config.feeds[0].url)", "consecutive_failures": 9223372036854775807,
       "last_attempt": "2026-11-01T00:00:00Z", "not_before": "2026-11-02T00:00:00Z",
       "pending": [{"kind": "hook", "key": "k", "command": "true", "timeout": 9223372036854775807,
                    "attempts": 9223372036854775807, "created": "2026-11-01T00:00:00Z"}]}
      """
    try state.write(toFile: path, atomically: true, encoding: .utf8)
    let outcome = h.poll()
    #expect(outcome.failures == [.load(.status(500, retryAfter: nil))], "\(outcome.failures)")
    let saved = try h.store.load(url: h.config.feeds[0].url).state
    #expect(saved.consecutiveFailures <= 1_000_001)
    #expect(saved.notBefore.map { $0 <= Self.now.addingTimeInterval(86_400) } == true)
  }

  @Test("Retry-After holds for a feed named on the command line unless forced")
  func retryAfterHoldsWhenNamed() throws {
    let h = try Harness()
    defer { h.server.stop() }
    h.source.status.withLock { $0 = 429 }
    h.source.retryAfter.withLock { $0 = "3600" }
    _ = h.poll(force: false)
    #expect(h.server.requests.count == 1)
    let named = h.poll(at: Self.now.addingTimeInterval(60), force: true)
    #expect(!named.polled)
    #expect(named.heldUntil == Self.now.addingTimeInterval(3_600))
    #expect(h.server.requests.count == 1, "the named feed was requested inside its Retry-After")
    let forced = Poller(
      config: h.config, store: h.store, transport: CurlTransport(userAgent: "test"), runner: h.runner
    ).poll(h.config.feeds, force: true, ignoreRetryAfter: true, now: Self.now.addingTimeInterval(120))[0]
    #expect(forced.polled)
    #expect(h.server.requests.count == 2)
  }

  @Test("the lock file is never opened through a symlink")
  func lockSymlink() throws {
    let dir = try TemporaryDirectory()
    let state = dir.url.appendingPathComponent("state").path
    let store = try StateStore(directory: state)
    let target = dir.url.appendingPathComponent("elsewhere").path
    #expect(symlink(target, state + "/lock") == 0)
    #expect(throws: StateError.self) { try store.lock() }
    #expect(!FileManager.default.fileExists(atPath: target), "the lock followed a symlink")
  }

  @Test("a read-only load never moves a corrupt file")
  func readOnlyLoad() throws {
    let dir = try TemporaryDirectory()
    let store = try StateStore(directory: dir.url.appendingPathComponent("state").path)
    let path = store.path(for: "https://example.com/feed")
    try "garbage".write(toFile: path, atomically: true, encoding: .utf8)
    let loaded = try store.load(url: "https://example.com/feed", readOnly: true)
    #expect(loaded.restarted != nil)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "garbage")
  }
}
