// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Testing
import WatcherSupport

@testable import WatcherActions

@Suite("Bubbles that replace each other")
struct BubbleRunsTests {
  func critical(_ title: String, rule: String = "security") -> DesktopNotification {
    var notification = DesktopNotification(
      summary: title, body: "text of \(title)", urgency: .critical, link: "https://example.org/\(title)")
    notification.rule = rule
    return notification
  }

  @Test("a rule's critical items make one bubble while it is open: the newest, and what came before it")
  func run() throws {
    var runs = BubbleRuns()
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let (first, firstEntries) = runs.prepare(critical("CVE-1"), now: start)
    #expect(first.summary == "CVE-1" && first.body == "text of CVE-1" && first.replaces == "critical:security")
    runs.shown("critical:security", id: 7, entries: firstEntries, now: start)
    var last = first
    for (index, title) in ["CVE-2", "CVE-3", "CVE-4", "CVE-5", "CVE-6"].enumerated() {
      let now = start.addingTimeInterval(Double(index + 1) * 600)
      let (shown, entries) = runs.prepare(critical(title), now: now)
      #expect(shown.replaces == "critical:security")
      runs.shown("critical:security", id: 7, entries: entries, now: now)
      last = shown
    }
    #expect(last.summary == "CVE-6 (and 5 more)")
    #expect(last.body == "text of CVE-6\n\nEarlier:\n• CVE-5\n• CVE-4\n• CVE-3\n• CVE-2\n… and 1 more")
    #expect(last.links == (1...6).reversed().map { "https://example.org/CVE-\($0)" })

    // Another rule's critical items are a run of their own; normal ones never join one.
    #expect(runs.prepare(critical("Other", rule: "outage"), now: start).0.summary == "Other")
    var normal = critical("Calm")
    normal.urgency = .normal
    #expect(runs.prepare(normal, now: start).0 == normal)

    // Closed: the next starts a new run. A run a day old is taken to be gone.
    var closed = runs
    closed.closed("critical:security")
    #expect(closed.prepare(critical("CVE-7"), now: start).0.summary == "CVE-7")
    #expect(runs.prepare(critical("CVE-7"), now: start.addingTimeInterval(2 * 86_400)).0.summary == "CVE-7")
    // A clock set back before the run's last bubble does not join it either.
    #expect(runs.prepare(critical("CVE-7"), now: start.addingTimeInterval(-60)).0.summary == "CVE-7")
  }

  @Test("bubbles.json round-trips, reads the old form (a bare id), and ignores what it cannot read")
  func file() throws {
    var runs = BubbleRuns()
    runs.shown("digest:d", id: 3, entries: nil, now: Date())
    runs.shown("critical:r", id: 4, entries: [.init(summary: "s", link: nil)], now: Date(timeIntervalSince1970: 5))
    #expect(BubbleRuns(contentsOf: runs.data) == runs)
    let old = BubbleRuns(contentsOf: Data(#"{"away": 12, "digest:d": 9}"#.utf8))
    #expect(old.bubbles["away"]?.id == 12 && old.bubbles["digest:d"]?.id == 9)
    #expect(BubbleRuns(contentsOf: Data("{not json".utf8)).bubbles.isEmpty)
    #expect(BubbleRuns(contentsOf: nil).bubbles.isEmpty)
  }
}
