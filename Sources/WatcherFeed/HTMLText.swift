// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport
import WatcherXML

/// Plain text from the HTML that feeds put in titles, summaries and content.
///
/// Tags are removed; block elements (`p`, `div`, `li`, `br`, headings, …) become line breaks, or spaces in
/// single-line mode; `script`, `style`, `head` and comments are dropped with their content; character
/// references and HTML named entities are decoded; whitespace (NBSP included) is collapsed and each line
/// trimmed. HTML that was escaped twice (`&lt;p&gt;` arriving as text) is converted once more.
public enum HTMLText {
  /// The plain text of `html`, or `nil` when nothing but markup and whitespace remains.
  public static func plainText(fromHTML html: String, singleLine: Bool = false) -> String? {
    let (text, decodedMarkup) = convert(html, singleLine: singleLine)
    // Escaped twice: entities decoded to `<`/`&` and the result is HTML again.
    if decodedMarkup, let text, looksLikeHTML(text) {
      return convert(text, singleLine: singleLine).0
    }
    return text
  }

  /// `text` with runs of whitespace (NBSP included) collapsed to one space and trimmed; `nil` if empty.
  public static func collapsed(_ text: String) -> String? {
    if isCollapsed(text) { return text.isEmpty ? nil : text }
    var out = [UInt8]()
    out.reserveCapacity(text.utf8.count)
    var pendingSpace = false
    var utf8 = text.utf8.makeIterator()
    var previous: UInt8 = 0
    while let c = utf8.next() {
      if c == 32 || (c >= 9 && c <= 13) {
        pendingSpace = true
      } else if c == 0xC2 {
        previous = c
        continue
      } else if previous == 0xC2 && c == 0xA0 {
        pendingSpace = true
      } else {
        if previous == 0xC2 {
          if pendingSpace && !out.isEmpty { out.append(32) }
          pendingSpace = false
          out.append(0xC2)
        }
        if pendingSpace && !out.isEmpty { out.append(32) }
        pendingSpace = false
        out.append(c)
      }
      previous = 0
    }
    if previous == 0xC2 {
      if pendingSpace && !out.isEmpty { out.append(32) }
      out.append(0xC2)
    }
    // Whitespace and NBSP out of valid UTF-8, every other byte kept: still valid.
    return out.isEmpty ? nil : String(validUTF8: out)
  }

  /// Whether `text` has something besides whitespace and NBSP, that is, whether `collapsed(text)` is not `nil`.
  ///
  /// Stops at the first visible character, so the parser's thread can keep the first non-blank field cheaply
  /// and leave the collapsing to the normalizing worker.
  public static func hasVisibleText(_ text: String) -> Bool {
    var previousC2 = false
    for c in text.utf8 {
      if c == 32 || (c >= 9 && c <= 13) {
        if previousC2 { return true }
      } else if c == 0xC2 {
        if previousC2 { return true }
        previousC2 = true
        continue
      } else if !(previousC2 && c == 0xA0) {
        return true
      }
      previousC2 = false
    }
    return previousC2
  }

  /// Whether `text` needs no collapsing: no control characters, NBSP, leading, trailing or double spaces.
  private static func isCollapsed(_ text: String) -> Bool {
    return text.withUTF8Span {
      $0.withUnsafeBufferPointer { bytes in
        let n = bytes.count
        guard n > 0 else { return true }
        guard bytes[0] != 32, bytes[n - 1] != 32 else { return false }
        // Sixteen bytes at a time, each tested with the byte after it for a double space; the loop below
        // decides from the first byte picked, or goes on over the last few.
        let space = ByteScanning.splat(32)
        let i = ByteScanning.firstPairIndex(in: bytes.span, from: 0) { v, next in
          (v .< space) .| (v .== ByteScanning.splat(0xC2)) .| ((v .== space) .& (next .== space))
        }
        var previousSpace = false
        for c in UnsafeBufferPointer(rebasing: bytes[i...]) {
          if c == 32 {
            if previousSpace { return false }
            previousSpace = true
          } else if c < 32 || c == 0xC2 {
            return false
          } else {
            previousSpace = false
          }
        }
        return true
      }
    }
  }

  /// `text` with each line's whitespace collapsed, blank lines dropped, lines joined by `\n`; `nil` if empty.
  public static func collapsedLines(_ text: String) -> String? {
    // One line that needs nothing (most short texts): itself, without splitting.
    if isCollapsed(text) { return text.isEmpty ? nil : text }
    var lines: [String] = []
    // By bytes: `\n` and `\r` are ASCII, and empty pieces (the middle of `\r\n`) are dropped.
    for line in text.utf8.split(omittingEmptySubsequences: true, whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
      if let clean = collapsed(String(Substring(line))) { lines.append(clean) }
    }
    return lines.isEmpty ? nil : lines.joined(separator: "\n")
  }

  /// Whether `text` looks like HTML rather than plain text: it has an end tag or a start tag of a known HTML element (`</b>`, `<p>`, `<br/>`, `<a href=…>`), or a character reference (`&amp;`, `&#8217;`).
  ///
  /// Used for fields whose type the format does not say (RSS titles, descriptions), as feedparser does.
  public static func looksLikeHTML(_ text: String) -> Bool {
    var found = false
    text.withUTF8Span {
      $0.withUnsafeBufferPointer { b in
        let n = b.count
        // Only `<` and `&` can start either; the bytes between are skipped sixteen at a time.
        var i = ByteScanning.firstIndex(of: UInt8(ascii: "<"), or: UInt8(ascii: "&"), in: b.span)
        while i < n, !found {
          let c = b[i]
          if c == UInt8(ascii: "<"), i + 1 < n {
            var j = i + 1
            if b[j] == UInt8(ascii: "/") { j += 1 }
            let nameStart = j
            while j < n, isAlnum(b[j]) { j += 1 }
            if j > nameStart, j < n,
              b[j] == UInt8(ascii: ">") || b[j] == 32 || b[j] == UInt8(ascii: "/")
                || b[j] == 9 || b[j] == 10
            {
              if knownTags.contains(ByteScanning.lowercaseHash(UnsafeBufferPointer(rebasing: b[nameStart..<j]).span)) {
                found = true
              }
            }
          } else if c == UInt8(ascii: "&"), HTMLEntities.characterReference(b.span, at: i) != nil {
            found = true
          }
          i = ByteScanning.firstIndex(of: UInt8(ascii: "<"), or: UInt8(ascii: "&"), in: b.span, from: i + 1)
        }
      }
    }
    return found
  }

  // MARK: - Conversion

  /// Plain text of `html`, and whether decoding produced a `<` or `&` (so it may be HTML escaped twice).
  private static func convert(_ html: String, singleLine: Bool) -> (String?, Bool) {
    return html.withUTF8Span {
      $0.withUnsafeBufferPointer { b -> (String?, Bool) in
        var sink = TextSink(capacity: b.count, singleLine: singleLine)
        let n = b.count
        var i = 0
        while i < n {
          let c = b[i]
          if c == UInt8(ascii: "<") {
            if let tag = scanTag(b, at: i) {
              let end = tag.end
              if !tag.closing, skipContentTags.contains(tag.name) {
                i = skipElement(b, from: end, name: UnsafeBufferPointer(rebasing: b[tag.nameRange]))
                sink.pendingSpace = true
                continue
              }
              if blockTags.contains(tag.name) {
                sink.pendingBreak = true
              } else if tag.name == imgTag {
                sink.pendingSpace = true
              }
              i = end
              continue
            }
            sink.append(c)
            i += 1
          } else if c == UInt8(ascii: "&") {
            if let (length, scalar) = HTMLEntities.characterReference(b.span, at: i) {
              sink.append(scalar: scalar)
              i += length
            } else {
              sink.append(c)
              i += 1
            }
          } else if c == 32 || (c >= 9 && c <= 13) {
            sink.pendingSpace = true
            i += 1
          } else if c == 0xC2, i + 1 < n, b[i + 1] == 0xA0 {
            sink.pendingSpace = true
            i += 2
          } else {
            // Copy a run of ordinary bytes at once, with the single spaces between words (which collapsing
            // keeps as they are), so a paragraph of text is one append, not one per word.
            var j = ordinaryRunEnd(b, from: i + 1)
            while j < n {
              let d = b[j]
              if isOrdinary(d) {
                j += 1
              } else if d == 32, j + 1 < n, isOrdinary(b[j + 1]) {
                j += 2
              } else {
                break
              }
            }
            sink.append(run: UnsafeBufferPointer(rebasing: b[i..<j]))
            i = j
          }
        }
        return (sink.finish(), sink.decodedMarkup)
      }
    }
  }

  /// The text being built: pending separators are written only before the next visible character.
  private struct TextSink {
    package var out: [UInt8]
    package var pendingSpace = false
    package var pendingBreak = false
    package var decodedMarkup = false
    package let singleLine: Bool

    package init(capacity: Int, singleLine: Bool) {
      out = []
      out.reserveCapacity(capacity)
      self.singleLine = singleLine
    }

    @inline(__always)
    package mutating func flushSeparator() {
      if !out.isEmpty, out[out.count - 1] != 10 {
        if pendingBreak {
          out.append(singleLine ? 32 : 10)
        } else if pendingSpace {
          out.append(32)
        }
      }
      pendingSpace = false
      pendingBreak = false
    }

    @inline(__always)
    package mutating func append(_ c: UInt8) {
      if pendingSpace || pendingBreak { flushSeparator() }
      out.append(c)
    }

    mutating func append(run: UnsafeBufferPointer<UInt8>) {
      if pendingSpace || pendingBreak { flushSeparator() }
      out.append(contentsOf: run)
    }

    package mutating func append(scalar: UInt32) {
      if scalar == 0xA0 || scalar == 32 || scalar == 9 || scalar == 10 || scalar == 13 {
        pendingSpace = true
        return
      }
      if scalar == 0x3C || scalar == 0x26 { decodedMarkup = true }
      if pendingSpace || pendingBreak { flushSeparator() }
      InputDecoder.appendUTF8(of: scalar, to: &out)
    }

    package mutating func finish() -> String? {
      while let last = out.last, last == 32 || last == 10 { out.removeLast() }
      // Runs of the input cut only at ASCII bytes and whole NBSPs, and encoded scalars: valid UTF-8.
      return out.isEmpty ? nil : String(validUTF8: out)
    }
  }

  /// A tag found by `scanTag`.
  private struct Tag {
    /// The offset after the tag.
    package var end: Int
    /// `ByteScanning.lowercaseHash` of the name (0 for comments and declarations).
    package var name: UInt64
    /// Where the name is.
    package var nameRange: Range<Int>
    /// Whether it is an end tag.
    package var closing: Bool
  }

  /// The tag, comment or declaration that starts at `i`, or `nil` when `<` is just a character.
  private static func scanTag(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Tag? {
    let n = b.count
    guard i + 1 < n else { return nil }
    var j = i + 1
    let next = b[j]
    if next == UInt8(ascii: "!") {
      if j + 2 < n, b[j + 1] == UInt8(ascii: "-"), b[j + 2] == UInt8(ascii: "-") {
        var k = j + 3
        while k + 2 < n, !(b[k] == UInt8(ascii: "-") && b[k + 1] == UInt8(ascii: "-") && b[k + 2] == UInt8(ascii: ">"))
        {
          k += 1
        }
        return Tag(end: min(n, k + 3), name: 0, nameRange: 0..<0, closing: false)
      }
      return Tag(end: endOfTag(b, from: j), name: 0, nameRange: 0..<0, closing: false)
    }
    if next == UInt8(ascii: "?") { return Tag(end: endOfTag(b, from: j), name: 0, nameRange: 0..<0, closing: false) }
    var closing = false
    if next == UInt8(ascii: "/") {
      closing = true
      j += 1
    }
    guard j < n, isLetter(b[j]) else { return nil }
    let nameStart = j
    while j < n, isAlnum(b[j]) || b[j] == UInt8(ascii: ":") || b[j] == UInt8(ascii: "-") { j += 1 }
    let name = ByteScanning.lowercaseHash(UnsafeBufferPointer(rebasing: b[nameStart..<j]).span)
    return Tag(end: endOfTag(b, from: j), name: name, nameRange: nameStart..<j, closing: closing)
  }

  /// The offset after the `>` that closes a tag, skipping quoted attribute values.
  ///
  /// Sixteen bytes at a time, to the next `>` or quote, and from a quote that opens a value to its end.
  private static func endOfTag(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    let (close, double, single) = (ByteScanning.splat(62), ByteScanning.splat(34), ByteScanning.splat(39))
    var j = start
    while true {
      j = ByteScanning.firstIndex(
        in: b.span, from: j, vector: { ($0 .== close) .| ($0 .== double) .| ($0 .== single) },
        byte: { $0 == 62 || $0 == 34 || $0 == 39 })
      guard j < b.count else { return b.count }
      let c = b[j]
      if c == UInt8(ascii: ">") { return j + 1 }
      // Only a quote that starts an attribute value opens a quoted run, which a `>` does not end.
      if j > 0, b[j - 1] == UInt8(ascii: "=") || b[j - 1] == 32 {
        j = ByteScanning.firstIndex(of: c, or: c, in: b.span, from: j + 1)
        guard j < b.count else { return b.count }
      }
      j += 1
    }
  }

  /// The offset after `</name>` (or the end), for elements whose content is not text.
  private static func skipElement(
    _ b: UnsafeBufferPointer<UInt8>, from start: Int, name target: UnsafeBufferPointer<UInt8>
  ) -> Int {
    var j = start
    while j + 1 < b.count {
      if b[j] == UInt8(ascii: "<"), b[j + 1] == UInt8(ascii: "/"), j + 2 + target.count <= b.count {
        var match = true
        for k in 0..<target.count where b[j + 2 + k] | 0x20 != target[k] | 0x20 {
          match = false
          break
        }
        if match { return endOfTag(b, from: j + 2 + target.count) }
      }
      j += 1
    }
    return b.count
  }

  /// Where a run of ordinary bytes and single spaces before ordinary bytes, from `start`, may end: the
  /// first byte that is neither, sixteen bytes at a time; the byte-by-byte loop after it decides.
  @inline(__always)
  private static func ordinaryRunEnd(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    let splat = ByteScanning.splat
    let space = splat(32)
    @inline(__always) func ordinary(_ v: ByteScanning.Vector) -> ByteScanning.Lanes {
      (v .> space) .& (v .!= splat(UInt8(ascii: "<"))) .& (v .!= splat(UInt8(ascii: "&"))) .& (v .!= splat(0xC2))
    }
    return ByteScanning.firstPairIndex(in: b.span, from: start) { v, next in
      .!(ordinary(v) .| ((v .== space) .& ordinary(next)))
    }
  }

  /// A byte that is text as it is: not markup, a reference, whitespace, a control or the lead byte of NBSP.
  @inline(__always) private static func isOrdinary(_ c: UInt8) -> Bool {
    c > 32 && c != UInt8(ascii: "<") && c != UInt8(ascii: "&") && c != 0xC2
  }
  @inline(__always) private static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 97 && (c | 0x20) <= 122 }
  @inline(__always) private static func isAlnum(_ c: UInt8) -> Bool { isLetter(c) || (c >= 48 && c <= 57) }

  private static let imgTag = ByteScanning.lowercaseHash("img")

  /// Elements that end a line of text (as name hashes, so no String is made per tag).
  private static let blockTags = NameHashes(blockTagNames)
  private static let blockTagNames = [
    "p", "br", "div", "li", "ul", "ol", "tr", "td", "th", "table", "h1", "h2", "h3", "h4", "h5", "h6",
    "blockquote", "pre", "hr", "section", "article", "header", "footer", "dd", "dt", "dl", "figure",
    "figcaption", "aside", "nav", "main", "address", "caption", "tbody", "thead", "tfoot", "details",
    "summary", "form", "fieldset", "iframe", "video", "audio",
  ]
  /// Elements whose content is not text to show.
  private static let skipContentTagNames = ["script", "style", "head", "title", "template", "noscript"]
  private static let skipContentTags = NameHashes(skipContentTagNames)
  /// Elements whose presence marks a string as HTML.
  private static let knownTags = NameHashes(
    (blockTagNames + skipContentTagNames + [
      "a", "b", "i", "u", "s", "em", "strong", "span", "img", "code", "small", "big", "sub", "sup", "font",
      "abbr", "cite", "q", "del", "ins", "mark", "tt", "kbd", "var", "html", "body", "center", "strike",
    ]))
}

/// A set of element names as `ByteScanning.lowercaseHash` values, looked up once per tag.
///
/// The hashes are already well mixed, so a slot is found from their low bits; a `Set` hashed them again with
/// its seeded hasher, which cost more than the rest of the lookup.
private struct NameHashes: Sendable {
  private let slots: [UInt64]
  private let mask: Int

  init(_ names: [String]) {
    var size = 16
    while size < names.count * 4 { size *= 2 }
    var slots = [UInt64](repeating: 0, count: size)
    for name in names {
      let hash = ByteScanning.lowercaseHash(name)
      var i = Int(truncatingIfNeeded: hash) & (size - 1)
      while slots[i] != 0, slots[i] != hash { i = (i + 1) & (size - 1) }
      slots[i] = hash
    }
    self.slots = slots
    mask = size - 1
  }

  /// Whether `hash` is one of the names (0, an empty slot, never is).
  func contains(_ hash: UInt64) -> Bool {
    guard hash != 0 else { return false }
    var i = Int(truncatingIfNeeded: hash) & mask
    while slots[i] != 0 {
      if slots[i] == hash { return true }
      i = (i + 1) & mask
    }
    return false
  }
}
