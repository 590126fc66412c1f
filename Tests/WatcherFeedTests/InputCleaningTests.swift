// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport
import WatcherTestSupport

@testable import WatcherFeed
@testable import WatcherXML

/// The streaming input cleaner must give the same bytes however the input is cut into chunks.
@Suite("Input cleaning")
struct InputCleaningTests {
  static let samples: [[UInt8]] = [
    Array("<rss>caf\u{E9} \u{1F600} Fish & Chips &amp; &eacute; &#233; &#x2014; &unknown; &amp</rss>".utf8),
    Array("  junk <a>\u{4E16}\u{754C} a=1&b=2 &lt;p&gt;</a>".utf8),
    [0x3C, 0x61, 0x3E, 0xE9, 0x20, 0xC3, 0xA9, 0xFF, 0x01, 0x26, 0x20, 0xF0, 0x9F, 0x98, 0x80, 0x3C, 0x2F, 0x61, 0x3E],
  ]

  static func clean(_ input: [UInt8], chunkSize: Int) -> [UInt8] {
    var repairer = UTF8ChunkRepairer()
    var out: [UInt8] = []
    var offset = 0
    repeat {
      let end = min(input.count, offset + chunkSize)
      input[offset..<end].withUnsafeBufferPointer { chunk in
        repairer.process(chunk.span, isLast: end == input.count) { out.append(bytes: $0) }
      }
      offset = end
    } while offset < input.count
    return out
  }

  @Test("chunk boundaries do not change the result", arguments: samples.indices)
  func chunking(_ index: Int) {
    let input = Self.samples[index]
    let whole = Self.clean(input, chunkSize: input.count)
    for size in 1..<input.count {
      #expect(Self.clean(input, chunkSize: size) == whole, "chunk size \(size)")
    }
  }

  @Test("bare ampersands and unknown entities are escaped, known references kept")
  func ampersands() {
    let out = String(decoding: Self.clean(Self.samples[0], chunkSize: 1_000), as: UTF8.self)
    #expect(
      out
        == "<rss>caf\u{E9} \u{1F600} Fish &amp; Chips &amp; &eacute; &#233; &#x2014; &amp;unknown; &amp;amp</rss>")
  }

  @Test("invalid bytes become windows-1252 characters and controls become spaces; junk before '<' is dropped")
  func repairs() {
    let out = String(decoding: Self.clean(Self.samples[2], chunkSize: 1_000), as: UTF8.self)
    #expect(out == "<a>\u{E9} \u{E9}\u{FF} &amp; \u{1F600}</a>")
    let junk = String(decoding: Self.clean(Self.samples[1], chunkSize: 3), as: UTF8.self)
    #expect(junk.hasPrefix("<a>"))
  }

  @Test("the encoding comes from the BOM, then the declaration, then the caller's hint")
  func sniffing() {
    func sniff(_ bytes: [UInt8], hint: String? = nil) -> String {
      InputDecoder.sniff(bytes.span, charsetHint: hint).encoding
    }
    #expect(sniff(Array("<?xml version='1.0' encoding='KOI8-R'?><rss/>".utf8), hint: "utf-8") == "koi8-r")
    #expect(sniff(Array("<?xml version='1.0'?><rss/>".utf8), hint: "ISO-8859-1") == "windows-1252")
    #expect(sniff(Array("<rss/>".utf8), hint: "gb2312") == "gb18030")
    #expect(sniff(Array("<rss/>".utf8)) == "utf-8")
    #expect(sniff([0xEF, 0xBB, 0xBF] + Array("<?xml encoding='latin1'?>".utf8)) == "utf-8")
    #expect(sniff([0xFF, 0xFE, 0x3C, 0x00]) == "utf-16le")
    #expect(sniff([0x00, 0x3C, 0x00, 0x72]) == "utf-16be")
    #expect(sniff(Array("<?xml version='1.0' encoding='UTF-16'?><rss/>".utf8)) == "utf-8")
  }

  @Test("the HTTP charset is used when the document declares none")
  func charsetHint() throws {
    let latin1 =
      Array("<rss version=\"2.0\"><channel><title>Caf".utf8) + [0xE9] + Array("</title></channel></rss>".utf8)
    let parsed = try FeedParser.parse(Data(latin1), options: .init(charset: "iso-8859-1"))
    #expect(parsed.feed.title == "Caf\u{E9}")
    #expect(parsed.warnings.isEmpty)
  }

  @Test(
    "legacy encodings are read as the supersets browsers use",
    arguments: [
      // TIS-620 as windows-874: curly quotes at 0x93 and 0x94 (real Thai feeds use them).
      ("tis-620", [0x93, 0xA1, 0x94], "\u{201C}\u{0E01}\u{201D}"),
      // Shift_JIS as windows-31J: 0x5C is a backslash, not a yen sign; NEC extensions decode.
      ("Shift_JIS", [0x5C, 0x31, 0x30, 0x87, 0x40], "\\10\u{2460}"),
      // ISO-8859-9 as windows-1254: 0x80 is the euro sign.
      ("ISO-8859-9", [0x80, 0xDD], "\u{20AC}\u{0130}"),
      // EUC-KR as windows-949: a syllable outside KS X 1001 (UHC's extended range).
      ("euc-kr", [0x81, 0x41], "\u{AC02}"),
    ] as [(String, [UInt8], String)])
  func supersets(label: String, bytes: [UInt8], expected: String) throws {
    let document =
      Array("<?xml version=\"1.0\" encoding=\"\(label)\"?><rss version=\"2.0\"><channel><title>".utf8) + bytes
      + Array("</title></channel></rss>".utf8)
    let parsed = try FeedParser.parse(Data(document))
    #expect(parsed.feed.title == expected)
    #expect(parsed.warnings.isEmpty, "\(parsed.warnings)")
  }

  @Test("the eight-bytes-at-a-time tests mark exactly the bytes a byte-by-byte test does")
  func wordTests() {
    let others: [UInt8] = [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x61, 0x7E, 0x7F, 0x80, 0xC2, 0xFF]
    func isControl(_ b: UInt8) -> Bool { (b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D) || b == 0x7F }
    for byte in 0...255 {
      for position in 0..<8 {
        for other in others {
          var bytes = [UInt8](repeating: other, count: 8)
          bytes[position] = UInt8(byte)
          let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
          var zeros: UInt64 = 0
          var controls: UInt64 = 0
          for (k, b) in bytes.enumerated() {
            if b == 0 { zeros |= 0x80 << (8 * UInt64(k)) }
            if isControl(b) { controls |= 0x80 << (8 * UInt64(k)) }
          }
          #expect(ByteScanning.zeroBytes(word) == zeros, "\(bytes)")
          #expect(ByteScanning.controlBytes(word) == controls, "\(bytes)")
        }
      }
    }
  }

  @Test("the fast scan for bytes to repair agrees with a byte-by-byte one at every position")
  func uncleanScan() {
    let fillers: [[UInt8]] = [[0x61], [0x0A], [0x09], [0x0D], [0x7F], [0xC3, 0xA9], [0xE6, 0x97, 0xA5]]
    let bad: [[UInt8]] = [[0x00], [0x01], [0x1B], [0x1F], [0xFF], [0xC3], [0xED, 0xA0, 0x80]]
    for length in 0..<20 {
      let base = (0..<length).flatMap { fillers[$0 % fillers.count] }
      #expect(base.withUnsafeBufferPointer(InputDecoder.firstUnclean) == nil, "\(base)")
      for position in 0...base.count {
        for b in bad {
          var input = base
          input.insert(contentsOf: b, at: position)
          // A bad byte inside a multi-byte character breaks that character first.
          let found = input.withUnsafeBufferPointer(InputDecoder.firstUnclean)
          #expect(found != nil && found! <= position, "\(input)")
        }
      }
    }
  }

  /// The input cleaner written plainly, a byte at a time, on the whole input: what the one-pass, sixteen-bytes-at-
  /// a-time cleaner must give.
  static func cleanPlainly(_ input: [UInt8]) -> [UInt8] {
    guard let lt = input.firstIndex(of: UInt8(ascii: "<")) else { return [] }
    let b = Array(input[lt...])
    func isNameByte(_ c: UInt8) -> Bool {
      (c | 0x20) >= 97 && (c | 0x20) <= 122 || (48...57).contains(c) || c == 95 || c == 45 || c == 46 || c >= 0x80
    }
    func isKnownReference(at i: Int) -> Bool {
      var j = i + 1
      if j < b.count, b[j] == UInt8(ascii: "#") {
        j += 1
        let hex = j < b.count && b[j] | 0x20 == UInt8(ascii: "x")
        if hex { j += 1 }
        let start = j
        while j < b.count, j - start < 8, (48...57).contains(b[j]) || (hex && (97...102).contains(b[j] | 0x20)) {
          j += 1
        }
        return j > start && j < b.count && b[j] == UInt8(ascii: ";")
      }
      let start = j
      while j < b.count, j - start <= 32, isNameByte(b[j]) { j += 1 }
      guard j > start, j < b.count, b[j] == UInt8(ascii: ";") else { return false }
      let name = String(decoding: b[start..<j], as: UTF8.self)
      return ["lt", "gt", "amp", "quot", "apos"].contains(name) || HTMLEntities.scalar(named: name) != nil
    }
    func startsWith(_ marker: String, at i: Int) -> Bool {
      let m = Array(marker.utf8)
      return i + m.count <= b.count && Array(b[i..<(i + m.count)]) == m
    }
    var out: [UInt8] = []
    var i = 0
    // Where `&` is text as written: inside a CDATA section (until `]]>`) or a comment (until `-->`).
    var sectionEnd: String?
    while i < b.count {
      let c = b[i]
      if let end = sectionEnd, startsWith(end, at: i) {
        sectionEnd = nil
        out += end.utf8
        i += end.utf8.count
        continue
      }
      if sectionEnd == nil, startsWith("<![CDATA[", at: i) || startsWith("<!--", at: i) {
        let start = startsWith("<!--", at: i) ? "<!--" : "<![CDATA["
        sectionEnd = start == "<!--" ? "-->" : "]]>"
        out += start.utf8
        i += start.utf8.count
        continue
      }
      if c == UInt8(ascii: "&"), sectionEnd != nil {
        out.append(c)
        i += 1
      } else if c == UInt8(ascii: "&") {
        out += isKnownReference(at: i) ? [c] : Array("&amp;".utf8)
        i += 1
      } else if c < 0x80 {
        out.append(c < 0x20 && c != 9 && c != 10 && c != 13 ? 0x20 : c)
        i += 1
      } else {
        let length = b.withUnsafeBufferPointer { InputDecoder.sequenceLength($0, at: i) }
        if length > 0 {
          out += b[i..<(i + length)]
          i += length
        } else {
          InputDecoder.appendUTF8(of: InputDecoder.windows1252(c), to: &out)
          i += 1
        }
      }
    }
    return out
  }

  @Test(
    "the one-pass cleaner gives what a byte-at-a-time one does, on random input in random chunks, CDATA and comments included"
  )
  func cleanerAgreesWithPlainCleaner() {
    let pieces: [[UInt8]] = [
      Array("<".utf8), Array("a".utf8), Array("plain text run of ascii ".utf8), Array("\n".utf8), [9], [13],
      Array("&".utf8), Array("&lt;".utf8), Array("&gt;".utf8), Array("&amp;".utf8), Array("&amp".utf8),
      Array("&quot;".utf8), Array("&apos;".utf8), Array("&#233;".utf8), Array("&#x2014;".utf8),
      Array("&#123456789;".utf8), Array("&#x;".utf8), Array("&#xG1;".utf8), Array("&nbsp;".utf8),
      Array("&eacute;".utf8), Array("&utm;".utf8), Array("&lt".utf8), Array("&;".utf8),
      Array("&abcdefghijklmnopqrstuvwxyzabcdefghij;".utf8), [0x00], [0x01], [0x1F], [0x7F], [0x80], [0xFF],
      [0xC3, 0xA9], [0xC3], [0xE6, 0x97, 0xA5], [0xE6, 0x97], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98, 0x80],
      [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF], Array("<![CDATA[".utf8), Array("]]>".utf8), Array("]".utf8),
      Array("<!--".utf8), Array("-->".utf8), Array("-".utf8), Array("<!".utf8), Array("<![CDATA".utf8),
      Array("<!DOCTYPE x>".utf8),
    ]
    var random = SplitMix(seed: 0x5EED_C1EA)
    for _ in 0..<1_000 {
      var input: [UInt8] = []
      for _ in 0..<random.next(60) { input += pieces[random.next(pieces.count)] }
      let expected = Self.cleanPlainly(input)
      #expect(Self.clean(input, chunkSize: max(input.count, 1)) == expected, "\(input)")
      let size = 1 + random.next(40)
      #expect(Self.clean(input, chunkSize: size) == expected, "chunks of \(size): \(input)")
    }
  }

  @Test("a multi-byte character anywhere in a sixteen-byte block, and what follows it, are cleaned as byte by byte")
  func characterAcrossBlocks() {
    let characters: [[UInt8]] = [[0xC3, 0xA9], [0xE6, 0x97, 0xA5], [0xF0, 0x9F, 0x98, 0x80], [0xE6, 0x97], [0xC3]]
    let after: [[UInt8]] = [[0x01], Array("&".utf8), Array("&lt;".utf8), [0xFF], [0xC3, 0xA9], Array("<!--&-->".utf8)]
    for prefix in 0..<40 {
      for character in characters {
        for next in after {
          for inCDATA in [false, true] {
            let open = Array((inCDATA ? "<a><![CDATA[" : "<a>").utf8)
            let input = open + [UInt8](repeating: 0x61, count: prefix) + character + next + Array(" tail of text".utf8)
            #expect(Self.clean(input, chunkSize: input.count) == Self.cleanPlainly(input), "\(input)")
          }
        }
      }
    }
  }

  @Test("a bare '&' inside CDATA stays as written in links, ids and categories; a comment does not hide it elsewhere")
  func ampersandInCDATA() throws {
    let xml = """
      <?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
      <!-- an opener in a comment is no section: <![CDATA[ -->
      <item><title>Fish & Chips</title><link><![CDATA[http://example.com/?a=1&b=2]]></link>
      <guid isPermaLink="false"><![CDATA[id&1]]></guid><category><![CDATA[R&D]]></category>
      <category>Q&A</category><description><![CDATA[<p>AT&amp;T & more</p>]]></description></item>
      </channel></rss>
      """
    // Whole, and read in chunks of every size that cut the section markers.
    for chunk in [Int.max, 3, 5, 7, 11] {
      var pieces: [Data] = []
      var rest = Data(xml.utf8)
      while !rest.isEmpty {
        pieces.append(rest.prefix(chunk))
        rest = rest.dropFirst(min(chunk, rest.count))
      }
      let item = try #require(try FeedParser.parse(pieces: pieces).feed.items.first, "chunks of \(chunk)")
      #expect(item.link == "http://example.com/?a=1&b=2", "chunks of \(chunk)")
      #expect(item.id == "id&1", "chunks of \(chunk)")
      #expect(item.categories == ["R&D", "Q&A"], "chunks of \(chunk)")
      #expect(item.title == "Fish & Chips", "chunks of \(chunk)")
      #expect(item.text == "AT&T & more", "chunks of \(chunk)")
    }
  }

  @Test("line ends become LF as XML requires, in text and in CDATA, whatever the chunking")
  func lineEnds() throws {
    let body = String(repeating: "filler ", count: 20_000)
    let xml =
      "<rss version=\"2.0\"><channel><item><guid>1</guid><description>\(body)a\r\nb\rc</description>"
      + "<content:encoded xmlns:content=\"http://purl.org/rss/1.0/modules/content/\"><![CDATA[<pre>x\r\ny</pre>]]>"
      + "</content:encoded></item></channel></rss>"
    let item = try #require(try FeedParser.parse(Data(xml.utf8)).feed.items.first)
    #expect(item.html == "<pre>x\ny</pre>")
    #expect(item.text?.hasSuffix("a b c") == true)
  }

  @Test("JSON strings are escaped exactly as a byte-by-byte escaper would, wherever the special bytes fall")
  func jsonEscaping() throws {
    func plain(_ text: String) -> String {
      var out = "\""
      for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
      }
      return out + "\""
    }
    let specials = ["\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "\u{7F}", "日"]
    for length in 0..<20 {
      let base = String(repeating: "a", count: length)
      #expect(JSONString.literal(base) == plain(base))
      for position in 0...length {
        for first in specials {
          for second in specials {
            var text = base
            text.insert(contentsOf: first + "x" + second, at: text.index(text.startIndex, offsetBy: position))
            #expect(JSONString.literal(text) == plain(text), "\(text.debugDescription)")
            // Through a pointer (`parse --json`'s items), from a buffer too small to start with.
            var buffer = ByteBuffer(capacity: 1)
            JSONString.append(text, to: &buffer)
            #expect(String(decoding: buffer.array, as: UTF8.self) == plain(text))
            let parsed = try JSONSerialization.jsonObject(
              with: Data(JSONString.literal(text).utf8), options: .fragmentsAllowed)
            #expect(parsed as? String == text)
          }
        }
      }
    }
  }
}
