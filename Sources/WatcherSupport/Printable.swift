// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Text from outside (a feed, a page, a hook's stderr) made safe to show on a terminal.
///
/// Every control character (C0, DEL, C1, and the line and paragraph separators U+2028/U+2029) becomes a
/// space, so the text cannot drive the terminal (escape sequences, CSI as the one-byte C1 `U+009B`) or forge
/// a line. `lines` keeps line breaks (`\n`) for text that is several lines.
public enum Printable {
  /// `text` as one line.
  public static func line(_ text: String) -> String { clean(text, keepingLines: false) }

  /// `text` with its line breaks kept.
  public static func lines(_ text: String) -> String { clean(text, keepingLines: true) }

  private static func clean(_ text: String, keepingLines: Bool) -> String {
    func isControl(_ scalar: Unicode.Scalar) -> Bool {
      if keepingLines, scalar == "\n" { return false }
      return scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
        || scalar.value == 0x2029
    }
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    return String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? " " : $0 }))
  }
}
