// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CWatcherXML
import FoundationEssentials
import Glibc
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Turns a feed's bytes into clean UTF-8, whatever they were written in.
///
/// The encoding is taken from, in order: a byte-order mark; the UTF-16 shape of `<?xml`; the XML
/// declaration's `encoding`; the caller's hint (the HTTP `charset`); else UTF-8. The document's own
/// declaration wins over the HTTP header because it is written by the software that wrote the bytes, while
/// the header is often a server default. ISO-8859-1 and US-ASCII are read as windows-1252, GB2312 as
/// GB18030, TIS-620 as windows-874, Shift_JIS as windows-31J (0x5C is a backslash), ISO-8859-9 as windows-1254 and
/// EUC-KR as windows-949: their supersets, as browsers read them (the WHATWG Encoding Standard).
///
/// Invalid bytes never stop parsing: in UTF-8 each invalid byte is read as windows-1252 (the usual cause is
/// Latin-1 text pasted into a UTF-8 feed), elsewhere it becomes U+FFFD, and one warning says so. Control
/// characters that XML forbids become spaces. The XML parser then reads the result as UTF-8 and ignores the
/// declaration (`XML_PARSE_IGNORE_ENC`).
package enum InputDecoder {
  /// The encoding of a document, decided from its first bytes (see the type's documentation), and the length
  /// of its byte-order mark.
  package static func sniff(_ input: Span<UInt8>, charsetHint: String?) -> (encoding: String, bomLength: Int) {
    input.withUnsafeBufferPointer { sniff(buffer: $0, charsetHint: charsetHint) }
  }

  static func sniff(buffer input: UnsafeBufferPointer<UInt8>, charsetHint: String?) -> (
    encoding: String, bomLength: Int
  ) {
    var declared: String?
    var bom = 0
    if input.starts(with: [0xEF, 0xBB, 0xBF]) {
      bom = 3
      declared = "utf-8"
    } else if input.starts(with: [0x00, 0x00, 0xFE, 0xFF]) || input.starts(with: [0x00, 0x00, 0x00, 0x3C]) {
      declared = "utf-32be"
      bom = input.starts(with: [0x00, 0x00, 0xFE, 0xFF]) ? 4 : 0
    } else if input.starts(with: [0xFF, 0xFE, 0x00, 0x00]) || input.starts(with: [0x3C, 0x00, 0x00, 0x00]) {
      declared = "utf-32le"
      bom = input.starts(with: [0xFF, 0xFE, 0x00, 0x00]) ? 4 : 0
    } else if input.starts(with: [0xFF, 0xFE]) {
      declared = "utf-16le"
      bom = 2
    } else if input.starts(with: [0xFE, 0xFF]) {
      declared = "utf-16be"
      bom = 2
    } else if let utf16 = sniffUTF16(input) {
      declared = utf16
    }
    if declared == nil {
      declared = declaredEncoding(in: input)
      // An ASCII-readable prolog cannot really be UTF-16 or UTF-32.
      if let d = declared,
        d.hasPrefix("utf-16") || d.hasPrefix("utf16") || d.hasPrefix("utf-32")
          || d.hasPrefix("ucs-4") || d.hasPrefix("iso-10646-ucs-4") || d == "csucs4"
      {
        declared = "utf-8"
      }
    }
    return (canonicalName(declared ?? charsetHint ?? "utf-8"), bom)
  }

  /// Converts a whole document from `encoding` to UTF-8 with iconv, or says why it could not.
  package static func convert(_ input: Span<UInt8>, from encoding: String) -> (bytes: [UInt8], warning: FeedWarning?) {
    input.withUnsafeBufferPointer { convert(buffer: $0, from: encoding) }
  }

  static func convert(buffer input: UnsafeBufferPointer<UInt8>, from encoding: String) -> (
    bytes: [UInt8], warning: FeedWarning?
  ) {
    if let (bytes, bad) = iconvToUTF8(input, from: encoding) {
      let warning =
        bad > 0 ? FeedWarning(message: "\(bad) byte(s) could not be read as \(encoding) and were replaced") : nil
      return (bytes, warning)
    }
    return (
      Array(input), FeedWarning(message: "unknown encoding '\(encoding)'; reading the document as UTF-8")
    )
  }

  /// Whether `bytes` is valid UTF-8 with at least one multi-byte character.
  package static func isMultibyteUTF8(_ bytes: Span<UInt8>) -> Bool {
    bytes.withUnsafeBufferPointer { isMultibyteUTF8(buffer: $0) }
  }

  static func isMultibyteUTF8(buffer bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var sawMultibyte = false
    var i = 0
    while i < bytes.count {
      if bytes[i] < 0x80 {
        i += 1
        continue
      }
      let length = sequenceLength(bytes, at: i)
      guard length > 0 else { return false }
      sawMultibyte = true
      i += length
    }
    return sawMultibyte
  }

  /// UTF-16 without a byte-order mark, told by the zero bytes around ASCII `<` (XML 1.0 appendix F).
  static func sniffUTF16(_ input: UnsafeBufferPointer<UInt8>) -> String? {
    guard input.count >= 4 else { return nil }
    var i = 0
    // Skip UTF-16 whitespace before the first `<`.
    while i + 1 < input.count, i < 64,
      (input[i] == 0 && (input[i + 1] == 32 || input[i + 1] == 10 || input[i + 1] == 13))
        || (input[i + 1] == 0 && (input[i] == 32 || input[i] == 10 || input[i] == 13))
    {
      i += 2
    }
    guard i + 3 < input.count else { return nil }
    if input[i] == 0, input[i + 1] == UInt8(ascii: "<"), input[i + 2] == 0, input[i + 3] != 0 { return "utf-16be" }
    if input[i] == UInt8(ascii: "<"), input[i + 1] == 0, input[i + 2] != 0, input[i + 3] == 0 { return "utf-16le" }
    return nil
  }

  /// Undoes the commonest mojibake: UTF-8 that was read as Latin-1 and written out again as UTF-8 ("CafÃ©").
  ///
  /// When every non-ASCII character of `bytes` is in U+0080–U+00FF and their Latin-1 bytes are valid UTF-8, returns
  /// those bytes; otherwise `nil`. feedparser applies the same repair.
  static func undoDoubleEncoding(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    // Checked as it is decoded, without a copy: real text is told apart at its first non-ASCII character
    // ("São" is 0xC3 0xA3, which as Latin-1 is the lead byte 0xE3 of a three-byte sequence, followed here
    // by an ASCII "o"), so only true mojibake is ever copied.
    var i = ByteScanning.firstNonASCII(in: bytes.span)
    guard i < bytes.count else { return nil }
    /// The Latin-1 byte that the pair at `at` spells, if it is one.
    @inline(__always) func latin1(at: Int) -> UInt8? {
      let c = bytes[at]
      guard c == 0xC2 || c == 0xC3, at + 1 < bytes.count, bytes[at + 1] & 0xC0 == 0x80 else { return nil }
      return (c & 0x03) << 6 | (bytes[at + 1] & 0x3F)
    }
    while i < bytes.count {
      if bytes[i] < 0x80 {
        i = ByteScanning.firstNonASCII(in: bytes.span, from: i)
        continue
      }
      // A whole UTF-8 sequence, spelled as Latin-1 pairs: a lead byte, then its continuation bytes.
      guard let lead = latin1(at: i) else { return nil }
      let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0
      guard length > 0, lead <= 0xF4 else { return nil }
      var scalar = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
      i += 2
      for _ in 1..<length {
        guard i < bytes.count, let next = latin1(at: i), next & 0xC0 == 0x80 else { return nil }
        scalar = scalar << 6 | UInt32(next & 0x3F)
        i += 2
      }
      // No overlong forms, no surrogates, nothing past U+10FFFF.
      let smallest: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
      guard scalar >= smallest, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
        return nil
      }
    }
    var latin1: [UInt8] = []
    latin1.reserveCapacity(bytes.count)
    i = 0
    while i < bytes.count {
      let c = bytes[i]
      if c < 0x80 {
        latin1.append(c)
        i += 1
      } else {
        latin1.append((c & 0x03) << 6 | (bytes[i + 1] & 0x3F))
        i += 2
      }
    }
    return latin1
  }

  /// The `encoding` pseudo-attribute of the XML declaration in the first 1 KB, lowercased.
  static func declaredEncoding(in input: UnsafeBufferPointer<UInt8>) -> String? {
    let prefix = UnsafeBufferPointer(rebasing: input[0..<min(input.count, 1_024)])
    guard let declStart = find(Array("<?xml".utf8), in: prefix, from: 0),
      let declEnd = find(Array("?>".utf8), in: prefix, from: declStart)
    else { return nil }
    let decl = UnsafeBufferPointer(rebasing: prefix[declStart..<declEnd])
    guard let key = find(Array("encoding".utf8), in: decl, from: 0) else { return nil }
    var i = key + 8
    while i < decl.count, decl[i] == 32 || decl[i] == UInt8(ascii: "=") || decl[i] == 9 { i += 1 }
    guard i < decl.count, decl[i] == UInt8(ascii: "\"") || decl[i] == UInt8(ascii: "'") else { return nil }
    let quote = decl[i]
    var j = i + 1
    while j < decl.count, decl[j] != quote { j += 1 }
    let name = String(decoding: UnsafeBufferPointer(rebasing: decl[(i + 1)..<j]), as: UTF8.self)
    let trimmed = name.trimming(.spaces).lowercased()
    return trimmed.isEmpty ? nil : trimmed
  }

  /// The name we convert from: aliases folded, supersets chosen where browsers choose them.
  package static func canonicalName(_ name: String) -> String {
    let n = name.trimming(.spaces).trimming(.these("\"'"))
      .lowercased()
    switch n {
    case "utf-8", "utf8", "unicode-1-1-utf-8", "x-unicode20utf8": return "utf-8"
    case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "us-ascii", "ascii", "iso_8859-1", "cp1252",
      "x-cp1252", "windows-1252", "iso-8859-15x":
      return "windows-1252"
    case "gb2312", "gbk", "x-gbk", "gb_2312-80", "chinese": return "gb18030"
    // The WHATWG Encoding Standard's supersets: what browsers, and so the people who wrote the feed, read.
    case "tis-620", "tis620", "iso-8859-11", "iso8859-11", "dos-874", "windows-874", "cp874": return "cp874"
    case "shift_jis", "shift-jis", "sjis", "x-sjis", "ms_kanji", "csshiftjis", "windows-31j", "ms932", "cp932":
      return "cp932"
    case "iso-8859-9", "iso8859-9", "latin5", "l5", "windows-1254", "cp1254": return "windows-1254"
    case "euc-kr", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "korean", "windows-949", "cp949": return "cp949"
    case "utf-16", "utf16": return "utf-16le"
    default: return n
    }
  }

  private static func find(_ needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
    guard haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
    outer: for i in from...(haystack.count - needle.count) {
      for k in 0..<needle.count where haystack[i + k] | 0x20 != needle[k] | 0x20 { continue outer }
      return i
    }
    return nil
  }

  // MARK: - Repair

  /// The offset of the first byte that needs repair, or `nil`.
  ///
  /// Eight bytes at a time while they are ASCII with no control character but tab, newline and return.
  static func firstUnclean(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    let n = bytes.count
    guard let base = bytes.baseAddress else { return nil }
    var i = 0
    while i < n {
      if i + 8 <= n {
        let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
        // ASCII with no byte below 0x20 (a quick test, exact for ASCII), or with only tabs, newlines and
        // returns there (DEL counts as clean here, so take it back out of the control test).
        if word & 0x8080_8080_8080_8080 == 0
          && (!ByteScanning.hasByteBelow(word, 0x20)
            || ByteScanning.controlBytes(word) & ~ByteScanning.zeroBytes(word ^ 0x7F7F_7F7F_7F7F_7F7F) == 0)
        {
          i += 8
          continue
        }
      }
      let c = bytes[i]
      if c < 0x80 {
        if c < 0x20 && c != 9 && c != 10 && c != 13 { return i }
        i += 1
        continue
      }
      let length = sequenceLength(bytes, at: i)
      if length == 0 { return i }
      i += length
    }
    return nil
  }

  /// The length of the valid UTF-8 sequence at `i` (2–4), or 0 if it is invalid (overlong, surrogate,
  /// out of range, truncated).
  @inline(__always)
  static func sequenceLength(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
    guard let base = b.baseAddress else { return 0 }
    return watcher_utf8_length(base, i, b.count)
  }

  /// The character a windows-1252 byte stands for (undefined bytes map to U+FFFD).
  package static func windows1252(_ byte: UInt8) -> UInt32 {
    let table: [UInt32] = [
      0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152,
      0xFFFD, 0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122,
      0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
    ]
    return (0x80...0x9F).contains(byte) ? table[Int(byte - 0x80)] : UInt32(byte)
  }

  /// Appends the UTF-8 encoding of the scalar `v`.
  package static func appendUTF8(of v: UInt32, to out: inout [UInt8]) {
    switch v {
    case 0..<0x80: out.append(UInt8(v))
    case 0x80..<0x800:
      out.append(UInt8(0xC0 | (v >> 6)))
      out.append(UInt8(0x80 | (v & 0x3F)))
    case 0x800..<0x10000:
      out.append(UInt8(0xE0 | (v >> 12)))
      out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
      out.append(UInt8(0x80 | (v & 0x3F)))
    default:
      out.append(UInt8(0xF0 | (v >> 18)))
      out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
      out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
      out.append(UInt8(0x80 | (v & 0x3F)))
    }
  }

  // MARK: - iconv

  /// Converts with glibc's iconv; `nil` if iconv does not know the encoding.
  ///
  /// Each byte it cannot read becomes U+FFFD. The corresponding C functions are `iconv_open`, `iconv` and
  /// `iconv_close`.
  static func iconvToUTF8(_ input: UnsafeBufferPointer<UInt8>, from name: String) -> ([UInt8], Int)? {
    let cd = iconv_open("UTF-8", name.uppercased())
    guard let cd, Int(bitPattern: cd) != -1 else { return nil }
    defer { iconv_close(cd) }
    var out = [UInt8](repeating: 0, count: max(64, input.count * 3 + 16))
    var bad = 0
    var produced = 0
    guard let inBase = input.baseAddress else { return ([], 0) }
    var inPtr = UnsafeMutablePointer(mutating: UnsafeRawPointer(inBase).assumingMemoryBound(to: CChar.self))
    var inLeft = input.count
    while inLeft > 0 {
      if out.count - produced < 16 { out.append(contentsOf: [UInt8](repeating: 0, count: out.count)) }
      let result: Int = out.withUnsafeMutableBytes { raw in
        guard let outBase = raw.baseAddress else { return Int(EINVAL) }
        var outPtr: UnsafeMutablePointer<CChar>? = outBase.advanced(by: produced).assumingMemoryBound(to: CChar.self)
        var outLeft = raw.count - produced
        var inOpt: UnsafeMutablePointer<CChar>? = inPtr
        let r = iconv(cd, &inOpt, &inLeft, &outPtr, &outLeft)
        produced = raw.count - outLeft
        if let advanced = inOpt { inPtr = advanced }
        return r == -1 ? Int(errno) : 0
      }
      if result == E2BIG {
        continue
      } else if result == EILSEQ || result == EINVAL {
        // Skip one unreadable byte and mark it.
        bad += 1
        inPtr += 1
        inLeft -= 1
        if out.count - produced < 3 { out.append(contentsOf: [UInt8](repeating: 0, count: out.count)) }
        out[produced] = 0xEF
        out[produced + 1] = 0xBF
        out[produced + 2] = 0xBD
        produced += 3
        iconv(cd, nil, nil, nil, nil)
      } else if result != 0 {
        return nil
      }
    }
    out.removeLast(out.count - produced)
    return (out, bad)
  }
}
