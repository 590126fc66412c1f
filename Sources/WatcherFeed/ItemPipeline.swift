// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// Normalizes raw items (HTML to text, dates, links) on a worker thread while the XML parser reads on.
///
/// The workers also do what finishing an item needs of no other item (`ItemFinisher.prepare`), and, for a
/// sink that asks (`ItemSink.encode`), encode each item, so the parser's thread does only the parsing.
///
/// Items are handed over in batches of `batchSize`; without a sink, a feed with fewer items is normalized
/// inline, with no thread hop. Results come back in document order: all at the end, or, with a `sink`,
/// handed to it as their batches finish, by whichever worker finishes the next batch in order (so the
/// parser's thread never waits on the sink), with at most a few small batches in flight, so memory stays
/// flat whatever the feed's size, and small enough to stay in the processor's own cache. A worker whose batch is next hands each item over as soon as it is ready, so the memory
/// of one item is reused for the next.
///
/// Memory is freed on the thread that allocated it, and a little at a time: raw items go back to the
/// parser's thread and are released one for each item it adds (docs/design.md, platform notes, threads).
package final class ItemPipeline<Raw: Sendable> {
  private let normalize: @Sendable (Raw) -> FeedItem
  /// Asked first, in document order, for each item: an item it returns is used as it is (not normalized).
  private let prefilter: ((Raw) -> FeedItem?)?
  /// An item as added: still to normalize, or ready.
  private enum Pending: Sendable {
    case raw(Raw)
    case ready(FeedItem)
  }
  private var pending: [Pending] = []
  private var batchCount = 0
  private let batchSize: Int
  /// Without a sink: the work on each batch, and the finished batches.
  private var tasks: [Int: WorkerPool.Task] = [:]
  /// Where batches are normalized (the process's pool; tests give their own).
  private let pool: WorkerPool
  private let results = BatchResults()
  /// With a sink: the batches handed to it in order.
  private let sequencer: Sequencer?
  /// How many batches may wait for the sink before the parser helps: 4 beside pool threads; none when the
  /// pool has no threads (one processor), where a batch waiting is only memory.
  ///
  /// What is in flight is the parse's working set, and it must fit the processor's own cache (1–2 MiB of
  /// L2): 8 batches of 128 items of the 57 MB feed did not (docs/benchmarks.md, "Measurements behind the
  /// code").
  private let maxInFlight: Int
  /// A sleeping worker is woken once this many batches wait, not for each.
  ///
  /// A batch is normalized faster than it is parsed, so a worker woken for each slept and woke some 400 times
  /// a 57 MB parse, and each wake-up of a sleeping processor costs CPU (docs/benchmarks.md, "Measurements
  /// behind the code"). Four batches of 128 without a sink; two of 64 with one, where a fifth would
  /// make the parser help.
  private let wakeAt: Int
  /// Raw items the workers are done with, to be released on the parser's thread, which made them.
  ///
  /// glibc's malloc returns a block freed on another thread to the arena it came from, under that
  /// arena's lock, which the parser takes for each item it allocates: released on the workers, they made
  /// the two threads wait for each other on that lock some 2,000 times a 57 MB parse (docs/benchmarks.md).
  private let spent = Locked<[[Raw]]>([])
  /// Spent batches taken from `spent`, released one item for each item added, on the parser's thread.
  private var releasing: [[Raw]] = []

  package init(
    batchSize: Int? = nil, sink: ItemSink? = nil, prefilter: ((Raw) -> FeedItem?)? = nil, pool: WorkerPool = .shared,
    normalize: @escaping @Sendable (Raw) -> FeedItem
  ) {
    self.pool = pool
    self.normalize = normalize
    self.prefilter = prefilter
    // With a sink, what is in flight is all the parse holds, so batches are small (`maxInFlight`); without,
    // every item is kept to the end anyway, and a feed of fewer than 128 items (most) needs no thread hop.
    self.batchSize = batchSize ?? (sink == nil ? 128 : 64)
    maxInFlight = pool.threadCount > 0 ? 4 : 0
    wakeAt = sink == nil ? 4 : 2
    sequencer = sink.map { Sequencer(sink: $0, pool: pool) }
    pending.reserveCapacity(self.batchSize)
  }

  /// Adds the next item in document order.
  package func add(_ raw: consuming Raw) {
    if let ready = prefilter?(raw) {
      pending.append(.ready(ready))
    } else {
      pending.append(.raw(raw))
    }
    releaseOne()
    if pending.count >= batchSize { dispatchBatch() }
  }

  /// Releases a spent raw item, or two while more than a batch of them waits.
  ///
  /// Their blocks, just freed, are the ones malloc hands out for the next item's fields; freed a batch at
  /// a time, they overflowed malloc's per-thread cache of recent blocks. Two while more than a batch waits
  /// keeps what waits to about a batch.
  private func releaseOne() {
    for _ in 0..<(releasing.count > 1 ? 2 : 1) {
      guard let last = releasing.indices.last else { return }
      if releasing[last].popLast() == nil { releasing.removeLast() }
    }
  }

  /// All items, normalized and prepared, in document order (none when they went to the sink).
  package func finish() -> [FeedItem] {
    if let sequencer {
      if !pending.isEmpty { dispatchBatch() }
      let count = batchCount
      pool.wait(until: { sequencer.emitted == count })
      releaseSpent(all: true)
      return []
    }
    if batchCount == 0 {
      var batch: [Pending] = []
      swap(&batch, &pending)
      return BatchResults.items(of: [Self.prepared(batch, normalize, encode: nil, spent: nil)])
    }
    if !pending.isEmpty { dispatchBatch() }
    for index in 0..<batchCount { tasks.removeValue(forKey: index)?.wait() }
    releaseSpent(all: true)
    return results.ordered(count: batchCount)
  }

  /// Releases the raw items the workers have finished with, here on the parser's thread.
  private func releaseSpent(all: Bool = false) {
    var taken: [[Raw]] = []
    spent.withLock { swap(&taken, &$0) }
    if all {
      releasing = []
    } else {
      releasing.append(contentsOf: consume taken)
    }
  }

  private func dispatchBatch() {
    releaseSpent()
    let batch = Handover(pending)
    let index = batchCount
    let normalize = normalize
    batchCount += 1
    pending = []
    pending.reserveCapacity(batchSize)
    let spent = spent
    guard let sequencer else {
      let results = results
      tasks[index] = pool.submit(wakingAt: wakeAt) {
        results.store(Self.prepared(batch.take(), normalize, encode: nil, spent: spent), at: index)
      }
      return
    }
    if index == 0 { sequencer.sink.readHeader() }
    pool.submit(wakingAt: wakeAt) {
      Self.deliver(batch.take(), at: index, to: sequencer, normalize, spent: spent)
    }
    // Backpressure: the parser helps the workers once enough batches are in flight.
    let limit = batchCount - maxInFlight
    if sequencer.emitted < limit { pool.wait(until: { sequencer.emitted >= limit }) }
  }

  /// Hands batch `index` to the sink: item by item as each is ready when the batch is next in order and
  /// no other thread is handing items over (one item's blocks, freed, are then the next one's), or whole,
  /// once prepared, to the sequencer.
  private static func deliver(
    _ batch: consuming [Pending], at index: Int, to sequencer: Sequencer, _ normalize: @Sendable (Raw) -> FeedItem,
    spent: Locked<[[Raw]]>
  ) {
    let encode = sequencer.sink.encode
    guard sequencer.claim(index) else {
      return sequencer.finished(prepared(batch, normalize, encode: encode, spent: spent), at: index)
    }
    var batch = batch
    var used: [Raw] = []
    used.reserveCapacity(batch.count)
    // In place, by moves (an array's own `reverse()` copies each item), so `popLast` moves them out in order.
    batch.withUnsafeMutableBufferPointer { $0.reverse() }
    // Not encoded ahead: the sink, on this thread now, encodes each item where it keeps it.
    while let item = batch.popLast() {
      var ready = Self.ready(consume item, normalize, used: &used, keep: true)
      sequencer.sink.accept(&ready, encoded: nil)
    }
    batch = []
    Self.release(&used, to: spent)
    sequencer.claimedBatchDone()
  }

  /// An item normalized, if still raw (the raw item then moved to `used` if `keep`), and prepared.
  private static func ready(
    _ item: consuming Pending, _ normalize: @Sendable (Raw) -> FeedItem, used: inout [Raw], keep: Bool
  ) -> FeedItem {
    switch consume item {
    case .raw(let raw):
      var ready = normalize(raw)
      if keep { used.append(consume raw) }
      FeedParser.ItemFinisher.prepare(&ready)
      return ready
    case .ready(var stub):
      FeedParser.ItemFinisher.prepare(&stub)
      return stub
    }
  }

  /// Moves `used` into `spent` under its lock, so this thread holds no reference once the parser's
  /// thread can take them.
  private static func release(_ used: inout [Raw], to spent: Locked<[[Raw]]>?) {
    guard let spent, !used.isEmpty else { return }
    spent.withLock { list in
      var moved: [Raw] = []
      swap(&moved, &used)
      list.append(moved)
    }
  }

  /// Normalizes what is still raw, prepares it, and encodes it when asked; the raw items go to `spent`,
  /// when given, to be released by the thread that made them.
  ///
  /// Each item is moved out of the batch, not copied: a copy retains every field of a raw item, and
  /// releasing the batch then releases each one again.
  private static func prepared(
    _ batch: consuming [Pending], _ normalize: @Sendable (Raw) -> FeedItem,
    encode: (@Sendable (FeedItem) -> [UInt8])?, spent: Locked<[[Raw]]>?
  ) -> [Finished] {
    var batch = batch
    let count = batch.count
    var used: [Raw] = []
    if spent != nil { used.reserveCapacity(count) }
    defer { Self.release(&used, to: spent) }
    // Taken from the end (`popLast` moves; the array's own `reverse()` would copy), each put in its place.
    return [Finished](unsafeUninitializedCapacity: count) { buffer, initialized in
      guard let base = buffer.baseAddress else { return }
      var index = count
      while let item = batch.popLast() {
        let ready = Self.ready(consume item, normalize, used: &used, keep: spent != nil)
        let encoded = encode?(ready)
        index -= 1
        (base + index).initialize(to: Finished(item: consume ready, encoded: encoded))
      }
      initialized = count
    }
  }
}

/// A batch on its way to a worker, taken out whole there: the worker then holds the only reference to the
/// array and can move each item out of it. (A closure's captured array cannot be consumed: the worker would
/// copy it, and with it every field of every item.)
private final class Handover<Element>: @unchecked Sendable {
  private var items: [Element]

  init(_ items: [Element]) { self.items = items }

  func take() -> [Element] {
    var taken: [Element] = []
    swap(&taken, &items)
    return taken
  }
}

/// Hands finished batches to the sink in order, on the thread that finished the next one.
///
/// At most one thread hands items over at a time (`handing`), so the sink is called serially, in document
/// order, though not always from the same thread.
private final class Sequencer: @unchecked Sendable {
  let sink: ItemSink
  private let pool: WorkerPool
  private let lock = Lock()
  private var ready: [Int: [Finished]] = [:]
  private var next = 0
  private var handing = false
  private var handedOut = 0

  init(sink: ItemSink, pool: WorkerPool) {
    self.sink = sink
    self.pool = pool
  }

  /// How many batches the sink has had.
  var emitted: Int { lock.withLock { handedOut } }

  /// Whether batch `index` is next and no other thread is handing items over; if so, this thread now is,
  /// and hands the batch's items to the sink itself, then calls `claimedBatchDone`.
  func claim(_ index: Int) -> Bool {
    lock.withLock {
      guard !handing, next == index else { return false }
      handing = true
      return true
    }
  }

  /// Ends the handover of a claimed batch, then hands over every batch that is next in order.
  func claimedBatchDone() {
    lock.lock()
    next += 1
    handedOut = next
    handOver()
  }

  /// Stores batch `index`, then hands over every batch that is next in order, unless another thread is
  /// doing so already (it will find this one).
  func finished(_ batch: consuming [Finished], at index: Int) {
    lock.lock()
    ready[index] = consume batch
    guard !handing else { return lock.unlock() }
    handing = true
    handOver()
  }

  /// Hands over the stored batches that are next in order; called holding the lock and the handing role,
  /// which it gives up.
  private func handOver() {
    while var batch = ready.removeValue(forKey: next) {
      lock.unlock()
      // Each item is handed over in place, never copied (a copy retains every field).
      for index in batch.indices { sink.accept(&batch[index].item, encoded: batch[index].encoded) }
      batch = []
      lock.lock()
      next += 1
      handedOut = next
    }
    handing = false
    lock.unlock()
    pool.wake()
  }
}

/// An item as a worker leaves it: prepared, and encoded when the sink asked.
private struct Finished: Sendable {
  var item: FeedItem
  var encoded: [UInt8]?
}

/// Where a streaming parse hands each item, in document order, once it is normalized and prepared.
///
/// Its functions are called serially and in order, but from the pool's threads as well as the parser's:
/// they may touch the caller's state, but nothing the parser is still changing.
package final class ItemSink: @unchecked Sendable {
  private let emit: (inout FeedItem, [UInt8]?) -> Void
  /// Run on the workers for each item of a batch that waits for an earlier one, its result handed over
  /// with the item (`watcher parse --json` encodes there, off the parser's thread); an item handed over as
  /// soon as it is ready comes without, on a worker, and the sink encodes it itself.
  package let encode: (@Sendable (FeedItem) -> [UInt8])?
  /// Reads the feed's title and link as parsed so far; called on the parser's thread as the first items
  /// are handed out.
  package var header: (() -> Feed?)?
  /// Called once, before the first item, with what `header` read, so the feed's title and link can be
  /// written ahead of the items.
  package var beforeFirst: ((Feed?) -> Void)?
  private var headerRead: Feed?

  package init(
    encode: (@Sendable (FeedItem) -> [UInt8])? = nil, _ emit: @escaping (inout FeedItem, [UInt8]?) -> Void
  ) {
    self.encode = encode
    self.emit = emit
  }

  /// Reads the header, on the parser's thread, before the first batch leaves it.
  func readHeader() {
    headerRead = header?()
    header = nil
  }

  /// Takes the next item; the sink may change it in place (to finish its key).
  package func accept(_ item: inout FeedItem, encoded: [UInt8]?) {
    if let first = beforeFirst {
      beforeFirst = nil
      first(headerRead)
      headerRead = nil
    }
    emit(&item, encoded)
  }
}

/// The batches finished so far, by index.
private final class BatchResults: Sendable {
  private let batches = Locked<[Int: [Finished]]>([:])

  func store(_ items: [Finished], at index: Int) {
    batches.withLock { $0[index] = items }
  }

  /// The items of the first `count` batches, in order.
  func ordered(count: Int) -> [FeedItem] {
    var all: [Int: [Finished]] = [:]
    batches.withLock { swap(&all, &$0) }
    return Self.items(of: (0..<count).map { all.removeValue(forKey: $0) ?? [] })
  }

  /// The items of `batches`, in order, each moved out of its batch: a copy retains every field, and
  /// releasing the batch then releases each one again.
  static func items(of batches: consuming [[Finished]]) -> [FeedItem] {
    var batches = batches
    let count = batches.reduce(0) { $0 + $1.count }
    // From the last item back (`popLast` moves), each put in its place (`reverse()` would copy each).
    return [FeedItem](unsafeUninitializedCapacity: count) { buffer, initialized in
      guard let base = buffer.baseAddress else { return }
      var index = count
      while var batch = batches.popLast() {
        while let finished = batch.popLast() {
          index -= 1
          (base + index).initialize(to: finished.item)
        }
      }
      initialized = count
    }
  }
}
