// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials

/// A strict JSON reader that hands values to the caller as it meets them, with no tree in between.
///
/// Written for the state files, which a re-poll reads by the hundred: `JSONDecoder` spent most of that time
/// building and walking its own tree. It accepts exactly RFC 8259 (strings must be valid UTF-8) and
/// nests at most `maxDepth` deep; anything else is a `JSONReader.Failure` that names the line and column.
///
/// ```swift
/// let point = try JSONReader.read(bytes) { json in
///   var x = 0
///   try json.object { json, key in
///     if key == "x" { x = try json.int() } else { try json.skipValue() }
///   }
///   return x
/// }
/// ```
package struct JSONReader: ~Copyable {
  private let bytes: UnsafeBufferPointer<UInt8>
  private var index = 0
  private var depth = 0
  /// Set by `stopReading`: the rest of the document is not read.
  private var stopped = false
  /// How deep arrays and objects may nest.
  package static let maxDepth = 256

  /// What was wrong, and where (1-based line and column, in bytes).
  package struct Failure: Error, CustomStringConvertible, Equatable {
    package var message: String
    package var line: Int
    package var column: Int

    package var description: String { "line \(line), column \(column): \(message)" }
  }

  private init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  /// Reads one document: `body` reads its value, and only whitespace may follow it.
  static func read<T>(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (inout JSONReader) throws -> T) throws -> T {
    var reader = JSONReader(bytes)
    let value = try body(&reader)
    reader.skipSpace()
    if reader.index < bytes.count, !reader.stopped { throw reader.failure("unexpected text after the value") }
    return value
  }

  /// Reads the value at the start of `bytes`, `depth` levels into a document read in parts (`JSONWindow`):
  /// what `body` made of it and how many bytes it took, or nil when it may go on past the end of `bytes`
  /// (it reached the end or failed near it) and `complete` says more bytes may follow.
  static func readValue<T>(
    _ bytes: UnsafeBufferPointer<UInt8>, depth: Int, complete: Bool, _ body: (inout JSONReader) throws -> T
  ) throws -> (T, Int)? {
    var reader = JSONReader(bytes)
    reader.depth = depth
    do {
      let value = try body(&reader)
      // A number or a literal that ends where the bytes do may go on.
      if !complete, reader.index >= bytes.count { return nil }
      return (value, reader.index)
    } catch {
      // What fails near the end may be cut there: a literal, a \u escape and a surrogate pair read a few
      // bytes ahead before they fail.
      if !complete, reader.index + 16 >= bytes.count { return nil }
      throw error
    }
  }

  /// `read` over the bytes of any contiguous collection (`Data`, `[UInt8]`).
  package static func read<T>(_ data: some Collection<UInt8>, _ body: (inout JSONReader) throws -> T) throws -> T {
    if let value = try data.withContiguousStorageIfAvailable({ try read($0, body) }) { return value }
    return try Array(data).withUnsafeBufferPointer { try read($0, body) }
  }

  // MARK: Values

  /// Consumes a `null` and returns true, or returns false (consuming nothing) when the next value is not null.
  package mutating func null() throws -> Bool {
    skipSpace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: "n") else { return false }
    try literal("null")
    return true
  }

  package mutating func bool() throws -> Bool {
    skipSpace()
    guard index < bytes.count else { throw failure("expected true or false, found the end of the text") }
    switch bytes[index] {
    case UInt8(ascii: "t"):
      try literal("true")
      return true
    case UInt8(ascii: "f"):
      try literal("false")
      return false
    default: throw failure("expected true or false")
    }
  }

  /// An integer: digits with an optional minus sign (no fraction or exponent), within `Int`'s range.
  package mutating func int() throws -> Int {
    skipSpace()
    let start = index
    var negative = false
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
      negative = true
      index += 1
    }
    var value = 0
    var digits = 0
    while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
      let digit = bytes[index] &- UInt8(ascii: "0")
      if digits == 1, value == 0 { throw failure("a number may not start with 0", at: start) }
      let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times.addingReportingOverflow(negative ? -Int(digit) : Int(digit))
      if overflow1 || overflow2 { throw failure("the number is too large", at: start) }
      value = sum
      digits += 1
      index += 1
    }
    if digits == 0 { throw failure("expected an integer", at: start) }
    if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
      throw failure("expected an integer, found a fraction or exponent", at: start)
    }
    return value
  }

  package mutating func string() throws -> String {
    try stringBytes(as: "valid UTF-8 text") { bytes in
      // UTF8Span's check is not generic: String(validating:as:) looks up its encoding's metadata at run
      // time, for every key and value of every state file.
      guard let span = try? UTF8Span(validating: bytes.span) else { return nil }
      return String(copying: span)
    }
  }

  /// A string of hex digits as the number it spells (`StableHash.value(hex:)`; anything else is 0), read
  /// where it is: a 16-digit string is too long to be kept inline, and a state file has two an item.
  package mutating func hexNumber() throws -> UInt64 {
    try stringBytes(as: "text") { StableHash.value(hexDigits: $0) }
  }

  /// A date as state files write it (ISO 8601; any form `DateParser` reads is accepted).
  package mutating func date() throws -> Date {
    try stringBytes(as: "a date") { DateParser.parse(bytes: $0) }
  }

  /// A string checked as `string()` checks it, without making it.
  ///
  /// Checked where it is written: an escape stands for valid UTF-8 (`escapedScalar` checks it), so the
  /// string is valid when the bytes between its escapes are, and those are checked in one call. (Unescaping
  /// into a copy first cost a tenth of a large JSON Feed's parse, in the pass that only checks it.)
  private mutating func skipString() throws {
    skipSpace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a string") }
    let start = index
    index += 1
    let first = index
    while true {
      index = Self.nextSpecial(in: bytes, from: index)
      guard index < bytes.count else { throw failure("the string never ends", at: start) }
      let byte = bytes[index]
      index += 1
      switch byte {
      case UInt8(ascii: "\""):
        guard (try? UTF8Span(validating: UnsafeBufferPointer(rebasing: bytes[first..<index - 1]).span)) != nil else {
          throw failure("expected valid UTF-8 text", at: start)
        }
        return
      case UInt8(ascii: "\\"): _ = try escapedScalar()
      default: throw failure("a control character must be escaped in a string", at: index - 1)
      }
    }
  }

  /// A string handed to `body` as its UTF-8 bytes (escapes resolved), valid only during the call;
  /// `body` returns nil when the bytes are not `what` the caller expects.
  mutating func stringBytes<T>(as what: String, _ body: (UnsafeBufferPointer<UInt8>) -> T?) throws -> T {
    skipSpace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a string") }
    let start = index
    index += 1
    let first = index
    // The common case: no escapes, so the bytes are used where they are.
    index = Self.nextSpecial(in: bytes, from: index)
    if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
      index += 1
      guard let value = body(UnsafeBufferPointer(rebasing: bytes[first..<index - 1])) else {
        throw failure("expected \(what)", at: start)
      }
      return value
    }
    var unescaped = Array(bytes[first..<index])
    while true {
      guard index < bytes.count else { throw failure("the string never ends", at: start) }
      let byte = bytes[index]
      index += 1
      switch byte {
      case UInt8(ascii: "\""):
        let value = unescaped.withUnsafeBufferPointer(body)
        guard let value else { throw failure("expected \(what)", at: start) }
        return value
      case UInt8(ascii: "\\"): try escape(into: &unescaped)
      case 0..<0x20: throw failure("a control character must be escaped in a string", at: index - 1)
      default: unescaped.append(byte)
      }
      // The run up to the next quote, backslash or control character, whole.
      let next = Self.nextSpecial(in: bytes, from: index)
      unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<next]))
      index = next
    }
  }

  /// Where the first `"`, `\` or control character at or after `start` is (or the end), sixteen bytes at a
  /// time.
  @inline(__always)
  private static func nextSpecial(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    let quote = ByteScanning.splat(UInt8(ascii: "\""))
    let backslash = ByteScanning.splat(UInt8(ascii: "\\"))
    let space = ByteScanning.splat(0x20)
    return ByteScanning.firstIndex(
      buffer: bytes, from: start, vector: { ($0 .== quote) .| ($0 .== backslash) .| ($0 .< space) },
      byte: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 })
  }

  /// An object: `body` is called with each member's key and must read (or skip) its value.
  package mutating func object(_ body: (inout JSONReader, String) throws -> Void) throws {
    skipSpace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw failure("expected an object") }
    try nest()
    index += 1
    if try closes(UInt8(ascii: "}")) { return }
    repeat {
      let key = try string()
      skipSpace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
      index += 1
      try body(&self, key)
      if stopped { return }
    } while try next(closing: UInt8(ascii: "}"))
  }

  /// Reads no more of the document: every object and array being read ends here, and `read` returns what
  /// its body made of the document so far, without looking at the rest (which may not even be well formed).
  ///
  /// For a caller that knows nothing it needs comes after this point (a state file's known items, which
  /// its writer puts last).
  package mutating func stopReading() {
    stopped = true
  }

  /// An array: `body` is called once per element and must read (or skip) it.
  package mutating func array(_ body: (inout JSONReader) throws -> Void) throws {
    skipSpace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { throw failure("expected an array") }
    try nest()
    index += 1
    if try closes(UInt8(ascii: "]")) { return }
    repeat {
      try body(&self)
      if stopped { return }
    } while try next(closing: UInt8(ascii: "]"))
  }

  /// `read`'s value, or nil for a `null`.
  package mutating func optional<T>(_ read: (inout JSONReader) throws -> T) throws -> T? {
    try null() ? nil : read(&self)
  }

  /// Reads a value of any kind and drops it (still checked).
  package mutating func skipValue() throws {
    skipSpace()
    guard index < bytes.count else { throw failure("expected a value, found the end of the text") }
    switch bytes[index] {
    case UInt8(ascii: "{"):
      // As `object`, without making a string of each key.
      try nest()
      index += 1
      if try closes(UInt8(ascii: "}")) { return }
      repeat {
        skipSpace()
        try skipString()
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
        index += 1
        try skipValue()
      } while try next(closing: UInt8(ascii: "}"))
    case UInt8(ascii: "["): try array { json in try json.skipValue() }
    case UInt8(ascii: "\""): try skipString()
    case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
    case UInt8(ascii: "n"): _ = try null()
    default: try number()
    }
  }

  /// A value passed over by its brackets and quotes alone, for a part of a document that is read (and checked)
  /// in full elsewhere: its strings are not checked as UTF-8, its numbers and literals not at all.
  package mutating func skipUnchecked() throws {
    skipSpace()
    let start = index
    guard index < bytes.count else { throw failure("expected a value, found the end of the text") }
    switch bytes[index] {
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      var open = 0
      while index < bytes.count {
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): try skipQuoted(from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["): open += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          open -= 1
          if open == 0 { return }
        default: break
        }
      }
      throw failure("the value never ends", at: start)
    case UInt8(ascii: "\""):
      index += 1
      try skipQuoted(from: start)
    default:
      // A number or a literal: up to what ends it.
      while index < bytes.count, !",}] \n\r\t".utf8.contains(bytes[index]) { index += 1 }
    }
  }

  /// After a string's opening quote: on to just past its closing one.
  private mutating func skipQuoted(from start: Int) throws {
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        index += 1
        return
      }
      index += byte == UInt8(ascii: "\\") ? 2 : 1
    }
    throw failure("the string never ends", at: start)
  }

  /// A failure at the current position (or at byte `offset`), for a value that is well-formed JSON but
  /// not what the caller expected.
  package func failure(_ message: String, at offset: Int? = nil) -> Failure {
    let end = min(offset ?? index, bytes.count)
    var line = 1
    var lineStart = 0
    for position in 0..<end where bytes[position] == UInt8(ascii: "\n") {
      line += 1
      lineStart = position + 1
    }
    return Failure(message: message, line: line, column: end - lineStart + 1)
  }

  // MARK: Mechanics

  private mutating func skipSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x0A, 0x0D, 0x09: index += 1
      default: return
      }
    }
  }

  private mutating func literal(_ word: StaticString) throws {
    let count = word.utf8CodeUnitCount
    let matches =
      index + count <= bytes.count
      && word.withUTF8Buffer { $0.elementsEqual(UnsafeBufferPointer(rebasing: bytes[index..<index + count])) }
    guard matches else { throw failure("expected \(word)") }
    index += count
  }

  private mutating func nest() throws {
    depth += 1
    if depth > Self.maxDepth { throw failure("arrays and objects nest more than \(Self.maxDepth) deep") }
  }

  /// After an opening bracket: consumes `closing` (an empty container) and returns true, or returns false.
  private mutating func closes(_ closing: UInt8) throws -> Bool {
    skipSpace()
    guard index < bytes.count, bytes[index] == closing else { return false }
    index += 1
    depth -= 1
    return true
  }

  /// After a member or element: true at a comma (another follows), false at `closing` (consumed).
  private mutating func next(closing: UInt8) throws -> Bool {
    skipSpace()
    guard index < bytes.count else {
      throw failure("the \(closing == UInt8(ascii: "]") ? "array" : "object") never ends")
    }
    switch bytes[index] {
    case UInt8(ascii: ","):
      index += 1
      return true
    case closing:
      index += 1
      depth -= 1
      return false
    default: throw failure("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
    }
  }

  /// Any JSON number, checked and dropped.
  private mutating func number() throws {
    let start = index
    func digits() -> Int {
      let first = index
      while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
      return index - first
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    let leadingZero = index < bytes.count && bytes[index] == UInt8(ascii: "0")
    let whole = digits()
    guard whole > 0, !(leadingZero && whole > 1) else { throw failure("expected a value", at: start) }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard digits() > 0 else { throw failure("expected digits after '.'", at: start) }
    }
    if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
      guard digits() > 0 else { throw failure("expected digits in the exponent", at: start) }
    }
  }

  /// After a backslash: appends what the escape stands for.
  private mutating func escape(into out: inout [UInt8]) throws {
    let scalar = try escapedScalar()
    if scalar < 0x80 {
      out.append(UInt8(scalar))
    } else if let value = Unicode.Scalar(scalar), let encoded = UTF8.encode(value) {
      out.append(contentsOf: encoded)
    }
  }

  /// The scalar the escape after a backslash stands for (a valid one: surrogates paired).
  private mutating func escapedScalar() throws -> UInt32 {
    guard index < bytes.count else { throw failure("the string never ends") }
    let byte = bytes[index]
    index += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return UInt32(byte)
    case UInt8(ascii: "b"): return 0x08
    case UInt8(ascii: "f"): return 0x0C
    case UInt8(ascii: "n"): return 0x0A
    case UInt8(ascii: "r"): return 0x0D
    case UInt8(ascii: "t"): return 0x09
    case UInt8(ascii: "u"):
      var scalar = try hex4()
      if (0xD800..<0xDC00).contains(scalar) {
        // A high surrogate must be followed by an escaped low one.
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
          throw failure("an unpaired surrogate in a \\u escape")
        }
        index += 2
        let low = try hex4()
        guard (0xDC00..<0xE000).contains(low) else { throw failure("an unpaired surrogate in a \\u escape") }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00..<0xE000).contains(scalar) {
        throw failure("an unpaired surrogate in a \\u escape")
      }
      guard Unicode.Scalar(scalar) != nil else { throw failure("an invalid \\u escape") }
      return scalar
    default: throw failure("an invalid escape '\\\(Character(Unicode.Scalar(byte)))'", at: index - 2)
    }
  }

  private mutating func hex4() throws -> UInt32 {
    guard index + 4 <= bytes.count else { throw failure("a \\u escape needs four hex digits") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw failure("a \\u escape needs four hex digits")
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }
}

extension JSONReader {
  /// The first byte of the next value (`{`, `[`, `"`, a digit or `-`, `t`, `f`, `n`), or nil at the end.
  package mutating func peek() -> UInt8? {
    skipSpace()
    return index < bytes.count ? bytes[index] : nil
  }

  /// The next value, a number of any form, as a `Double`.
  package mutating func double() throws -> Double {
    skipSpace()
    let start = index
    try number()
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    guard let value = Double(text) else { throw failure("the number is out of range", at: start) }
    return value
  }

  /// The next value as a scalar.
  package mutating func scalar() throws -> JSONScalar {
    skipSpace()
    guard index < bytes.count else { throw failure("expected a value, found the end of the text") }
    switch bytes[index] {
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try bool())
    case UInt8(ascii: "n"):
      _ = try null()
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      let start = index
      if let value = try? int() { return .int(value) }
      index = start
      try number()
      return .other
    default:
      try skipValue()
      return .other
    }
  }
}
