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
    guard mayNeedSpecials(lower) else { return lower }
    var out = ""
    out.reserveCapacity(lower.utf8.count + 8)
    var changed = false
    for scalar in lower.unicodeScalars {
      if let replacement = special(scalar) {
        out += replacement
        changed = true
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return changed ? out : lower
  }

  /// Whether the UTF-8 of `text` has a lead byte of any special scalar (C3 ß, C5 ŉ, C7 ǰ, CF ς, D6 և,
  /// E1 ẖ–ẞ, EF ligatures): a cheap scan that lets most strings skip the scalar walk.
  private static func mayNeedSpecials(_ text: String) -> Bool {
    for byte in text.utf8 where byte >= 0xC3 {
      switch byte {
      case 0xC3, 0xC5, 0xC7, 0xCF, 0xD6, 0xE1, 0xEF: return true
      default: continue
      }
    }
    return false
  }

  /// The full folding of a lowercase scalar when lowercasing is not enough (CaseFolding.txt status F, and
  /// the final sigma), else `nil`.
  @inline(__always)
  private static func special(_ scalar: Unicode.Scalar) -> String? {
    switch scalar.value {
    case 0xDF, 0x1E9E: return "ss"
    case 0xFB00: return "ff"
    case 0xFB01: return "fi"
    case 0xFB02: return "fl"
    case 0xFB03: return "ffi"
    case 0xFB04: return "ffl"
    case 0xFB05, 0xFB06: return "st"
    case 0x3C2: return "\u{3C3}"
    case 0x149: return "\u{2BC}n"
    case 0x1F0: return "j\u{30C}"
    case 0x587: return "\u{565}\u{582}"
    case 0x1E96: return "h\u{331}"
    case 0x1E97: return "t\u{308}"
    case 0x1E98: return "w\u{30A}"
    case 0x1E99: return "y\u{30A}"
    case 0x1E9A: return "a\u{2BE}"
    default: return nil
    }
  }
}
