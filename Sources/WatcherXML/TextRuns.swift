// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CLibXML2
import Glibc
import WatcherSupport

/// Runs of character data cut out of the document before libxml2 reads it, decoded here, and handed to the
/// capture when libxml2 reaches the empty element left in their place (`ReferenceFolder`).
///
/// Escaped HTML (`&lt;p&gt;One &amp; two&lt;/p&gt;`) is most of a large feed, and libxml2 reads it slowly:
/// a name lookup and a callback for every reference, and character by character once the text is not
/// ASCII. A run of text between two tags is decoded here in one pass instead, exactly as libxml2 would have
/// reported it (the five predefined references, numeric ones, HTML named entities, line ends normalized);
/// a run libxml2 might read any other way (an invalid reference, a literal `>`) is left to it.
///
/// In its place libxml2 reads a marker, `<` + nonce + the run's newlines + `/>`, an empty element named with
/// eight random letters a parser draws once (so no element of the document passes for one). A marker is
/// matched to its run by where it ends in the bytes libxml2 reads. Should libxml2 read one as something
/// other than an element, because a broken document put it inside a comment, a CDATA section or a
/// processing instruction the lexer did not see, the marker is swallowed there as the run would have been:
/// it holds no `-->`, `]]>` or `?>`, and the run held no `>`.
final class TextRuns {
  /// The markers' element name.
  let nonce: [UInt8]
  /// The decoded runs not yet taken, one after the other.
  private var bytes: UnsafeMutablePointer<UInt8>?
  private var count = 0
  private var capacity = 0
  /// Each run not yet taken: where it is in `bytes`, and where its marker ends in the bytes libxml2 reads.
  private var entries: [(start: Int, count: Int, end: Int)] = []
  /// Entries before this one were taken or passed over.
  private var head = 0
  /// The most decoded bytes kept: past this, runs are left to libxml2 (only if markers go unread).
  private static let maxBytes = 4 << 20

  init() {
    var generator = SystemRandomNumberGenerator()
    nonce = (0..<8).map { _ in UInt8(ascii: "a") + generator.next(upperBound: 26 as UInt8) }
  }

  deinit { free(bytes) }

  /// Decodes `run` (text between two tags, no `<` in it) and keeps it for the marker that will end at `end`;
  /// false, keeping nothing, when libxml2 might read it otherwise.
  func add(_ run: UnsafeBufferPointer<UInt8>, markerEnd end: Int) -> Bool {
    guard count < Self.maxBytes, let source = run.baseAddress, !run.isEmpty else { return false }
    let n = run.count
    // Decoding never lengthens: every reference is longer than the UTF-8 it stands for.
    if count + n > capacity {
      let grown = max(count + n, capacity * 2, 16_384)
      guard let moved = realloc(bytes, grown) else { return false }
      bytes = moved.assumingMemoryBound(to: UInt8.self)
      capacity = grown
    }
    guard let bytes else { return false }
    let written = Self.decode(source, n, into: bytes + count)
    guard written >= 0 else { return false }
    entries.append((count, written, end))
    count += written
    return true
  }

  /// Whether `name` (an element's local name) is the markers'.
  @inline(__always)
  func isMarker(_ name: UnsafePointer<UInt8>) -> Bool {
    // Byte by byte, stopping at the first difference: a shorter name differs at its terminating zero.
    for k in 0..<8 where name[k] != nonce[k] { return false }
    return name[8] == 0
  }

  /// Hands the run whose marker ends at `end` to `body`, if there is one; the runs before it are let go.
  func take(markerEnd end: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    while head < entries.count, entries[head].end < end { head += 1 }
    guard head < entries.count, entries[head].end == end, let bytes else { return }
    let entry = entries[head]
    body(UnsafeBufferPointer(start: bytes + entry.start, count: entry.count))
    head += 1
    guard head == entries.count else { return }
    entries.removeAll(keepingCapacity: true)
    count = 0
    head = 0
    if capacity > 1 << 20 {
      free(self.bytes)
      self.bytes = nil
      capacity = 0
    }
  }

  // MARK: - Decoding

  /// Writes the characters libxml2 reports for the character data `p[0..<n]` to `out` (room for `n`
  /// bytes): how many, or -1 when libxml2 might read it otherwise (`watcher_decode_run`).
  private static func decode(_ p: UnsafePointer<UInt8>, _ n: Int, into out: UnsafeMutablePointer<UInt8>) -> Int {
    var i = 0
    var o = 0
    while true {
      switch watcher_decode_run(p, n, &i, out, &o) {
      case 0: return o
      case 1:
        // A named reference: an HTML entity, as `getEntity` resolves it for libxml2.
        guard let (length, scalar) = entity(UnsafeBufferPointer(start: p, count: n), at: i) else { return -1 }
        o &+= watcher_put_utf8(out + o, scalar)
        i &+= length
      default: return -1
      }
    }
  }

  /// The HTML entity named at `b[i]` (an `&`): its length and character, or nil.
  private static func entity(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> (Int, UInt32)? {
    var name = [UInt8]()
    var j = i &+ 1
    while j < b.count, name.count < 32 {
      let c = b[j]
      guard (c | 0x20 >= 97 && c | 0x20 <= 122) || (c >= 48 && c <= 57) else { break }
      name.append(c)
      j &+= 1
    }
    guard !name.isEmpty, j < b.count, b[j] == UInt8(ascii: ";") else { return nil }
    name.append(0)
    guard let entity = name.withUnsafeBufferPointer({ htmlEntityLookup($0.baseAddress) }) else { return nil }
    return (j &+ 1 &- i, entity.pointee.value)
  }
}
