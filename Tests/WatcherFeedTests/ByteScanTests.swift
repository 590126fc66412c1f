// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Testing
import WatcherSupport

@testable import WatcherFeed
@testable import WatcherXML

/// The scans that test sixteen bytes at a time (`ByteScanning.firstIndex`) must find what a byte-by-byte
/// scan finds, wherever the byte falls: before, across and after each block of sixteen, and in the tail.
@Suite("Sixteen bytes at a time")
struct ByteScanTests {
  /// Texts of 0 to `longest` plain bytes with `insert` put at every position.
  static func variants(of insert: String, filler: String = "a", longest: Int = 40) -> [String] {
    (0...longest).flatMap { length in
      (0...length).map { position in
        String(repeating: filler, count: position) + insert + String(repeating: filler, count: length - position)
      }
    }
  }

  @Test("firstIndex finds the first byte a test picks, at every position, or the end")
  func firstIndex() {
    // Past 128 bytes: `firstNonASCII` tests sixty-four at a time before it tests sixteen.
    for length in 0...140 {
      for position in 0...length {
        var bytes = [UInt8](repeating: 0x61, count: length)
        if position < length { bytes[position] = 0x26 }
        if position + 3 < length { bytes[position + 3] = 0x3C }
        let found = bytes.withUnsafeBufferPointer {
          ByteScanning.firstIndex(of: UInt8(ascii: "<"), or: UInt8(ascii: "&"), in: $0.span)
        }
        #expect(found == bytes.firstIndex { $0 == 0x26 || $0 == 0x3C } ?? length, "\(length) \(position)")
        let marked = bytes.map { $0 == 0x3C ? 0xC3 : $0 }
        let nonASCII = ByteScanning.firstNonASCII(in: marked.span)
        #expect(nonASCII == bytes.firstIndex { $0 == 0x3C } ?? length)
      }
    }
  }

  @Test("count counts what a byte-by-byte count counts, in blocks and in the tail")
  func counting() {
    for length in 0...70 {
      for step in 1...5 {
        let bytes = (0..<length).map { $0 % step == 0 ? UInt8(0xA9) : UInt8(0x61) }
        let counted = bytes.withUnsafeBufferPointer {
          ByteScanning.count(in: $0.span, vector: { $0 .== ByteScanning.splat(0xA9) }, byte: { $0 == 0xA9 })
        }
        #expect(counted == bytes.filter { $0 == 0xA9 }.count, "\(length) \(step)")
      }
    }
  }

  @Test("control characters are found wherever they fall; tab, newline, return and other 0xC2 pairs are not")
  func controls() {
    // Past 128 bytes: blocks of sixty-four are passed before the exact test.
    for control in ["\u{1}", "\u{1B}", "\u{7F}", "\u{80}", "\u{9B}", "\u{9F}", "\n\u{1}", "\u{A0}\u{85}"] {
      for text in Self.variants(of: control, longest: 140) {
        #expect(ControlCharacters.contains(text), "\(text.debugDescription)")
      }
    }
    for clean in ["\t", "\n", "\r", "\u{A0}", "\u{A9}", "é", "日"] {
      for text in Self.variants(of: clean, longest: 140) {
        #expect(!ControlCharacters.contains(text), "\(text.debugDescription)")
      }
    }
    // A clean byte that only the rough test picks (a newline, NBSP) in one block, a control in a later one.
    for gap in [0, 1, 63, 64, 65, 130] {
      #expect(ControlCharacters.contains("\n" + String(repeating: "a", count: gap) + "\u{1}"))
      #expect(ControlCharacters.contains("\u{A0}" + String(repeating: "a", count: gap) + "\u{9B}"))
    }
  }

  /// Whitespace collapsed byte by byte: the reference for `HTMLText.collapsed` and plain text.
  static func collapsedByHand(_ text: String) -> String? {
    let words = text.split(whereSeparator: { $0.isWhitespace || $0 == "\u{A0}" })
    return words.isEmpty ? nil : words.joined(separator: " ")
  }

  @Test("whitespace is collapsed wherever it falls, and text without markup converts to the same")
  func collapsing() {
    for insert in [" ", "  ", "\t", "\n", " \u{A0} ", "\u{A0}", "é ", " 日", " x  y ", "\u{C2}"] {
      for text in Self.variants(of: insert, filler: "ab ") + Self.variants(of: insert) {
        let expected = Self.collapsedByHand(text)
        #expect(HTMLText.collapsed(text) == expected, "\(text.debugDescription)")
        #expect(HTMLText.plainText(fromHTML: text, singleLine: true) == expected, "\(text.debugDescription)")
      }
    }
  }

  @Test("markup and references are seen wherever they fall")
  func looksLikeHTML() {
    for html in ["<p>", "</b>", "<br/>", "&amp;", "&#8217;"] {
      for text in Self.variants(of: html, filler: "a ") { #expect(HTMLText.looksLikeHTML(text), "\(text)") }
    }
    for plain in ["a < b", "Fish & Chips", "<3", "&nosuch;"] {
      for text in Self.variants(of: plain, filler: "a ") { #expect(!HTMLText.looksLikeHTML(text), "\(text)") }
    }
  }

  /// The repair as it was written first, copying as it goes: the reference for the one that checks first.
  static func undoneByCopy(_ bytes: [UInt8]) -> [UInt8]? {
    guard bytes.contains(0xC3) || bytes.contains(0xC2) else { return nil }
    var latin1: [UInt8] = []
    var i = 0
    while i < bytes.count {
      let c = bytes[i]
      if c < 0x80 {
        latin1.append(c)
        i += 1
      } else if c == 0xC2 || c == 0xC3, i + 1 < bytes.count, bytes[i + 1] & 0xC0 == 0x80 {
        latin1.append((c & 0x03) << 6 | (bytes[i + 1] & 0x3F))
        i += 2
      } else {
        return nil
      }
    }
    return String(validating: latin1, as: UTF8.self) != nil && latin1.contains { $0 >= 0x80 } ? latin1 : nil
  }

  @Test("double-encoded UTF-8 is undone exactly when the copying repair would undo it")
  func doubleEncoding() {
    // Each as written in the feed: mojibake ("CafÃ©", "â€™" read as Latin-1), real text, and broken pairs.
    let pieces = [
      "Caf\u{C3}\u{A9}", "\u{E2}\u{80}\u{99}", "\u{F0}\u{9F}\u{98}\u{80}", "S\u{E3}o", "Z\u{FC}rich", "日本",
      "\u{C3}", "\u{C0}\u{80}", "\u{ED}\u{A0}\u{80}", "\u{E9}", "\u{C2}\u{85}",
    ]
    for first in pieces {
      for second in pieces {
        for text in Self.variants(of: first + " " + second, filler: "x") where text.utf8.count < 48 {
          let bytes = Array(text.utf8)
          let undone = bytes.withUnsafeBufferPointer(InputDecoder.undoDoubleEncoding)
          #expect(undone == Self.undoneByCopy(bytes), "\(text.debugDescription)")
        }
      }
    }
  }
}
