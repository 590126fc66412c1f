// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A position in the bytes of a date, with the two reads the ISO parser makes.
struct DateCursor {
  let s: UnsafeBufferPointer<UInt8>
  var i = 0

  /// The number written in the next `n` digits, or `nil` (the position unchanged) when they are not digits.
  mutating func digits(_ n: Int) -> Int? {
    guard i + n <= s.count else { return nil }
    var value = 0
    for k in i..<(i + n) {
      guard DateParser.isDigit(s[k]) else { return nil }
      value = value * 10 + Int(s[k] - 48)
    }
    i += n
    return value
  }

  /// Whether the next byte is `byte`, stepping over it when it is.
  mutating func accept(_ byte: UInt8) -> Bool {
    if i < s.count, s[i] == byte {
      i += 1
      return true
    }
    return false
  }
}
