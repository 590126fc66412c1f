// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Every literal the rules look for, found in one pass over a text (Aho–Corasick over UTF-8 bytes).
///
/// With a hundred rules, searching each needle separately reads each item's text a hundred times; the
/// automaton reads it once and reports every needle it contains, with where.
///
/// The table is kept small, because each byte's lookup depends on the one before and so waits for memory:
/// bytes that occur in no needle share one column (most text bytes), and a state that ends a needle is
/// stored negated, so the common byte costs one lookup and no second table.
package final class NeedleSet: Sendable {
  /// The needles, by id.
  package let needles: [[UInt8]]
  /// How many 64-bit words a set of needle ids takes.
  package let words: Int
  /// Each byte's column: 0 for bytes in no needle, else one column per distinct byte.
  private let column: [UInt8]
  private let columns: Int
  /// `transitions[state * columns + column]`: the next state, negated when it ends a needle.
  private let transitions: [Int32]
  private let outputStart: [Int32]
  private let outputCount: [Int32]
  private let outputIDs: [Int32]

  package init(_ needles: [[UInt8]]) {
    self.needles = needles
    words = (needles.count + 63) / 64
    var column = [UInt8](repeating: 0, count: 256)
    var columns = 1
    for byte in Set(needles.joined()).sorted() {
      column[Int(byte)] = UInt8(columns)
      columns += 1
    }
    self.column = column
    self.columns = columns
    // The trie.
    var next: [[Int32]] = [Array(repeating: -1, count: columns)]
    var own: [[Int32]] = [[]]
    for (id, needle) in needles.enumerated() where !needle.isEmpty {
      var state = 0
      for byte in needle {
        let c = Int(column[Int(byte)])
        if next[state][c] < 0 {
          next[state][c] = Int32(next.count)
          next.append(Array(repeating: -1, count: columns))
          own.append([])
        }
        state = Int(next[state][c])
      }
      own[state].append(Int32(id))
    }
    // Failure links by breadth-first search, folded into a complete transition table.
    var fail = [Int32](repeating: 0, count: next.count)
    var outputs = own
    var queue: [Int] = []
    for c in 0..<columns {
      if next[0][c] < 0 {
        next[0][c] = 0
      } else {
        fail[Int(next[0][c])] = 0
        queue.append(Int(next[0][c]))
      }
    }
    var head = 0
    while head < queue.count {
      let state = queue[head]
      head += 1
      outputs[state] += outputs[Int(fail[state])]
      for c in 0..<columns {
        let child = next[state][c]
        if child < 0 {
          next[state][c] = next[Int(fail[state])][c]
        } else {
          fail[Int(child)] = next[Int(fail[state])][c]
          queue.append(Int(child))
        }
      }
    }
    // The root never ends a needle (empty needles are left out), so negation is unambiguous.
    transitions = next.flatMap { row in row.map { outputs[Int($0)].isEmpty ? $0 : -$0 } }
    var start: [Int32] = []
    var count: [Int32] = []
    var ids: [Int32] = []
    for list in outputs {
      start.append(Int32(ids.count))
      count.append(Int32(list.count))
      ids += list
    }
    outputStart = start
    outputCount = count
    outputIDs = ids
  }

  /// Calls `found(id, start)` for every occurrence of every needle in `text`, in order of their end.
  @inline(__always)
  func scan(_ text: UnsafeBufferPointer<UInt8>, _ found: (Int, Int) -> Void) {
    let columns = columns
    transitions.withUnsafeBufferPointer { table in
      column.withUnsafeBufferPointer { column in
        var state = 0
        for index in 0..<text.count {
          let next = Int(table[state &* columns &+ Int(column[Int(text[index])])])
          if next >= 0 {
            state = next
            continue
          }
          state = -next
          let first = Int(outputStart[state])
          for k in first..<(first + Int(outputCount[state])) {
            let id = Int(outputIDs[k])
            found(id, index + 1 - needles[id].count)
          }
        }
      }
    }
  }
}
