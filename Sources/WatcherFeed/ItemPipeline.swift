// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport

/// Normalizes raw items (HTML to text, dates, links) on a worker thread while the XML parser reads on.
///
/// The workers also do what finishing an item needs of no other item (`ItemFinisher.prepare`), and, for a
/// sink that asks (`ItemSink.encode`), encode each item, so the parser's thread does only the parsing.
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
  private let batchSize: Int
  private let sink: ItemSink?
  /// The batches handed out so far (with a sink), and the work on each batch not yet waited for.
  private var emitted = 0
  private var tasks: [Int: WorkerPool.Task] = [:]
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

  /// All items, normalized and prepared, in document order (none when they went to the sink).
  package func finish() -> [FeedItem] {
    if let sink {
      if !pending.isEmpty { dispatchBatch() }
      while emitted < batchCount { emitNext(sink) }
      return []
    }
    if batchCount == 0 { return pending.map { Self.prepared($0, normalize, encode: nil).item } }
    if !pending.isEmpty { dispatchBatch() }
    for index in 0..<batchCount { tasks.removeValue(forKey: index)?.wait() }
    return results.ordered(count: batchCount).map(\.item)
  }

  private func dispatchBatch() {
    let batch = pending
    let index = batchCount
    let (normalize, encode) = (normalize, sink?.encode)
    let results = results
    batchCount += 1
    pending = []
    pending.reserveCapacity(batchSize)
    tasks[index] = WorkerPool.shared.submit {
      results.store(batch.map { Self.prepared($0, normalize, encode: encode) }, at: index)
    }
    // Backpressure: the parser waits for the oldest batch once enough are in flight.
    if let sink { while batchCount - emitted > Self.maxInFlight { emitNext(sink) } }
  }

  /// Normalizes what is still raw, prepares it, and encodes it when asked.
  private static func prepared(
    _ item: Pending, _ normalize: @Sendable (Raw) -> FeedItem, encode: (@Sendable (FeedItem) -> [UInt8])?
  ) -> Finished {
    var ready: FeedItem
    switch item {
    case .raw(let raw): ready = normalize(raw)
    case .ready(let stub): ready = stub
    }
    FeedParser.ItemFinisher.prepare(&ready)
    return Finished(item: ready, encoded: encode?(ready))
  }

  /// Waits for the oldest batch not yet handed out and hands its items to the sink.
  private func emitNext(_ sink: ItemSink) {
    tasks.removeValue(forKey: emitted)?.wait()
    // Each item is handed over in place, never copied (a copy retains every field).
    var batch = results.take(emitted)
    for index in batch.indices { sink.accept(&batch[index].item, encoded: batch[index].encoded) }
    emitted += 1
  }
}

/// An item as a worker leaves it: prepared, and encoded when the sink asked.
private struct Finished: Sendable {
  var item: FeedItem
  var encoded: [UInt8]?
}

/// Where a streaming parse hands each item, in document order, once it is normalized and prepared.
package final class ItemSink {
  private let emit: (inout FeedItem, [UInt8]?) -> Void
  /// Run on the workers for each item, its result handed over with the item (`watcher parse --json`
  /// encodes there, off the parser's thread).
  package let encode: (@Sendable (FeedItem) -> [UInt8])?
  /// Called once, before the first item, so the feed's title and link can be written ahead of the items.
  package var beforeFirst: (() -> Void)?

  package init(
    encode: (@Sendable (FeedItem) -> [UInt8])? = nil, _ emit: @escaping (inout FeedItem, [UInt8]?) -> Void
  ) {
    self.encode = encode
    self.emit = emit
  }

  /// Takes the next item; the sink may change it in place (to finish its key).
  package func accept(_ item: inout FeedItem, encoded: [UInt8]?) {
    if let first = beforeFirst {
      beforeFirst = nil
      first()
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

  /// Removes and returns one finished batch.
  func take(_ index: Int) -> [Finished] {
    batches.withLock { $0.removeValue(forKey: index) ?? [] }
  }

  func ordered(count: Int) -> [Finished] {
    batches.withLock { all in
      var items: [Finished] = []
      items.reserveCapacity(all.values.reduce(0) { $0 + $1.count })
      for index in 0..<count { items.append(contentsOf: all[index] ?? []) }
      all = [:]
      return items
    }
  }
}
