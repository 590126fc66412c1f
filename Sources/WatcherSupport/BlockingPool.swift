// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

/// Runs work on a fixed number of plain threads, each taking the next index until none is left.
///
/// Not `DispatchQueue.concurrentPerform`, for two reasons. It runs at most one iteration per processor at
/// once, whatever limit the work sets itself: with hooks, which mostly wait for their process, that left a
/// 2-core machine running two at a time. And the first use of libdispatch's worker pool starts its pool
/// monitor on Linux (`_dispatch_workq_init_once`), a timer that wakes the process every second for as
/// long as it lives: the daemon would never be idle. `parallel` is the same for CPU work, one thread per
/// processor.
public enum BlockingPool {
  /// Calls `body(i)` for every `i` in `0..<count`, on as many threads as there are processors; returns when
  /// all are done.
  public static func parallel(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    // Parsing and the rules get the stack a thread usually has (8 MiB, reserved, not used).
    run(count, threads: ProcessInfo.processInfo.activeProcessorCount, stackSize: 8 << 20, body)
  }

  /// Calls `body(i)` for every `i` in `0..<count`, at most `threads` at once; returns when all are done.
  ///
  /// The work mostly waits, so each thread gets a small stack unless `stackSize` says otherwise.
  public static func run(
    _ count: Int, threads: Int, stackSize: Int = 1 << 20, _ body: @escaping @Sendable (Int) -> Void
  ) {
    guard count > 0 else { return }
    let workers = min(max(1, threads), count)
    if workers == 1 {
      for index in 0..<count { body(index) }
      return
    }
    let next = Locked(0)
    let done = DispatchGroup()
    for _ in 0..<workers {
      done.enter()
      let thread = Thread {
        while true {
          let index = next.withLock { value -> Int in
            defer { value += 1 }
            return value
          }
          guard index < count else { break }
          body(index)
        }
        done.leave()
      }
      thread.stackSize = stackSize
      thread.start()
    }
    done.wait()
  }
}
