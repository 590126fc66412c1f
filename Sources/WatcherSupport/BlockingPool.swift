// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Dispatch

/// Runs work that spends its time waiting (on a child process, say) on a fixed number of threads.
///
/// `DispatchQueue.concurrentPerform` runs at most one iteration per processor at once, whatever limit the
/// work sets itself: with hooks, which mostly wait for their process, that left a 2-core machine running
/// two at a time. These are plain threads, as many as asked, each taking the next index until none is left.
public enum BlockingPool {
  /// Calls `body(i)` for every `i` in `0..<count`, at most `threads` at once; returns when all are done.
  public static func run(_ count: Int, threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
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
      // The work waits; it needs little stack.
      Threads.spawn(stackSize: 1 << 20) {
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
    }
    done.wait()
  }
}
