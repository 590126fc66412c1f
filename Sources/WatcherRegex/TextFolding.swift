// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Case folding for case-insensitive matching: "É" matches "é", "ß" matches "ss", "ﬁ" matches "fi".
///
/// Unicode lowercasing per character followed by the full case foldings that lowercasing does not do
/// (CaseFolding.txt status F and the final sigma). Foundation's `folding(options:)` gives the same results
/// but is about fifty times slower, and matching folds every item field.
public enum TextFolding {
  /// `text` folded for comparison.
  public static func fold(_ text: String) -> String { foldReportingASCII(text).folded }

  /// `text` folded, and whether it was all ASCII (then every byte offset is the same in both).
  ///
  /// One pass over the UTF-8: ASCII through a table, two-byte characters (Latin, Greek, Cyrillic, …)
  /// through a table built once, longer ones through Unicode's lowercase mapping when they have one.
  package static func foldReportingASCII(_ text: String) -> (folded: String, ascii: Bool) {
    var copy = text
    return copy.withUTF8 { bytes -> (String, Bool) in
      var ascii = true
      var changed = false
      for byte in bytes {
        if byte >= 0x80 {
          ascii = false
          break
        }
        if byte >= 65 && byte <= 90 { changed = true }
      }
      if ascii && !changed { return (text, true) }
      // Written straight into the string's storage: no character folds to more than three times its
      // UTF-8 length (the longest is U+0130, two bytes to three).
      let folded = String(unsafeUninitializedCapacity: bytes.count * 3 + 4) { out in
        var o = 0
        @inline(__always) func put(_ mapped: [UInt8]) {
          for byte in mapped {
            out[o] = byte
            o += 1
          }
        }
        var i = 0
        let n = bytes.count
        while i < n {
          let c = bytes[i]
          if c < 0x80 {
            out[o] = c >= 65 && c <= 90 ? c | 0x20 : c
            o += 1
            i += 1
          } else if c >= 0xC2 && c <= 0xDF && i + 1 < n && bytes[i + 1] & 0xC0 == 0x80 {
            let scalar = Int(c & 0x1F) << 6 | Int(bytes[i + 1] & 0x3F)
            if let mapped = twoByteTable[scalar - 0x80] {
              put(mapped)
            } else {
              out[o] = c
              out[o + 1] = bytes[i + 1]
              o += 2
            }
            i += 2
          } else {
            // Three- and four-byte characters: decode, map if the character has a lowercase form.
            var iterator = bytes[i...].makeIterator()
            var decoder = UTF8()
            guard case .scalarValue(let scalar) = decoder.decode(&iterator) else {
              out[o] = c
              o += 1
              i += 1
              continue
            }
            let length = UTF8.width(scalar)
            if let folded = foldScalar(scalar) {
              put(folded)
            } else {
              for k in i..<min(n, i + length) {
                out[o] = bytes[k]
                o += 1
              }
            }
            i += length
          }
        }
        return o
      }
      return (folded, ascii)
    }
  }

  /// The folded UTF-8 of U+0080–U+07FF, or `nil` where a character folds to itself.
  private static let twoByteTable: [[UInt8]?] = (0x80..<0x800).map { value in
    guard let scalar = Unicode.Scalar(value) else { return nil }
    return foldScalar(scalar)
  }

  /// The folded UTF-8 of one scalar, or `nil` when it folds to itself.
  private static func foldScalar(_ scalar: Unicode.Scalar) -> [UInt8]? {
    if let replacement = special(scalar) { return Array(replacement.utf8) }
    guard scalar.properties.changesWhenLowercased else { return nil }
    var lower = ""
    for mapped in scalar.properties.lowercaseMapping.unicodeScalars {
      if let replacement = special(mapped) { lower += replacement } else { lower.unicodeScalars.append(mapped) }
    }
    return Array(lower.utf8)
  }

  /// The full folding of a scalar when lowercasing is not enough (CaseFolding.txt status F, and
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
