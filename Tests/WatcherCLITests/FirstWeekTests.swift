// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherState

@testable import WatcherCLI

/// Small things a first week with watcher tripped on, each in its words.
@Suite("The first week's small things")
struct FirstWeekTests {
  static let now = Date(timeIntervalSince1970: 1_796_000_000)

  @Test("log: a feed's own event is not '(untitled: )'; a webhook or Apprise that worked is 'done', not 'exit 0'")
  func logWords() {
    let identity = JournalEntry(
      time: Self.now, feed: "f", title: nil, link: nil, key: "", rule: nil, action: "identity", outcome: .rekeyed,
      detail: "1 item re-keyed")
    #expect(!LogCommand.line(identity).contains("untitled"), "\(LogCommand.line(identity))")
    #expect(LogCommand.line(identity).contains("(the feed)"))
    for action in ["webhook", "apprise"] {
      let sent = JournalEntry(
        time: Self.now, feed: "f", title: "t", link: nil, key: "k", rule: "r", action: action, outcome: .ok,
        exitStatus: nil)
      #expect(LogCommand.line(sent).hasSuffix("\(action) (rule 'r'): done"), "\(LogCommand.line(sent))")
    }
    let hook = JournalEntry(
      time: Self.now, feed: "f", title: "t", link: nil, key: "k", rule: "r", action: "hook", outcome: .ok,
      exitStatus: 0)
    #expect(LogCommand.line(hook).hasSuffix("hook (rule 'r'): exit 0"))
  }

  @Test("a retry 30 s away is 'in under a minute', never 'just now'")
  func soonIsNotNow() {
    #expect(StatusCommand.relative(Self.now.addingTimeInterval(30), now: Self.now) == "in under a minute")
    #expect(StatusCommand.relative(Self.now.addingTimeInterval(-10), now: Self.now) == "just now")
    #expect(StatusCommand.relative(Self.now.addingTimeInterval(120), now: Self.now) == "in 2 min")
  }
}
