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

  /// Whether `text` has a control character: eight bytes at a time, looking closer only at words with a
  /// C0 control or DEL (tab, newline and return are let through in the word test), or 0xC2 (the lead
  /// byte of U+0080–U+00BF).
  package static func contains(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      guard let base = bytes.baseAddress else { return false }
      let count = bytes.count
      func isControl(at j: Int) -> Bool {
        let b = bytes[j]
        if b < 0x20 { return b != 0x09 && b != 0x0A && b != 0x0D }
        if b == 0x7F { return true }
        return b == 0xC2 && j + 1 < count && bytes[j + 1] >= 0x80 && bytes[j + 1] <= 0x9F
      }
      var i = 0
      while i + 8 <= count {
        let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
        // A quick test first (any byte below 0x20, DEL or 0xC2), then the exact one.
        if ByteScanning.hasByteBelow(word, 0x20) || ByteScanning.hasByte(word, 0x7F)
          || ByteScanning.hasByte(word, 0xC2),
          ByteScanning.controlBytes(word) != 0 || ByteScanning.hasByte(word, 0xC2)
        {
          for j in i..<(i + 8) where isControl(at: j) { return true }
        }
        i += 8
      }
      while i < count {
        if isControl(at: i) { return true }
        i += 1
      }
      return false
    }
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
