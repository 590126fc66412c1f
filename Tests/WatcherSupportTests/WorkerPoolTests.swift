// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport

/// The threads that parse, read state and encode: every index once, and nested use without deadlock.
@Suite("Worker pool")
struct WorkerPoolTests {
  @Test("perform calls the body once for every index, on the caller's thread and the pool's", arguments: [0, 1, 3])
  func everyIndexOnce(threads: Int) {
    let pool = WorkerPool(threads: threads)
    let seen = Locked([Int](repeating: 0, count: 1_000))
    let threadsUsed = Locked(Set<pthread_t>())
    pool.perform(iterations: 1_000) { index in
      seen.withLock { $0[index] += 1 }
      threadsUsed.withLock { _ = $0.insert(pthread_self()) }
      if index % 100 == 0 { usleep(2_000) }
    }
    #expect(seen.withLock { $0 } == [Int](repeating: 1, count: 1_000))
    let used = threadsUsed.withLock { $0.count }
    #expect(threads == 0 ? used == 1 : used > 1 && used <= threads + 1)
  }

  @Test("perform with zero or one iteration runs inline")
  func trivialCounts() {
    let pool = WorkerPool(threads: 2)
    var calls: [Int] = []
    pool.perform(iterations: 0) { calls.append($0) }
    pool.perform(iterations: 1) { calls.append($0) }
    #expect(calls == [0])
  }

  @Test(
    "nested perform and submitted work waited for inside it finish on a pool of zero, one or two threads",
    arguments: [0, 1, 2])
  func nestedUseNeverDeadlocks(threads: Int) {
    let pool = WorkerPool(threads: threads)
    let total = Locked(0)
    pool.perform(iterations: 8) { outer in
      // What a feed's parse does inside the poll's perform: hand batches to the pool and wait for them.
      let tasks = (0..<4).map { inner in pool.submit { total.withLock { $0 += outer * 10 + inner } } }
      pool.perform(iterations: 3) { _ in total.withLock { $0 += 1_000 } }
      for task in tasks { task.wait() }
    }
    let expected = (0..<8).reduce(0) { sum, outer in sum + (0..<4).reduce(0) { $0 + outer * 10 + $1 } } + 24_000
    #expect(total.withLock { $0 } == expected)
  }

  @Test("a submitted task has run when wait returns")
  func submitThenWait() {
    let pool = WorkerPool(threads: 2)
    let value = Locked(0)
    let task = pool.submit {
      usleep(20_000)
      value.withLock { $0 = 42 }
    }
    task.wait()
    #expect(value.withLock { $0 } == 42)
    task.wait()
  }

  @Test(
    "submitted work runs on at most the pool's threads at once, the submitter's thread kept free", arguments: [0, 1, 2])
  func submittedWorkLeavesTheCallerAProcessor(threads: Int) {
    let pool = WorkerPool(threads: threads)
    let running = Locked((now: 0, most: 0))
    let caller = pthread_self()
    let ranOnCaller = Locked(0)
    let tasks = (0..<12).map { _ in
      pool.submit {
        running.withLock {
          $0.now += 1
          $0.most = max($0.most, $0.now)
        }
        if pthread_equal(pthread_self(), caller) != 0 { ranOnCaller.withLock { $0 += 1 } }
        usleep(20_000)
        running.withLock { $0.now -= 1 }
      }
    }
    // The submitter works on (a parser reading on) before it waits: meanwhile only pool threads run tasks.
    usleep(300_000)
    let beforeWaiting = running.withLock { $0.most }
    for task in tasks { task.wait() }
    #expect(beforeWaiting == threads)
    if threads == 0 { #expect(ranOnCaller.withLock { $0 } == 12) }
  }

  @Test("a sleeping pool thread is woken once as many works as asked wait in the queue, not before")
  func wakingAtThreshold() {
    let pool = WorkerPool(threads: 1)
    pool.submit {}.wait()
    #expect(Self.until { pool.sleepingThreads == 1 }, "the pool's thread never went to sleep")
    let caller = pthread_self()
    let ranOnPool = Locked(0)
    let work: @Sendable () -> Void = {
      if pthread_equal(pthread_self(), caller) == 0 { ranOnPool.withLock { $0 += 1 } }
    }
    // Two of three: the thread sleeps on (for a tenth of a second of watching, long enough for any wake-up).
    var tasks = (0..<2).map { _ in pool.submit(wakingAt: 3, work) }
    #expect(!Self.until(seconds: 0.1) { ranOnPool.withLock { $0 } > 0 || pool.sleepingThreads == 0 })
    // The third wakes it, and it runs all three, with nobody waiting for them.
    tasks.append(pool.submit(wakingAt: 3, work))
    #expect(Self.until { ranOnPool.withLock { $0 } == 3 }, "the pool's thread was not woken")
    for task in tasks { task.wait() }
  }

  /// Whether `condition` came to hold within `seconds` (it is checked between yields of the processor).
  private static func until(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
      if ContinuousClock.now > deadline { return false }
      sched_yield()
    }
    return true
  }

  @Test("what submitted work holds is freed once it has run, though more work is still queued")
  func finishedWorkIsReleased() {
    final class Batch: Sendable {}
    let pool = WorkerPool(threads: 0)
    weak var held: Batch?
    let first: WorkerPool.Task = {
      let batch = Batch()
      held = batch
      return pool.submit { withExtendedLifetime(batch) {} }
    }()
    let second = pool.submit {}
    first.wait()
    #expect(held == nil)
    second.wait()
  }
}

/// What threads and hooks are sized by: the processors the process may run on, not those online.
@Suite("Processors")
struct ProcessorsTests {
  @Test("the affinity list counts, a cgroup's CPU quota caps it (rounded up), and what cannot be read is passed over")
  func counting() {
    #expect(Processors.count(allowedList: "0-1", quotas: [], online: 8) == 2)
    #expect(Processors.count(allowedList: "0", quotas: [], online: 8) == 1)
    #expect(Processors.count(allowedList: "0-3,8,10-11", quotas: [], online: 16) == 7)
    #expect(Processors.count(allowedList: "0-7", quotas: ["max 100000"], online: 8) == 8)
    #expect(Processors.count(allowedList: "0-7", quotas: ["150000 100000"], online: 8) == 2)
    #expect(Processors.count(allowedList: "0-7", quotas: ["max 100000", "50000 100000"], online: 8) == 1)
    #expect(Processors.count(allowedList: "0-1", quotas: ["400000 100000"], online: 8) == 2)
    #expect(Processors.count(allowedList: nil, quotas: [], online: 4) == 4)
    #expect(Processors.count(allowedList: "0-1", quotas: ["\(Int.max) 1"], online: 4) == 2)
    for broken in ["", "3-1", "a-b", "1-2-3", ",", "0-", "0-\(Int.max)"] {
      let ignored = ["0 100000", "x y", "100000"]
      #expect(Processors.count(allowedList: broken, quotas: ignored, online: 3) == 3, "\(broken)")
    }
  }
}
