// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherState
import WatcherSupport
import WatcherTestSupport

/// Files every feed shares keep to their byte budget by dropping from the feed that takes the most.
@Suite("Shared budgets")
struct SharedBudgetTests {
  static let start = Date(timeIntervalSince1970: 1_796_000_000)

  @Test("a feed flooding digests.json drops its own entries, never another feed's older, smaller one")
  func digestFlood() throws {
    let dir = try TemporaryDirectory()
    let store = try StateStore(directory: dir.url.path, budget: StateStore.Budget(sharedFile: 200_000))
    let quiet = Digest.Entry(
      feed: "quiet", key: "q", title: "Quiet post", link: nil, item: "{}", collected: Self.start)
    let flood = (0..<45).map {
      Digest.Entry(
        feed: "flood", key: "f\($0)", title: String(repeating: "<&>", count: 3_000), link: nil,
        item: String(repeating: "x", count: 10_000), collected: Self.start.addingTimeInterval(Double(60 + $0)))
    }
    let dropped = try store.saveDigests([Digest(rule: "r", due: Self.start, items: [quiet] + flood)])
    #expect(!dropped.isEmpty && dropped.allSatisfy { $0.entry.feed == "flood" }, "\(dropped.map(\.entry.feed))")
    let kept = try store.digests().flatMap(\.items)
    #expect(kept.contains { $0.feed == "quiet" })
    #expect(try Data(contentsOf: URL(fileURLWithPath: store.digestsPath)).count <= 200_000)
  }

  @Test("fairOverflow takes from the owner with the most bytes, oldest first, no more than needed")
  func fair() {
    let sizes = [10, 50, 50, 50, 10]
    let owners = ["a", "b", "b", "b", "a"]
    #expect(ByteBudget.fairOverflow(sizes: sizes, owners: owners, total: 170, budget: 100) == [1, 2])
    #expect(ByteBudget.fairOverflow(sizes: sizes, owners: owners, total: 170, budget: 170).isEmpty)
    #expect(ByteBudget.fairOverflow(sizes: sizes, owners: owners, total: 170, budget: 0).count == 5)
  }
}
