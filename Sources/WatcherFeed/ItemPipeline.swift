// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Dispatch
import WatcherSupport

/// Normalizes raw items (HTML to text, dates, links) on a worker thread while the XML parser reads on.
///
/// Items are handed over in batches of `batchSize`; a feed with fewer items is normalized inline, with no
/// thread hop. Results come back in document order: all at the end, or, with a `sink`, handed to it as
/// their batches finish (at most a few batches in flight, so memory stays flat whatever the feed's size).
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
  private let results = BatchResults()
  private let group = DispatchGroup()
  private let batchSize: Int
  private let sink: ItemSink?
  /// With a sink: the batches handed out so far, and a signal per batch in flight.
  private var emitted = 0
  private var done: [Int: DispatchSemaphore] = [:]
  private static var maxInFlight: Int { 4 }

  package init(
    batchSize: Int = 256, sink: ItemSink? = nil, prefilter: ((Raw) -> FeedItem?)? = nil,
    normalize: @escaping @Sendable (Raw) -> FeedItem
  ) {
    self.normalize = normalize
    self.prefilter = prefilter
    self.batchSize = batchSize
    self.sink = sink
    pending.reserveCapacity(batchSize)
  }

  /// Adds the next item in document order.
  package func add(_ raw: Raw) {
    if let ready = prefilter?(raw) {
      pending.append(.ready(ready))
    } else {
      pending.append(.raw(raw))
    }
    if pending.count >= batchSize { dispatchBatch() }
  }

  /// All items, normalized, in document order (none when they went to the sink).
  package func finish() -> [FeedItem] {
    if let sink {
      if !pending.isEmpty { dispatchBatch() }
      while emitted < batchCount { emitNext(sink) }
      return []
    }
    if batchCount == 0 { return pending.map(Self.normalized(normalize)) }
    if !pending.isEmpty { dispatchBatch() }
    group.wait()
    return results.ordered(count: batchCount)
  }

  private func dispatchBatch() {
    let batch = pending
    let index = batchCount
    let normalize = normalize
    let results = results
    batchCount += 1
    pending = []
    pending.reserveCapacity(batchSize)
    let signal = sink == nil ? nil : DispatchSemaphore(value: 0)
    if let signal { done[index] = signal }
    DispatchQueue.global().async(group: group) {
      results.store(batch.map(Self.normalized(normalize)), at: index)
      signal?.signal()
    }
    // Backpressure: the parser waits for the oldest batch once enough are in flight.
    if let sink { while batchCount - emitted > Self.maxInFlight { emitNext(sink) } }
  }

  /// Normalizes what is still raw.
  private static func normalized(_ normalize: @escaping @Sendable (Raw) -> FeedItem) -> @Sendable (Pending) -> FeedItem
  {
    { item in
      switch item {
      case .raw(let raw): return normalize(raw)
      case .ready(let ready): return ready
      }
    }
  }

  /// Waits for the oldest batch not yet handed out and hands its items to the sink.
  private func emitNext(_ sink: ItemSink) {
    done.removeValue(forKey: emitted)?.wait()
    for item in results.take(emitted) { sink.accept(item) }
    emitted += 1
  }
}

/// Where a streaming parse hands each item, in document order, once it is normalized.
package final class ItemSink {
  private let emit: (FeedItem) -> Void
  /// Called once, before the first item, so the feed's title and link can be written ahead of the items.
  package var beforeFirst: (() -> Void)?

  package init(_ emit: @escaping (FeedItem) -> Void) {
    self.emit = emit
  }

  package func accept(_ item: FeedItem) {
    if let first = beforeFirst {
      beforeFirst = nil
      first()
    }
    emit(item)
  }
}

/// The batches finished so far, by index.
private final class BatchResults: Sendable {
  private let batches = Locked<[Int: [FeedItem]]>([:])

  package func store(_ items: [FeedItem], at index: Int) {
    batches.withLock { $0[index] = items }
  }

  /// Removes and returns one finished batch.
  package func take(_ index: Int) -> [FeedItem] {
    batches.withLock { $0.removeValue(forKey: index) ?? [] }
  }

  package func ordered(count: Int) -> [FeedItem] {
    batches.withLock { all in
      var items: [FeedItem] = []
      items.reserveCapacity(all.values.reduce(0) { $0 + $1.count })
      for index in 0..<count { items.append(contentsOf: all[index] ?? []) }
      all = [:]
      return items
    }
  }
}
