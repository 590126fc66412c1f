// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CWatcherXML
import Glibc

/// Runs of character data cut out of the document before libxml2 reads it, decoded here, and handed to the
/// capture when libxml2 reaches the reference left in their place (`ReferenceFolder`).
///
/// Escaped HTML (`&lt;p&gt;One &amp; two&lt;/p&gt;`) is most of a large feed, and libxml2 reads it slowly:
/// a name lookup and a callback for every reference, and character by character once the text is not
/// ASCII. A run of text (up to the next tag or newline) is decoded here in one pass instead, exactly as
/// libxml2 would have reported it (the five predefined references, numeric ones, HTML named entities, CR as
/// LF); a run libxml2 might read any other way (an invalid reference, a literal `>`) is left to it. A CDATA
/// section on one line is a run too, kept as written (libxml2 reads those character by character).
///
/// In its place libxml2 reads `&#xE000;`, a character reference it reports as U+E000 with one callback, and
/// after any error too (it drops only entity references then). The C `characters` callback
/// (`watcher_capture_characters`) takes a U+E000 that ends where a run's reference ends
/// (`xmlByteConsumed`) for that run; any other U+E000 is text. A run libxml2 never reports is passed over,
/// never taken for the next. Should a broken document have libxml2 read the reference inside a comment, a
/// CDATA section or a processing instruction the lexer did not see, it is swallowed there as the run would
/// have been (the run held no `>`, so it could not have ended one); inside an attribute value, the value
/// gets U+E000 where it would have had the run.
final class TextRuns {
  /// Where the C callback finds the runs (`watcher_capture`'s `runs`, `run_count`, `run_head` and
  /// `run_bytes`), kept in step with the storage here.
  private let capture: UnsafeMutablePointer<watcher_capture>
  /// The decoded runs, one after the other, and their entries.
  private var bytes: UnsafeMutablePointer<UInt8>?
  private var count = 0
  private var capacity = 0
  private var entries: UnsafeMutablePointer<watcher_run>?
  private var entryCapacity = 0
  /// The most decoded bytes kept: past this, runs are left to libxml2 (only if references go unread).
  private static let maxBytes = 4 << 20

  init(capture: UnsafeMutablePointer<watcher_capture>) {
    self.capture = capture
  }

  deinit {
    free(bytes)
    free(entries)
  }

  /// Lets go of the runs libxml2 has reported or passed over, moving the rest to the front.
  func reclaim() {
    let head = capture.pointee.run_head
    guard head > 0, let entries, let bytes else { return }
    let left = capture.pointee.run_count - head
    if left > 0 {
      let first = entries[head].start
      memmove(bytes, bytes + first, count - first)
      for k in 0..<left {
        entries[k] = entries[head + k]
        entries[k].start -= first
      }
      count -= first
    } else {
      count = 0
    }
    capture.pointee.run_count = left
    capture.pointee.run_head = 0
  }

  /// Decodes `run` (text, no `<` or newline in it) and keeps it for the reference that will end at `end`;
  /// false, keeping nothing, when libxml2 might read it otherwise.
  ///
  /// A `literal` run (a CDATA section's content) is kept as written, not decoded.
  func add(_ run: UnsafeBufferPointer<UInt8>, referenceEnd end: Int, literal: Bool = false) -> Bool {
    guard count < Self.maxBytes, let source = run.baseAddress, !run.isEmpty else { return false }
    let n = run.count
    // Decoding never lengthens: every reference is longer than the UTF-8 it stands for.
    if count + n > capacity {
      let grown = max(count + n, capacity * 2, 16_384)
      guard let moved = realloc(bytes, grown) else { return false }
      bytes = moved.assumingMemoryBound(to: UInt8.self)
      capacity = grown
      capture.pointee.run_bytes = UnsafePointer(bytes)
    }
    let index = capture.pointee.run_count
    if index == entryCapacity {
      let grown = max(64, entryCapacity * 2)
      guard let moved = realloc(entries, grown * MemoryLayout<watcher_run>.stride) else { return false }
      entries = moved.assumingMemoryBound(to: watcher_run.self)
      entryCapacity = grown
      capture.pointee.runs = UnsafePointer(entries)
    }
    guard let bytes, let entries else { return false }
    let written = literal ? n : Self.decode(source, n, into: bytes + count)
    guard written >= 0 else { return false }
    if literal { memcpy(bytes + count, source, n) }
    entries[index] = watcher_run(start: count, count: written, end: end)
    count += written
    capture.pointee.run_count = index + 1
    return true
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

  /// The HTML entity named at `b[i]` (an `&`), with its `;`: its length and character, or nil.
  private static func entity(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> (Int, UInt32)? {
    var j = i &+ 1
    while j < b.count, j &- i <= 32 {
      let c = b[j]
      guard (c | 0x20 >= 97 && c | 0x20 <= 122) || (c >= 48 && c <= 57) else { break }
      j &+= 1
    }
    guard j > i &+ 1, j < b.count, b[j] == UInt8(ascii: ";") else { return nil }
    let name = String(decoding: UnsafeBufferPointer(rebasing: b[(i &+ 1)..<j]), as: UTF8.self)
    return HTMLEntities.scalar(named: name).map { (j &+ 1 &- i, $0) }
  }
}
