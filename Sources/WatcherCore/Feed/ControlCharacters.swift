// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Removes terminal control characters from feed text, so that a feed cannot drive the terminal that
/// shows it (`watcher parse`, `test-rules`, logs) or the programs a hook passes its text to.
///
/// C0 controls other than tab, newline and carriage return, DEL, and the C1 controls U+0080–U+009F
/// (U+009B is a one-character CSI to many terminals) become spaces. XML 1.0 forbids the C0 ones already,
/// but JSON Feed can spell them (`\u001b`), and XML allows C1. One pass over the UTF-8; strings without
/// any are not copied.
enum ControlCharacters {
  /// `text` with every control character replaced by a space.
  static func replaced(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }), needsReplacing(text) else {
      return text
    }
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      out.append(isControl(scalar) ? " " : scalar)
    }
    return String(out)
  }

  private static func needsReplacing(_ text: String) -> Bool { text.unicodeScalars.contains(where: isControl) }

  private static func isControl(_ s: Unicode.Scalar) -> Bool {
    let v = s.value
    return (v < 0x20 && v != 0x09 && v != 0x0A && v != 0x0D) || (v >= 0x7F && v <= 0x9F)
  }

  /// Applies `replaced` to every text field of `feed` and of its items.
  static func clean(_ feed: inout Feed) {
    feed.title = feed.title.map(replaced)
    feed.link = feed.link.map(replaced)
    for index in feed.items.indices {
      feed.items[index].id = feed.items[index].id.map(replaced)
      feed.items[index].title = feed.items[index].title.map(replaced)
      feed.items[index].link = feed.items[index].link.map(replaced)
      feed.items[index].author = feed.items[index].author.map(replaced)
      feed.items[index].categories = feed.items[index].categories.map(replaced)
      feed.items[index].text = feed.items[index].text.map(replaced)
      feed.items[index].html = feed.items[index].html.map(replaced)
      feed.items[index].image = feed.items[index].image.map(replaced)
    }
  }
}
