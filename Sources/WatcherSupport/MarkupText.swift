// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Plain text made safe to put inside HTML-like markup: `&`, `<` and `>` escaped, nothing else touched.
public enum MarkupText {
  /// `text` with `&`, `<` and `>` as `&amp;`, `&lt;` and `&gt;`.
  public static func escape(_ text: String) -> String {
    // By bytes (the three are ASCII, never inside a multi-byte sequence); most text has none of them.
    var text = text
    return text.withUTF8 { bytes in
      guard bytes.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E }) else { return nil }
      var out = [UInt8]()
      out.reserveCapacity(bytes.count + 16)
      for byte in bytes {
        switch byte {
        case 0x26: out += [0x26, 0x61, 0x6D, 0x70, 0x3B]  // &amp;
        case 0x3C: out += [0x26, 0x6C, 0x74, 0x3B]  // &lt;
        case 0x3E: out += [0x26, 0x67, 0x74, 0x3B]  // &gt;
        default: out.append(byte)
        }
      }
      return String(decoding: out, as: UTF8.self)
    } ?? text
  }
}
