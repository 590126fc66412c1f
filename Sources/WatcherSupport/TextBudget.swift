// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Text cut to a number of UTF-8 bytes, at a character boundary: what is stored or handed on is bounded in
/// bytes, whatever a feed sends.
public enum TextBudget {
  /// `text`, or its longest prefix of whole scalars within `maxBytes` (ending in "…" when `marked`, the mark
  /// counted in the budget).
  public static func prefix(_ text: String, maxBytes: Int, marked: Bool = false) -> String {
    guard text.utf8.count > maxBytes else { return text }
    let mark = marked ? "…" : ""
    var end = max(0, maxBytes - mark.utf8.count)
    let utf8 = text.utf8
    let start = utf8.startIndex
    // Back to the first byte of a scalar (never inside one).
    while end > 0, utf8[utf8.index(start, offsetBy: end)] & 0xC0 == 0x80 { end -= 1 }
    return String(decoding: utf8.prefix(end), as: UTF8.self) + mark
  }
}

/// A file's budget in bytes, met by dropping its oldest entries first.
public enum ByteBudget {
  /// The positions in `sizes` (each entry's bytes, listed oldest first by `order`) to drop so that the
  /// file's `total` bytes fit `budget`: the oldest first, no more than needed; none when it fits.
  public static func overflow(sizes: [Int], oldestFirst order: [Int]? = nil, total: Int, budget: Int) -> Set<Int> {
    guard total > budget else { return [] }
    var excess = total - budget
    var dropped: Set<Int> = []
    for position in order ?? Array(sizes.indices) where excess > 0 {
      dropped.insert(position)
      excess -= sizes[position]
    }
    return dropped
  }

  /// `overflow` for a file that several feeds share: the positions to drop, each the oldest entry of the
  /// owner (a feed) that takes the most bytes at that moment, so one feed's flood drops its own entries and
  /// never another's that takes less (SECURITY.md, "One feed never decides another").
  public static func fairOverflow(
    sizes: [Int], owners: [String], oldestFirst order: [Int]? = nil, total: Int, budget: Int
  ) -> Set<Int> {
    guard total > budget else { return [] }
    var queues: [String: [Int]] = [:]
    var bytes: [String: Int] = [:]
    for position in order ?? Array(sizes.indices) {
      queues[owners[position], default: []].append(position)
      bytes[owners[position], default: 0] += sizes[position]
    }
    var next: [String: Int] = [:]
    var excess = total - budget
    var dropped: Set<Int> = []
    while excess > 0, let (owner, most) = bytes.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }), most > 0 {
      let index = next[owner, default: 0]
      guard let queue = queues[owner], index < queue.count else {
        bytes[owner] = 0
        continue
      }
      let position = queue[index]
      next[owner] = index + 1
      dropped.insert(position)
      excess -= sizes[position]
      bytes[owner, default: 0] -= sizes[position]
    }
    return dropped
  }
}
