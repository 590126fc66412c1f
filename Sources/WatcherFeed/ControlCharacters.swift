// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport

/// Removes terminal control characters from feed text, so that a feed cannot drive the terminal that
/// shows it (`watcher parse`, `test-rules`, logs) or the programs a hook passes its text to.
///
/// C0 controls other than tab, newline and carriage return, DEL, and the C1 controls U+0080–U+009F
/// (U+009B is a one-character CSI to many terminals) become spaces. XML 1.0 forbids the C0 ones already,
/// but JSON Feed can spell them (`\u001b`), and XML allows C1. One pass over the UTF-8; strings without
/// any are not copied.
package enum ControlCharacters {
  /// `text` with every control character replaced by a space.
  package static func replaced(_ text: String) -> String {
    guard contains(text) else { return text }
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      out.append(isControl(scalar) ? " " : scalar)
    }
    return String(out)
  }

  /// Whether `text` has a control character: sixteen bytes at a time, looking closer only at a C0 control
  /// other than tab, newline and return, DEL, or 0xC2 (the lead byte of U+0080–U+00BF).
  ///
  /// Sixty-four bytes with no C0 byte, DEL or 0xC2 at all (three tests each) are passed first; the exact
  /// test, which sets tab, newline and return apart, runs from the first block with one.
  @inline(__always)  // as it was before it read a `Span`: out of line, each field was retained around the call
  package static func contains(_ text: String) -> Bool {
    text.withUTF8Span { bytes in
      let count = bytes.count
      var i = 0
      while true {
        i = clearBlocksEnd(bytes, from: i)
        // The exact test for one block, then back to passing blocks.
        let limit = min(count, i + 64)
        i = ByteScanning.firstIndex(
          in: bytes.extracting(..<limit), from: i,
          vector: { v in
            let splat = ByteScanning.splat
            return ((v .< splat(0x20)) .& (v .!= splat(0x09)) .& (v .!= splat(0x0A)) .& (v .!= splat(0x0D)))
              .| (v .== splat(0x7F)) .| (v .== splat(0xC2))
          },
          byte: { b in (b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D) || b == 0x7F || b == 0xC2 })
        if i == limit {
          if limit == count { return false }
          continue
        }
        // 0xC2 starts a C1 control only before 0x80–0x9F.
        if bytes[i] != 0xC2 || (i + 1 < count && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9F) { return true }
        i += 1
      }
    }
  }

  /// Where the run of sixty-four-byte blocks from `start` with no C0 byte, DEL or 0xC2 ends.
  @inline(__always)
  private static func clearBlocksEnd(_ bytes: Span<UInt8>, from start: Int) -> Int {
    let splat = ByteScanning.splat
    @inline(__always) func rough(_ v: ByteScanning.Vector) -> ByteScanning.Lanes {
      (v .< splat(0x20)) .| (v .== splat(0x7F)) .| (v .== splat(0xC2))
    }
    var i = start
    while i &+ 64 <= bytes.count {
      let lanes =
        rough(ByteScanning.load(bytes, i)) .| rough(ByteScanning.load(bytes, i &+ 16))
        .| rough(ByteScanning.load(bytes, i &+ 32)) .| rough(ByteScanning.load(bytes, i &+ 48))
      if ByteScanning.firstLane(lanes) != nil { break }
      i &+= 64
    }
    return i
  }

  private static func isControl(_ s: Unicode.Scalar) -> Bool {
    let v = s.value
    return (v < 0x20 && v != 0x09 && v != 0x0A && v != 0x0D) || (v >= 0x7F && v <= 0x9F)
  }

  /// Applies `replaced` to every text field of `feed` and of its items.
  package static func clean(_ feed: inout Feed) {
    feed.title = feed.title.map(replaced)
    feed.link = feed.link.map(replaced)
    for index in feed.items.indices { clean(&feed.items[index]) }
  }

  /// Applies `replaced` to every text field of `item`; a field without control characters is not touched.
  package static func clean(_ item: inout FeedItem) {
    clean(&item.id)
    clean(&item.title)
    clean(&item.link)
    clean(&item.author)
    if item.categories.contains(where: contains) { item.categories = item.categories.map(replaced) }
    clean(&item.text)
    clean(&item.html)
    clean(&item.image)
  }

  private static func clean(_ field: inout String?) {
    if let value = field, contains(value) { field = replaced(value) }
  }
}
