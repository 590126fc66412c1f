// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Dispatch
import WatcherSupport

/// Normalizes raw items (HTML to text, dates, links) on a worker thread while the XML parser reads on.
///
/// Items are handed over in batches of `batchSize`; a feed with fewer items is normalized inline, with no
/// thread hop. Results come back in document order.
package final class ItemPipeline<Raw: Sendable> {
  private let normalize: @Sendable (Raw) -> FeedItem
  private var pending: [Raw] = []
  private var batchCount = 0
  private let results = BatchResults()
  private let group = DispatchGroup()
  private let batchSize: Int

  package init(batchSize: Int = 256, normalize: @escaping @Sendable (Raw) -> FeedItem) {
    self.normalize = normalize
    self.batchSize = batchSize
    pending.reserveCapacity(batchSize)
  }

  /// Adds the next item in document order.
  package func add(_ raw: Raw) {
    pending.append(raw)
    if pending.count >= batchSize { dispatchBatch() }
  }

  /// All items, normalized, in document order.
  package func finish() -> [FeedItem] {
    if batchCount == 0 { return pending.map(normalize) }
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
    DispatchQueue.global().async(group: group) {
      results.store(batch.map(normalize), at: index)
    }
  }
}

/// The batches finished so far, by index.
private final class BatchResults: Sendable {
  private let batches = Locked<[Int: [FeedItem]]>([:])

  package func store(_ items: [FeedItem], at index: Int) {
    batches.withLock { $0[index] = items }
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
