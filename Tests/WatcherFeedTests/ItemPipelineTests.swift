// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport

@testable import WatcherFeed

/// The pipeline that normalizes a parser's items on the worker threads: order, and where memory is freed.
@Suite("Item pipeline")
struct ItemPipelineTests {
  /// Records the thread that releases it.
  final class Tracked: @unchecked Sendable {
    let number: Int
    let releases: Locked<[Int: pthread_t]>

    init(_ number: Int, releases: Locked<[Int: pthread_t]>) {
      self.number = number
      self.releases = releases
    }

    deinit {
      let number = number
      releases.withLock { $0[number] = pthread_self() }
    }
  }

  struct Raw: Sendable {
    var tracked: Tracked
  }

  @Test(
    "items come out in document order, normalized on the workers, and every raw item is released on the thread that added it",
    arguments: [false, true])
  func rawItemsReleasedWhereTheyWereMade(withSink: Bool) {
    let releases = Locked<[Int: pthread_t]>([:])
    let normalizedOn = Locked(Set<pthread_t>())
    let emitted = Locked<[String]>([])
    let sink = ItemSink { item, _ in emitted.withLock { $0.append(item.title ?? "") } }
    let pipeline = ItemPipeline<Raw>(batchSize: 4, sink: withSink ? sink : nil) { raw in
      normalizedOn.withLock { _ = $0.insert(pthread_self()) }
      return FeedItem(key: "", title: "item \(raw.tracked.number)", text: String(repeating: "x", count: 100))
    }
    let count = 2_000
    for number in 0..<count { pipeline.add(Raw(tracked: Tracked(number, releases: releases))) }
    let returned = pipeline.finish().map { $0.title ?? "" }
    let expected = (0..<count).map { "item \($0)" }
    let inOrder = (withSink ? emitted.withLock { $0 } : returned) == expected
    #expect(inOrder)
    let adder = pthread_self()
    let released = releases.withLock { $0 }
    #expect(released.count == count)
    #expect(released.values.allSatisfy { pthread_equal($0, adder) != 0 })
    // The test means something only where the items did leave this thread.
    if ProcessInfo.processInfo.activeProcessorCount > 1 {
      #expect(normalizedOn.withLock { $0.contains { pthread_equal($0, adder) == 0 } })
    }
  }

  /// Counts the raw items alive, and the most alive at once.
  final class Census: @unchecked Sendable {
    private let counts = Locked((alive: 0, peak: 0))
    var peak: Int { counts.withLock { $0.peak } }
    var alive: Int { counts.withLock { $0.alive } }
    func born() {
      counts.withLock {
        $0.alive += 1
        $0.peak = max($0.peak, $0.alive)
      }
    }
    func died() { counts.withLock { $0.alive -= 1 } }
  }

  final class Counted: @unchecked Sendable {
    let number: Int
    let census: Census
    init(_ number: Int, census: Census) {
      self.number = number
      self.census = census
      census.born()
    }
    deinit { census.died() }
  }

  @Test(
    "a streaming parse holds a few small batches, whatever the feed's size: none waiting without pool threads (one processor), four with",
    arguments: [(0, 3 * 64), (1, 8 * 64)])
  func inFlightBounded(threads: Int, most: Int) {
    let census = Census()
    let emitted = Locked<[String]>([])
    let sink = ItemSink { item, _ in emitted.withLock { $0.append(item.title ?? "") } }
    let pipeline = ItemPipeline<Counted>(sink: sink, pool: WorkerPool(threads: threads)) { raw in
      FeedItem(key: "", title: "item \(raw.number)", text: String(repeating: "x", count: 100))
    }
    let count = 20_000
    for number in 0..<count { pipeline.add(Counted(number, census: census)) }
    #expect(pipeline.finish().isEmpty)
    #expect(emitted.withLock { $0 } == (0..<count).map { "item \($0)" })
    #expect(census.alive == 0)
    // What the parse holds is its working set, which must stay in the processor's own cache
    // (docs/benchmarks.md, eighth round); 8 batches of 128 in flight held 1,281.
    #expect(census.peak <= most, "at most \(most) raw items alive at once, not \(census.peak)")
  }
}
