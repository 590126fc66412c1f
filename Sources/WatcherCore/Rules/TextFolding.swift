// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Case folding for case-insensitive matching: "É" matches "é", "ß" matches "ss", "ﬁ" matches "fi".
///
/// Swift's `lowercased()` (full Unicode lowercasing, fast) followed by the full case foldings that
/// lowercasing does not do (CaseFolding.txt status F and the final sigma). Foundation's `folding(options:)`
/// gives the same results but is about fifty times slower, and matching folds every item field.
public enum TextFolding {
  /// `text` folded for comparison.
  public static func fold(_ text: String) -> String {
    let lower = text.lowercased()
    var needsMore = false
    for scalar in lower.unicodeScalars where scalar.value >= 0xDF {
      if specials[scalar] != nil {
        needsMore = true
        break
      }
    }
    guard needsMore else { return lower }
    var out = ""
    out.reserveCapacity(lower.utf8.count + 8)
    for scalar in lower.unicodeScalars {
      if let replacement = specials[scalar] {
        out += replacement
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// Full foldings beyond lowercasing.
  private static let specials: [Unicode.Scalar: String] = [
    "\u{DF}": "ss", "\u{1E9E}": "ss", "\u{FB00}": "ff", "\u{FB01}": "fi", "\u{FB02}": "fl", "\u{FB03}": "ffi",
    "\u{FB04}": "ffl", "\u{FB05}": "st", "\u{FB06}": "st", "\u{3C2}": "\u{3C3}", "\u{149}": "\u{2BC}n",
    "\u{1F0}": "j\u{30C}", "\u{587}": "\u{565}\u{582}", "\u{1E96}": "h\u{331}", "\u{1E97}": "t\u{308}",
    "\u{1E98}": "w\u{30A}", "\u{1E99}": "y\u{30A}", "\u{1E9A}": "a\u{2BE}",
  ]
}
