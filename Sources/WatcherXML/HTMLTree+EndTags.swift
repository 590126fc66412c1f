// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Glibc

extension HTMLTree {
  /// `bytes` with the end tags that a browser reads otherwise than libxml2 written as a browser reads them.
  ///
  /// - A heading end tag that names another level (`<h2>Site</h3>`) ends the heading open: a browser ends
  ///   it at any heading end tag (HTML's tree construction pops up to the heading in scope, whatever its
  ///   level). libxml2 ignores it, so the heading stays open and the rest of the page is read inside it: the
  ///   site's name becomes part of every paragraph's heading, and a page of such headings nests ever deeper,
  ///   each stray end tag looking through all of them (8 MB took 20 s).
  /// - `</br>` is a line break, as in browsers; libxml2 drops it, and `one</br>two` read as one word.
  ///
  /// Each is rewritten in place, byte for byte, so nothing moves. Comments and the text of `script`,
  /// `style`, `textarea` and `title` are passed over.
  static func endTagsAsBrowsersRead(_ bytes: [UInt8]) -> [UInt8] {
    let fixes = bytes.withUnsafeBufferPointer { EndTagScan($0)?.fixes() ?? [] }
    guard !fixes.isEmpty else { return bytes }
    var bytes = bytes
    for (offset, byte) in fixes { bytes[offset] = byte }
    return bytes
  }
}

/// Finds the end tags that `endTagsAsBrowsersRead` rewrites.
private struct EndTagScan {
  let buffer: UnsafeBufferPointer<UInt8>
  let base: UnsafePointer<UInt8>

  init?(_ buffer: UnsafeBufferPointer<UInt8>) {
    guard let base = buffer.baseAddress else { return nil }
    (self.buffer, self.base) = (buffer, base)
  }

  /// The offsets of the bytes to rewrite, and the byte each gets.
  func fixes() -> [(offset: Int, byte: UInt8)] {
    var fixes: [(offset: Int, byte: UInt8)] = []
    var open: UInt8?
    var offset = 0
    while offset < buffer.count, let found = memchr(base + offset, 0x3C, buffer.count - offset) {
      let at = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
      offset = at + 1
      if has("!--", at: at + 1) {
        offset = end(of: "-->", from: at + 4)
      } else if byte(at + 1) == UInt8(ascii: "/") {
        if hasName(Self.lineBreak, at: at + 2) {
          // `</br` as `<br `.
          fixes += [(at + 1, UInt8(ascii: "b")), (at + 2, UInt8(ascii: "r")), (at + 3, 0x20)]
          continue
        }
        guard let level = headingLevel(at: at + 2) else { continue }
        if let current = open, current != level { fixes.append((at + 3, current)) }
        open = nil
      } else if let level = headingLevel(at: at + 1) {
        open = level
      } else if let name = Self.rawTextNames.first(where: { hasName($0, at: at + 1) }) {
        offset = rawTextEnd(name, from: at + 1 + name.count)
      }
    }
    return fixes
  }

  private static let lineBreak = Array("br".utf8)

  /// Elements whose content is text up to their own end tag, never markup.
  private static let rawTextNames: [[UInt8]] = ["script", "style", "textarea", "title"].map { Array($0.utf8) }

  private func byte(_ offset: Int) -> UInt8? { offset < buffer.count ? buffer[offset] : nil }

  /// Whether a name ends at `offset` (a space, `/`, `>` or the end follows it).
  private func nameEnds(at offset: Int) -> Bool {
    guard let next = byte(offset) else { return true }
    return next == UInt8(ascii: ">") || next == UInt8(ascii: "/") || next == 0x20 || (0x09...0x0D).contains(next)
  }

  /// The level digit of `h1`…`h6` (either case) starting at `offset`, ending there.
  private func headingLevel(at offset: Int) -> UInt8? {
    guard let h = byte(offset), h | 0x20 == UInt8(ascii: "h"), let digit = byte(offset + 1),
      (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(digit), nameEnds(at: offset + 2)
    else { return nil }
    return digit
  }

  private func has(_ text: StaticString, at offset: Int) -> Bool {
    guard offset + text.utf8CodeUnitCount <= buffer.count else { return false }
    return memcmp(base + offset, text.utf8Start, text.utf8CodeUnitCount) == 0
  }

  /// Whether the element name `name` (lowercase) starts at `offset`, in any case, and ends there.
  private func hasName(_ name: [UInt8], at offset: Int) -> Bool {
    guard offset + name.count <= buffer.count else { return false }
    for index in name.indices where buffer[offset + index] | 0x20 != name[index] { return false }
    return nameEnds(at: offset + name.count)
  }

  /// Just past the first `text` from `offset` on, or the end.
  private func end(of text: StaticString, from offset: Int) -> Int {
    var offset = offset
    while offset < buffer.count, let found = memchr(base + offset, Int32(text.utf8Start.pointee), buffer.count - offset)
    {
      let at = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
      if has(text, at: at) { return at + text.utf8CodeUnitCount }
      offset = at + 1
    }
    return buffer.count
  }

  /// Where the end tag of the raw-text element `name` begins, from `offset` on, or the end.
  private func rawTextEnd(_ name: [UInt8], from offset: Int) -> Int {
    var offset = offset
    while offset < buffer.count, let found = memchr(base + offset, 0x3C, buffer.count - offset) {
      let at = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
      if byte(at + 1) == UInt8(ascii: "/"), hasName(name, at: at + 2) { return at }
      offset = at + 1
    }
    return buffer.count
  }
}
