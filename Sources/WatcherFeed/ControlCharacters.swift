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
  package static func contains(_ text: String) -> Bool {
    text.withUTF8Bytes { bytes in
      let count = bytes.count
      var i = 0
      while true {
        i = ByteScanning.firstIndex(
          in: bytes, from: i,
          vector: { v in
            let splat = ByteScanning.splat
            return ((v .< splat(0x20)) .& (v .!= splat(0x09)) .& (v .!= splat(0x0A)) .& (v .!= splat(0x0D)))
              .| (v .== splat(0x7F)) .| (v .== splat(0xC2))
          },
          byte: { b in (b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D) || b == 0x7F || b == 0xC2 })
        guard i < count else { return false }
        // 0xC2 starts a C1 control only before 0x80–0x9F.
        if bytes[i] != 0xC2 || (i + 1 < count && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9F) { return true }
        i += 1
      }
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
