// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// A fixed set of threads, one per processor but one, started when first needed and kept for the life of the
/// process.
///
/// The thread that hands work over keeps working too (a parser reads on while its batches are normalized,
/// `perform`'s caller takes indices), so it counts as the first: one thread more than the processors would
/// make that thread share a processor, and it is the one everything waits for (docs/benchmarks.md,
/// "Measurements behind the code").
///
/// Why not libdispatch's global queues: on Linux, their first use starts a monitor that wakes the process
/// once a second for as long as it lives, so a daemon idle between polls was never idle. Plain threads made
/// per call avoided that but cost CPU and memory on every batch (docs/benchmarks.md). These threads sleep
/// on a condition variable when there is no work, and cost nothing then.
///
/// A thread that waits for pool work (`perform`, `Task.wait`) runs queued work itself meanwhile, so nested
/// use can never deadlock, however few threads there are.
public final class WorkerPool: @unchecked Sendable {
  /// The process's pool: with the caller's thread, one thread per processor it may use (`Processors`).
  public static let shared = WorkerPool(threads: Processors.available - 1)

  private let condition = ConditionLock()
  /// Work not yet taken, from `head` on; a slot is emptied as its work is taken, so what the work holds (a
  /// batch of items) is freed when it has run, not when the queue next drains, which under steady load may
  /// be never.
  private var queue: [(@Sendable () -> Void)?] = []
  private var head = 0
  private let maxThreads: Int
  private var threads = 0
  private var idle = 0

  /// How many threads the pool may start beside the callers' (0: work runs only on threads that wait for it).
  public var threadCount: Int { maxThreads }

  /// Creates a pool of at most `threads` threads beside the callers'.
  ///
  /// With none, work handed over runs only on threads that wait for it (`perform`, `wait`).
  public init(threads: Int) {
    maxThreads = max(0, threads)
  }

  /// Calls `body(i)` for every `i` in `0..<iterations`, on the calling thread and up to every pool thread
  /// beside it; returns when all calls have returned.
  public func perform(iterations: Int, _ body: (Int) -> Void) {
    guard iterations > 1, maxThreads > 0 else {
      for index in 0..<iterations { body(index) }
      return
    }
    withoutActuallyEscaping(body) { body in
      let job = Job(pool: self, iterations: iterations, body: body)
      for _ in 0..<min(iterations - 1, maxThreads) { enqueue { job.run() } }
      job.run()
      waitUntil { job.isFinished }
      // Helpers that start late find no index left and never call the body; drop it before it goes out of
      // scope.
      job.release()
    }
  }

  /// Runs `work` on a pool thread; the task it returns can be waited for.
  ///
  /// A sleeping pool thread is woken only once `wakingAt` works wait in the queue: a caller that hands over
  /// many small works and waits for them all (`wait(until:)` runs what no thread took) wakes the threads
  /// once for several of them, not once for each (each wake-up of a sleeping processor costs CPU of its own).
  @discardableResult
  public func submit(wakingAt threshold: Int = 1, _ work: @escaping @Sendable () -> Void) -> Task {
    let task = Task(pool: self)
    enqueue(wakingAt: threshold) {
      work()
      task.finish()
    }
    return task
  }

  /// Returns once `isDone` holds, running queued work meanwhile; `isDone` is read under the pool's lock,
  /// and whatever makes it true must call `wake()` after.
  public func wait(until isDone: () -> Bool) {
    waitUntil(isDone)
  }

  /// Work handed to the pool by `submit`.
  public final class Task: @unchecked Sendable {
    private let pool: WorkerPool
    private var done = false

    fileprivate init(pool: WorkerPool) { self.pool = pool }

    fileprivate func finish() {
      pool.condition.lock()
      done = true
      pool.condition.broadcast()
      pool.condition.unlock()
    }

    /// Returns once the work has run, running other queued work meanwhile.
    public func wait() {
      pool.waitUntil { self.done }
    }
  }

  private func enqueue(wakingAt threshold: Int = 1, _ work: @escaping @Sendable () -> Void) {
    condition.lock()
    queue.append(work)
    let start = idle == 0 && threads < maxThreads
    if start { threads += 1 }
    if queue.count - head >= threshold { condition.signal() }
    condition.unlock()
    if start {
      // The thread keeps the pool: a pool lives as long as the process, like its threads.
      Threads.spawn(stackSize: 4 << 20) { self.serve() }
    }
  }

  /// Takes the next queued work; the lock must be held.
  private func dequeue() -> (@Sendable () -> Void)? {
    guard head < queue.count else { return nil }
    let work = queue[head].take()
    head += 1
    if head == queue.count {
      queue.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 1_024, head * 2 >= queue.count {
      queue.removeSubrange(..<head)
      head = 0
    }
    return work
  }

  /// A pool thread's life: run queued work, sleep when there is none.
  private func serve() {
    condition.lock()
    while true {
      if let work = dequeue() {
        condition.unlock()
        work()
        condition.lock()
      } else {
        idle += 1
        condition.wait()
        idle -= 1
      }
    }
  }

  /// Returns once `isDone` (read under the pool's lock) holds, running queued work while it does not.
  fileprivate func waitUntil(_ isDone: () -> Bool) {
    condition.lock()
    while !isDone() {
      if let work = dequeue() {
        condition.unlock()
        work()
        condition.lock()
      } else {
        condition.wait()
      }
    }
    // The wakeup that let this thread see it was done may have been meant for queued work: pass it on.
    if head < queue.count { condition.signal() }
    condition.unlock()
  }

  /// One `perform` call: the next index to claim and how many calls have returned.
  private final class Job: @unchecked Sendable {
    private let iterations: Int
    private var body: ((Int) -> Void)?
    private let lock = Lock()
    private var next = 0
    private var finished = 0
    private let pool: WorkerPool

    init(pool: WorkerPool, iterations: Int, body: @escaping (Int) -> Void) {
      self.pool = pool
      self.iterations = iterations
      self.body = body
    }

    /// Whether every call has returned; `waitUntil` reads it under the pool's lock, which `run` takes to
    /// wake it after the last call.
    var isFinished: Bool { lock.withLock { finished == iterations } }

    func release() { lock.withLock { body = nil } }

    /// Claims and runs indices until none is left.
    func run() {
      while let index = claim() {
        call(index)
        let last = lock.withLock { () -> Bool in
          finished += 1
          return finished == iterations
        }
        if last { pool.wake() }
      }
    }

    private func claim() -> Int? {
      lock.withLock {
        guard next < iterations else { return nil }
        defer { next += 1 }
        return next
      }
    }

    /// Calls the body; its reference is released on return, before the call is counted as finished (the
    /// caller of `perform` drops the body once all are, and must then hold the only reference).
    @inline(never)
    private func call(_ index: Int) {
      guard let body = lock.withLock({ self.body }) else { return }
      body(index)
    }
  }

  /// How many pool threads sleep for want of work.
  package var sleepingThreads: Int {
    condition.lock()
    defer { condition.unlock() }
    return idle
  }

  /// Wakes every thread waiting in `wait(until:)` to look again.
  public func wake() {
    condition.lock()
    condition.broadcast()
    condition.unlock()
  }
}
