// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Every literal the rules look for, found in one pass over a text (Aho–Corasick over UTF-8 bytes).
///
/// With a hundred rules, searching each needle separately reads each item's text a hundred times; the
/// automaton reads it once and reports every needle it contains, with where.
package final class NeedleSet: Sendable {
  /// The needles, by id.
  package let needles: [[UInt8]]
  private let transitions: [Int32]
  private let outputStart: [Int32]
  private let outputCount: [Int32]
  private let outputIDs: [Int32]

  package init(_ needles: [[UInt8]]) {
    self.needles = needles
    // The trie.
    var next: [[Int32]] = [Array(repeating: -1, count: 256)]
    var own: [[Int32]] = [[]]
    for (id, needle) in needles.enumerated() where !needle.isEmpty {
      var state = 0
      for byte in needle {
        if next[state][Int(byte)] < 0 {
          next[state][Int(byte)] = Int32(next.count)
          next.append(Array(repeating: -1, count: 256))
          own.append([])
        }
        state = Int(next[state][Int(byte)])
      }
      own[state].append(Int32(id))
    }
    // Failure links by breadth-first search, folded into a complete transition table.
    var fail = [Int32](repeating: 0, count: next.count)
    var outputs = own
    var queue: [Int] = []
    for byte in 0..<256 {
      if next[0][byte] < 0 {
        next[0][byte] = 0
      } else {
        fail[Int(next[0][byte])] = 0
        queue.append(Int(next[0][byte]))
      }
    }
    var head = 0
    while head < queue.count {
      let state = queue[head]
      head += 1
      outputs[state] += outputs[Int(fail[state])]
      for byte in 0..<256 {
        let child = next[state][byte]
        if child < 0 {
          next[state][byte] = next[Int(fail[state])][byte]
        } else {
          fail[Int(child)] = next[Int(fail[state])][byte]
          queue.append(Int(child))
        }
      }
    }
    transitions = next.flatMap { $0 }
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
  package func scan(_ text: UnsafeBufferPointer<UInt8>, _ found: (Int, Int) -> Void) {
    transitions.withUnsafeBufferPointer { table in
      var state = 0
      for index in 0..<text.count {
        state = Int(table[state &* 256 &+ Int(text[index])])
        let count = Int(outputCount[state])
        if count == 0 { continue }
        let first = Int(outputStart[state])
        for k in first..<(first + count) {
          let id = Int(outputIDs[k])
          found(id, index + 1 - needles[id].count)
        }
      }
    }
  }
}
