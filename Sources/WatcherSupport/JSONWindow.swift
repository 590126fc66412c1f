// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials

/// A JSON document read a value at a time, from bytes in memory or from a file too large to hold whole.
///
/// `object` and `array` walk the containers around the values the caller reads; each value is read by a
/// `JSONReader` once the whole of it is in the window. Read from a file, the window holds the value being
/// read and what the last read brought (256 KiB), so a 50 MB JSON Feed is read in the memory of its
/// largest item. `rewind` starts again from the first byte, for a caller that checks a document whole
/// before it reads it.
///
/// ```swift
/// var json = try JSONWindow(file: file, limit: 20_000_000)
/// try json.object { json, key in
///   if key == "items" { try json.array { json in items.append(try json.value { try Item(reading: &$0) }) } }
///   else { try json.skipValue() }
/// }
/// try json.finish()
/// ```
package struct JSONWindow {
  /// Where the bytes come from.
  private enum Source {
    /// All of them, in `window`.
    case bytes([UInt8])
    /// A file, read a piece at a time.
    case file(ChunkedFile)
  }

  private let source: Source
  private var window: [UInt8]
  private var position = 0
  /// Where `window` starts in the document.
  private var windowStart = 0
  /// Whether the window holds the document's last byte.
  private var atEnd: Bool
  /// How many bytes have been read from the file in all; more than `limit` is `TooLarge`.
  private var total = 0
  private let limit: Int
  /// How much the window reads at least each time.
  private let chunk: Int
  /// How deep the current position is in objects and arrays.
  private var depth = 0

  /// More than the limit was read.
  package struct TooLarge: Error {
    package var limit: Int
  }

  /// The document in `bytes`.
  package init(bytes: [UInt8]) {
    source = .bytes(bytes)
    window = bytes
    atEnd = true
    limit = .max
    chunk = 0
    try? skipByteOrderMark()
  }

  /// The document in `file`, from its current position, at most `limit` bytes of it (`TooLarge` beyond),
  /// read `chunk` bytes or more at a time.
  package init(file: ChunkedFile, limit: Int, chunk: Int = 256 << 10) throws {
    source = .file(file)
    window = []
    atEnd = false
    self.limit = limit
    self.chunk = max(chunk, 1)
    try skipByteOrderMark()
  }

  /// Back to the document's first byte.
  package mutating func rewind() throws {
    depth = 0
    switch source {
    case .bytes:
      position = 0
    case .file(let file):
      try file.rewind()
      window = []
      position = 0
      windowStart = 0
      total = 0
      atEnd = false
    }
    try skipByteOrderMark()
  }

  private mutating func skipByteOrderMark() throws {
    while window.count < 3, try more() {}
    if window.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
  }

  /// Reads the next value with `body`, once all of it is in the window.
  ///
  /// `body` may be run more than once, on a longer window each time (when the value turns out to go on past
  /// the window's end), so it must have no effect beyond what it returns.
  package mutating func value<T>(_ body: (inout JSONReader) throws -> T) throws -> T {
    _ = try peek()
    while true {
      let complete = atEnd
      let depth = depth
      let read = try window.withUnsafeBufferPointer { all in
        try JSONReader.readValue(
          UnsafeBufferPointer(rebasing: all[position...]), depth: depth, complete: complete, body)
      }
      if let (value, used) = read {
        position += used
        return value
      }
      // It may go on past the window: read more (`more` at the end reads it once more, as complete).
      _ = try more()
    }
  }

  /// Reads the next value and drops it (still checked).
  package mutating func skipValue() throws {
    try value { try $0.skipValue() }
  }

  /// An object: `body` is called with each member's key and must read (or skip) its value.
  package mutating func object(_ body: (inout JSONWindow, String) throws -> Void) throws {
    try open(UInt8(ascii: "{"), "an object")
    if try closes(UInt8(ascii: "}")) { return }
    repeat {
      let key = try value { try $0.string() }
      guard try peek() == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
      position += 1
      try body(&self, key)
    } while try next(closing: UInt8(ascii: "}"))
  }

  /// An array: `body` is called once per element and must read (or skip) it.
  package mutating func array(_ body: (inout JSONWindow) throws -> Void) throws {
    try open(UInt8(ascii: "["), "an array")
    if try closes(UInt8(ascii: "]")) { return }
    repeat {
      try body(&self)
    } while try next(closing: UInt8(ascii: "]"))
  }

  /// After the document's value: only whitespace may follow.
  package mutating func finish() throws {
    if try peek() != nil { throw failure("unexpected text after the value") }
  }

  /// The next byte past whitespace, or nil at the end of the document.
  package mutating func peek() throws -> UInt8? {
    while true {
      while position < window.count {
        switch window[position] {
        case 0x20, 0x0A, 0x0D, 0x09: position += 1
        default: return window[position]
        }
      }
      guard try more() else { return nil }
    }
  }

  // MARK: Mechanics

  /// Drops what has been read and reads more; false at the end.
  ///
  /// It reads at least `chunk` bytes, or as many again as the window holds: a value longer than the window
  /// is read in doubling steps, so scanning it again each time costs no more than twice in all.
  private mutating func more() throws -> Bool {
    guard case .file(let file) = source, !atEnd else { return false }
    window.removeSubrange(..<position)
    windowStart += position
    position = 0
    let want = max(chunk, window.count)
    let before = window.count
    window.reserveCapacity(before + want)
    window.append(contentsOf: try file.read(upTo: want))
    let got = window.count - before
    total += got
    if total > limit { throw TooLarge(limit: limit) }
    if got < want { atEnd = true }
    return got > 0 || atEnd
  }

  private mutating func open(_ bracket: UInt8, _ what: String) throws {
    guard try peek() == bracket else { throw failure("expected \(what)") }
    position += 1
    depth += 1
    if depth > JSONReader.maxDepth { throw failure("arrays and objects nest more than \(JSONReader.maxDepth) deep") }
  }

  /// After an opening bracket: consumes `closing` (an empty container) and returns true, or returns false.
  private mutating func closes(_ closing: UInt8) throws -> Bool {
    guard try peek() == closing else { return false }
    position += 1
    depth -= 1
    return true
  }

  /// After a member or element: true at a comma (another follows), false at `closing` (consumed).
  private mutating func next(closing: UInt8) throws -> Bool {
    switch try peek() {
    case UInt8(ascii: ","):
      position += 1
      return true
    case closing:
      position += 1
      depth -= 1
      return false
    case nil: throw failure("the \(closing == UInt8(ascii: "]") ? "array" : "object") never ends")
    default: throw failure("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
    }
  }

  /// A failure at the current position, counted in bytes from the document's start (a window does not
  /// know its lines).
  private func failure(_ message: String) -> JSONReader.Failure {
    JSONReader.Failure(message: "\(message) (at byte \(windowStart + position))", line: 0, column: 0)
  }
}
