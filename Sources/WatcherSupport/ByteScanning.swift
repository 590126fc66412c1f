// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Small byte-level helpers for the hot paths of parsing and output.
public enum ByteScanning {
  // The word tests are `@inlinable`: they run per eight bytes in other modules' hot loops, where a call
  // each time cost more than the test.
  @inlinable static var ones: UInt64 { 0x0101_0101_0101_0101 }
  @inlinable static var highs: UInt64 { 0x8080_8080_8080_8080 }

  /// Whether any byte of `word` is zero (the classic SWAR test; exact, no false positives).
  @inlinable @inline(__always)
  public static func hasZeroByte(_ word: UInt64) -> Bool {
    (word &- ones) & ~word & highs != 0
  }

  /// Whether any byte of `word` is below `limit` (`limit` ≤ 128; exact when no byte is ≥ 128).
  @inlinable @inline(__always)
  public static func hasByteBelow(_ word: UInt64, _ limit: UInt8) -> Bool {
    (word &- ones &* UInt64(limit)) & ~word & highs != 0
  }

  /// The high bit of each byte of `word` that is zero, and no other bit (exact, unlike `hasZeroByte`'s
  /// intermediate value).
  @inlinable @inline(__always)
  public static func zeroBytes(_ word: UInt64) -> UInt64 {
    ~(((word & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | word | 0x7F7F_7F7F_7F7F_7F7F)
  }

  /// The high bit of each byte of `word` that is a C0 control character other than tab, newline and
  /// carriage return, or DEL (exact, whatever the other bytes).
  @inlinable @inline(__always)
  public static func controlBytes(_ word: UInt64) -> UInt64 {
    // Below 0x20: clear each byte's high bit so adding 0x60 cannot carry into the next byte.
    let low = word & 0x7F7F_7F7F_7F7F_7F7F
    let below = (((low &+ 0x6060_6060_6060_6060) | word) & highs) ^ highs
    let allowed = zeroBytes(word ^ (ones &* 0x09)) | zeroBytes(word ^ (ones &* 0x0A)) | zeroBytes(word ^ (ones &* 0x0D))
    return (below & ~allowed) | zeroBytes(word ^ (ones &* 0x7F))
  }

  /// Sixteen bytes at a time: the SIMD type the scans below test, one SSE2 register.
  public typealias Vector = SIMD16<UInt8>
  /// Which lanes of a `Vector` a test picked.
  public typealias Lanes = SIMDMask<SIMD16<Int8>>

  /// `byte` in every lane.
  ///
  /// Compare vectors with vectors (`v .== splat(0x22)`), never with a scalar: the scalar forms of the SIMD
  /// operators are compiled one lane at a time.
  @inlinable @inline(__always)
  public static func splat(_ byte: UInt8) -> Vector { Vector(repeating: byte) }

  /// The sixteen bytes of `bytes` at `offset` (which must leave sixteen).
  @inlinable @inline(__always)
  public static func load(_ bytes: Span<UInt8>, _ offset: Int) -> Vector {
    precondition(offset >= 0 && offset &+ 16 <= bytes.count)
    return bytes.withUnsafeBufferPointer { load($0.baseAddress.unsafelyUnwrapped, offset) }
  }

  /// The sixteen bytes at `base + offset`.
  @usableFromInline @inline(__always)
  static func load(_ base: UnsafePointer<UInt8>, _ offset: Int) -> Vector {
    UnsafeRawPointer(base + offset).loadUnaligned(as: Vector.self)
  }

  /// The first lane `lanes` picked, or `nil`.
  @inlinable @inline(__always)
  public static func firstLane(_ lanes: Lanes) -> Int? {
    let words = unsafeBitCast(lanes, to: SIMD2<UInt64>.self)
    if words[0] != 0 { return words[0].trailingZeroBitCount &>> 3 }
    if words[1] != 0 { return 8 &+ words[1].trailingZeroBitCount &>> 3 }
    return nil
  }

  /// The offset of the first byte at or after `start` for which `byte` holds, or `bytes.count`.
  ///
  /// Sixteen bytes are tested at once with `vector`, which must pick exactly the lanes whose bytes `byte`
  /// picks; `byte` tests the last few. Both are inlined into the caller, so each use compiles to a loop of
  /// a few SSE2 instructions per sixteen bytes.
  @inlinable @inline(__always)
  public static func firstIndex(
    in bytes: Span<UInt8>, from start: Int, vector: (Vector) -> Lanes, byte: (UInt8) -> Bool
  ) -> Int {
    bytes.withUnsafeBufferPointer { firstIndex(buffer: $0, from: start, vector: vector, byte: byte) }
  }

  @inlinable @inline(__always)
  static func firstIndex(
    buffer bytes: UnsafeBufferPointer<UInt8>, from start: Int, vector: (Vector) -> Lanes, byte: (UInt8) -> Bool
  ) -> Int {
    let n = bytes.count
    guard let base = bytes.baseAddress else { return n }
    var i = start
    while i &+ 16 <= n {
      if let lane = firstLane(vector(load(base, i))) { return i &+ lane }
      i &+= 16
    }
    while i < n {
      if byte(base[i]) { return i }
      i &+= 1
    }
    return n
  }

  /// How many bytes `byte` picks; sixteen at a time with `vector`, which must pick exactly the same lanes.
  @inlinable @inline(__always)
  public static func count(in bytes: Span<UInt8>, vector: (Vector) -> Lanes, byte: (UInt8) -> Bool) -> Int {
    bytes.withUnsafeBufferPointer { count(buffer: $0, vector: vector, byte: byte) }
  }

  @inlinable @inline(__always)
  static func count(buffer bytes: UnsafeBufferPointer<UInt8>, vector: (Vector) -> Lanes, byte: (UInt8) -> Bool)
    -> Int
  {
    guard let base = bytes.baseAddress else { return 0 }
    var total = 0
    var i = 0
    while i &+ 16 <= bytes.count {
      // A picked lane is eight set bits.
      let words = unsafeBitCast(vector(load(base, i)), to: SIMD2<UInt64>.self)
      total &+= (words[0].nonzeroBitCount &+ words[1].nonzeroBitCount) &>> 3
      i &+= 16
    }
    while i < bytes.count {
      if byte(base[i]) { total &+= 1 }
      i &+= 1
    }
    return total
  }

  /// `firstIndex` for tests that look at each byte and the one after it (a double space, a space before
  /// markup): the offset of the first lane `pair` picks, given the sixteen bytes at an offset and the
  /// sixteen after them by one; or, when fewer than seventeen bytes are left, where the test stopped, for
  /// the caller to go on byte by byte.
  @inlinable @inline(__always)
  public static func firstPairIndex(in bytes: Span<UInt8>, from start: Int, pair: (Vector, Vector) -> Lanes) -> Int {
    bytes.withUnsafeBufferPointer { firstPairIndex(buffer: $0, from: start, pair: pair) }
  }

  @inlinable @inline(__always)
  static func firstPairIndex(
    buffer bytes: UnsafeBufferPointer<UInt8>, from start: Int, pair: (Vector, Vector) -> Lanes
  ) -> Int {
    guard let base = bytes.baseAddress else { return start }
    var i = start
    while i &+ 17 <= bytes.count {
      if let lane = firstLane(pair(load(base, i), load(base, i &+ 1))) { return i &+ lane }
      i &+= 16
    }
    return i
  }

  /// The offset of the first byte at or after `start` that is not ASCII, or `bytes.count`.
  ///
  /// Most text is ASCII for long stretches: sixty-four bytes are tested at once (their high bits, OR-ed),
  /// then the sixteen-byte scan finds the byte.
  @inlinable
  public static func firstNonASCII(in bytes: Span<UInt8>, from start: Int = 0) -> Int {
    bytes.withUnsafeBufferPointer { firstNonASCII(buffer: $0, from: start) }
  }

  @inlinable
  static func firstNonASCII(buffer bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int {
    var i = start
    if let base = bytes.baseAddress {
      let high = SIMD2<UInt64>(repeating: 0x8080_8080_8080_8080)
      while i &+ 64 <= bytes.count {
        let any = load(base, i) | load(base, i &+ 16) | load(base, i &+ 32) | load(base, i &+ 48)
        let words = unsafeBitCast(any, to: SIMD2<UInt64>.self) & high
        if words[0] | words[1] != 0 { break }
        i &+= 64
      }
    }
    return firstIndex(buffer: bytes, from: i, vector: { $0 .>= splat(0x80) }, byte: { $0 >= 0x80 })
  }

  /// The offset of the first `a` or `b` at or after `start`, or `bytes.count`.
  @inlinable
  public static func firstIndex(of a: UInt8, or b: UInt8, in bytes: Span<UInt8>, from start: Int = 0) -> Int {
    bytes.withUnsafeBufferPointer { firstIndex(of: a, or: b, buffer: $0, from: start) }
  }

  @inlinable
  static func firstIndex(of a: UInt8, or b: UInt8, buffer bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0)
    -> Int
  {
    let va = splat(a)
    let vb = splat(b)
    return firstIndex(
      buffer: bytes, from: start, vector: { ($0 .== va) .| ($0 .== vb) }, byte: { $0 == a || $0 == b })
  }

  /// A 64-bit FNV-1a hash of bytes, lowercasing ASCII letters: a Set key for tag names without making a
  /// String.
  @inlinable @inline(__always)
  public static func lowercaseHash(_ bytes: Span<UInt8>) -> UInt64 {
    bytes.withUnsafeBufferPointer { lowercaseHash(buffer: $0) }
  }

  @inlinable @inline(__always)
  static func lowercaseHash(buffer bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for c in bytes {
      hash ^= UInt64(c >= 65 && c <= 90 ? c | 0x20 : c)
      hash &*= 0x0000_0100_0000_01b3
    }
    return hash
  }

  /// `lowercaseHash` of a string's UTF-8.
  package static func lowercaseHash(_ text: String) -> UInt64 {
    text.withUTF8Bytes { lowercaseHash(buffer: $0) }
  }
}

extension String {
  /// A string from UTF-8 bytes, repairing invalid sequences, through the fast contiguous path.
  package init(utf8Bytes bytes: [UInt8]) {
    self = bytes.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
  }

  /// Calls `body` with the string's UTF-8, in place for a native string (which every string made here
  /// is), without the copy to a `var` that `withUTF8` needs, and its retain and release (`utf8.span` costs
  /// a call and a retain each time: 1 % of a parse).
  @inlinable @inline(__always)
  public func withUTF8Span<Result>(_ body: (Span<UInt8>) throws -> Result) rethrows -> Result {
    try withUTF8Bytes { try body($0.span) }
  }

  @inlinable @inline(__always)
  func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
    if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = self
    return try copy.withUTF8(body)
  }

  /// A string from bytes that are valid UTF-8 by construction, without checking them again.
  ///
  /// For text taken whole from strings, or from input the repairer has made valid, cut only between
  /// characters: checking again is one more pass over every byte of every item's text. Debug builds, and so
  /// the tests and the fuzzers' regression runs, still check.
  package init(validUTF8 bytes: Span<UInt8>) {
    self = bytes.withUnsafeBufferPointer { String(validUTF8Buffer: $0) }
  }

  init(validUTF8Buffer bytes: UnsafeBufferPointer<UInt8>) {
    assert(String(validating: bytes, as: UTF8.self) != nil, "bytes that should be valid UTF-8 are not")
    self = String(copying: UTF8Span(unchecked: bytes.span))
  }

  /// `init(validUTF8:)` of an array's bytes.
  package init(validUTF8 bytes: [UInt8]) {
    self = bytes.withUnsafeBufferPointer { String(validUTF8Buffer: $0) }
  }

  /// The string without leading and trailing ASCII whitespace; returns itself when there is none.
  package var trimmingASCIIWhitespace: String {
    let utf8 = self.utf8
    guard let first = utf8.first, let last = utf8.last else { return self }
    @inline(__always) func isSpace(_ c: UInt8) -> Bool { c == 32 || (c >= 9 && c <= 13) }
    if !isSpace(first) && !isSpace(last) { return self }
    var start = utf8.startIndex
    var end = utf8.endIndex
    while start < end, isSpace(utf8[start]) { start = utf8.index(after: start) }
    while end > start, isSpace(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
    return String(self[start..<end])
  }
}
