// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig

@testable import WatcherCLI
@testable import WatcherPoll

/// The words of `watcher poll` for feeds that were not polled.
@Suite("What poll says of a feed it did not poll")
struct PollReportTests {
  static let now = Date(timeIntervalSince1970: 1_796_000_000)

  func outcome(_ name: String, next seconds: TimeInterval, because: [String] = []) -> Poller.Outcome {
    var outcome = Poller.Outcome(feed: FeedConfig(url: "https://example.org/\(name)", name: name))
    outcome.nextDue = Self.now.addingTimeInterval(seconds)
    outcome.nextBecause = because
    return outcome
  }

  @Test("due within half a minute is 'due now', never 'next poll just now'; later ones say when and why")
  func dueNow() {
    let lines = PollReport.notDue(
      [outcome("soon", next: 10), outcome("later", next: 7_200, because: ["posts about every 3 h"])], now: Self.now)
    #expect(lines[0] == "soon: due now (name it with --feed to poll now)", "\(lines)")
    #expect(lines[1].hasPrefix("later: not due: next poll in 2 h (") && lines[1].contains("): posts about every 3 h"))
    #expect(!lines.joined().contains("just now"))
  }
}
