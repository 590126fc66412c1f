// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CWatcherXML
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Writes `&gt;`, `&quot;` and `&apos;` in character data as the characters they stand for, before libxml2
/// reads the document.
///
/// Escaped HTML (`&lt;p&gt;…&lt;a href=&quot;…&quot;&gt;`) is most of a large feed, and libxml2 pays for
/// each reference: a name lookup and two `characters` callbacks. In character data `>`, `"` and `'` mean
/// exactly what their references mean, so about half of that work goes; `&lt;` and `&amp;` must stay.
///
/// Only character data is touched. A small lexer follows the markup: nothing inside a tag (an attribute
/// value quoted with `"` would end early), a comment, a CDATA section (where `&gt;` is text as written) or a
/// processing instruction. After a `<!` that opens neither a comment nor a CDATA section (a DOCTYPE, whose
/// internal subset has its own syntax) nothing more is touched. `]]&gt;` stays (`]]>` is not allowed in
/// content). On broken markup the lexer only ever takes more for markup than libxml2 does (it ends a tag at
/// the first `>` outside quotes; libxml2 ends a broken one earlier), so it may leave a reference libxml2
/// would have resolved, and never touches one libxml2 would not.
///
/// Each replacement shortens its line by 3 or 5 columns. The replacements libxml2 has not yet read past are
/// kept (where and on which line); `columnAsWritten` adds back the columns removed before a position, so
/// warnings name the column as written.
///
/// Two libxml2 2.9 quirks make a broken document read differently, never a well-formed one: right after an
/// error libxml2 drops the next reference (a folded character is kept), and it drops the run of text before
/// a stray `]]>` in content (which folding can make longer).
struct ReferenceFolder {
  private enum State: Equatable {
    case text, lessThan, bang, bangDash, tag, quoted(UInt8), comment, cdata, instruction, off
  }

  private struct Edit {
    /// Where the replacement character is, in bytes handed to libxml2.
    var offset: Int
    var shift: Int
    /// Where the first newline after it is (`Int.max` until one is seen): it is on the line of every
    /// position up to there.
    var nextNewline = Int.max
  }

  private var state = State.text
  /// How many of the terminator's first characters (`-` of `-->`, `]` of `]]>`, `?` of `?>`) end what was
  /// read so far, at most two.
  private var run = 0
  /// The last two bytes written (`]]` must not be followed by a new `>`), the newest in the low byte.
  private var lastTwo: UInt16 = 0
  /// Bytes written before the current buffer.
  private var written = 0
  /// The replacements libxml2 has not read past; those from `firstOpen` on have no newline after them yet.
  private var edits: [Edit] = []
  private var firstPending = 0
  private var firstOpen = 0
  /// The columns of the replacements libxml2 has read past that are still on its line, and where that line
  /// ends (`Int.max` until a newline is seen).
  private var settledShift = 0
  private var settledNextNewline = Int.max
  /// Runs of text cut out for libxml2 to skip (`TextRuns`), and the shortest run cut; nil: none are.
  let runs: TextRuns?
  private let minimumRun: Int
  /// How many elements are open where the lexer is (text is cut only inside the root element), and whether
  /// the tag being read is an end tag.
  private var depth = 0
  private var endTag = false

  /// `minimumRun` 0 leaves every run to libxml2; the runs cut are handed to `capture`'s callback.
  init(minimumRun: Int, capture: UnsafeMutablePointer<watcher_capture>) {
    self.minimumRun = minimumRun
    runs = minimumRun > 0 ? TextRuns(capture: capture) : nil
  }

  /// Replaces the references in `bytes` (the next bytes of the document), in place. (After a DOCTYPE
  /// nothing is replaced, but newlines still end the lines of earlier replacements.)
  mutating func fold(_ bytes: inout [UInt8]) {
    guard !bytes.isEmpty else { return }
    runs?.reclaim()
    let kept = bytes.withUnsafeMutableBufferPointer { lex($0) }
    written += kept
    if kept < bytes.count { bytes.removeSubrange(kept...) }
  }

  /// libxml2 has read the first `offset` bytes: replacements on earlier lines are let go, those on its
  /// line summed.
  mutating func settle(offset: Int) {
    if settledNextNewline < offset {
      settledShift = 0
      settledNextNewline = Int.max
    }
    while firstPending < edits.count, edits[firstPending].offset < offset {
      let edit = edits[firstPending]
      firstPending += 1
      guard edit.nextNewline >= offset else { continue }
      // Still on libxml2's line, as are those summed before it (a newline between would end before `offset`).
      settledShift += edit.shift
      settledNextNewline = edit.nextNewline
    }
    firstOpen = max(firstOpen, firstPending)
    if firstPending > 4_096, firstPending * 2 > edits.count {
      edits.removeSubrange(..<firstPending)
      firstOpen -= firstPending
      firstPending = 0
    }
  }

  /// The column as written of libxml2's `column` at byte `offset` of what it read: with the columns of the
  /// replacements before it on its line. (The line is found from the newlines themselves, not from libxml2,
  /// whose line number stops counting where it skips a broken construct.)
  func columnAsWritten(column: Int, offset: Int) -> Int {
    var shift = settledNextNewline >= offset ? settledShift : 0
    for edit in edits[firstPending...] where edit.offset < offset && edit.nextNewline >= offset {
      shift += edit.shift
    }
    return column + shift
  }

  // MARK: - The lexer

  /// The read and write positions in the buffer being folded (writing never passes reading).
  private struct Cursor {
    let p: UnsafeMutablePointer<UInt8>
    let n: Int
    var r = 0
    var w = 0

    /// Moves one byte.
    @inline(__always) mutating func step() {
      p[w] = p[r]
      r &+= 1
      w &+= 1
    }
  }

  private mutating func lex(_ buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    var c = Cursor(p: base, n: buffer.count)
    let n = c.n
    var state = self.state
    defer { self.state = state }

    while c.r < n {
      switch state {
      case .text:
        if cutsRun(&c) { continue }
        // To the next `<`, `&` or newline, moving the bytes down over what was folded; references and
        // newlines are handled here without leaving the loop.
        while true {
          watcher_move_until(c.p, &c.r, &c.w, n, UInt8(ascii: "<"), UInt8(ascii: "&"), 10, 10)
          guard c.r < n else { break }
          let byte = c.p[c.r]
          if byte == UInt8(ascii: "<") { break }
          if byte == 10 {
            newline(at: c.w)
            c.step()
            // The next line's run may be cut too.
            _ = cutsRun(&c)
            continue
          } else {
            let (length, replacement) = Self.shortcut(c.p + c.r, available: n &- c.r)
            if length != 0, replacement != UInt8(ascii: ">") || lastTwo(c.p, c.w) != 0x5D5D {
              edits.append(Edit(offset: written &+ c.w, shift: length &- 1))
              c.p[c.w] = replacement
              c.w &+= 1
              c.r &+= length
              continue
            }
          }
          c.step()
        }
        guard c.r < n else { break }
        // (`<!` looked at here first: a call for every tag was 1 % of a poll of plain feeds.)
        if depth > 0, c.r &+ 1 < c.n, c.p[c.r &+ 1] == UInt8(ascii: "!"), cutsSection(&c) { continue }
        // A `<`: an ordinary tag is read here too, up to its `>` if no quote comes first.
        c.step()
        state = .lessThan
        guard c.r < n, c.p[c.r] != UInt8(ascii: "!"), c.p[c.r] != UInt8(ascii: "?") else { continue }
        state = .tag
        endTag = c.p[c.r] == UInt8(ascii: "/")
        while c.r < n {
          watcher_move_until(c.p, &c.r, &c.w, n, UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"), 10)
          guard c.r < n else { break }
          let byte = c.p[c.r]
          if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { break }
          if byte == 10 { newline(at: c.w) }
          if byte == UInt8(ascii: ">") {
            tagEnded(after: UInt8(truncatingIfNeeded: lastTwo(c.p, c.w)))
            c.step()
            state = .text
            break
          }
          c.step()
        }
      default:
        markup(&c, &state)
      }
    }
    lastTwo = lastTwo(c.p, c.w)
    return c.w
  }

  /// A tag ends (its `>`, after `previous`): an end tag closes an element, a start tag opens one unless it
  /// is empty (`<br/>`).
  @inline(__always)
  private mutating func tagEnded(after previous: UInt8) {
    if endTag {
      depth = max(0, depth - 1)
    } else if previous != UInt8(ascii: "/") {
      depth += 1
    }
  }

  /// Whether the run of text at the read position was cut (`cut`), with the cheap tests first: most runs
  /// between tags are a newline.
  @inline(__always)
  private mutating func cutsRun(_ c: inout Cursor) -> Bool {
    depth > 0 && c.n &- c.r > minimumRun && c.p[c.r] != UInt8(ascii: "<") && cut(&c)
  }

  /// Cuts the run of text at the read position, up to the next `<` or newline, out of what libxml2 reads.
  ///
  /// Only a run long enough, ending in this buffer, that decodes (`TextRuns`) is cut; `&#xE000;` is written
  /// in its place, and an edit gives back its columns to warnings after it on its line. A CR before the
  /// newline stays, for libxml2 to read CR LF as one line end.
  private mutating func cut(_ c: inout Cursor) -> Bool {
    guard let runs, let found = memchr(c.p + c.r, Int32(UInt8(ascii: "<")), c.n &- c.r) else { return false }
    var stop = c.p.distance(to: found.assumingMemoryBound(to: UInt8.self))
    if let newline = memchr(c.p + c.r, 10, stop &- c.r) {
      stop = c.p.distance(to: newline.assumingMemoryBound(to: UInt8.self))
      if stop > c.r, c.p[stop &- 1] == 13 { stop &-= 1 }
    }
    let run = UnsafeBufferPointer(start: c.p + c.r, count: stop &- c.r)
    // `&#xE000;`, eight bytes: U+E000, the first private-use character.
    guard run.count >= minimumRun, run.count >= 8, runs.add(run, referenceEnd: written &+ c.w &+ 8) else {
      return false
    }
    putReference(replacing: run, &c)
    c.r = stop
    return true
  }

  /// Writes `&#xE000;` at the write position in place of `cut` (which it never overruns: a cut is longer),
  /// with the edit that gives back its columns to warnings after it on its line.
  @inline(__always)
  private mutating func putReference(replacing cut: UnsafeBufferPointer<UInt8>, _ c: inout Cursor) {
    // libxml2 counts columns in characters.
    let columns = cut.count &- Self.count(continuationBytesIn: cut)
    // As little-endian words: "&#xE" and "000;".
    UnsafeMutableRawPointer(c.p + c.w).storeBytes(of: UInt32(0x4578_2326).littleEndian, as: UInt32.self)
    UnsafeMutableRawPointer(c.p + (c.w &+ 4)).storeBytes(of: UInt32(0x3B30_3030).littleEndian, as: UInt32.self)
    if columns != 8 { edits.append(Edit(offset: written &+ c.w &+ 7, shift: columns &- 8)) }
    c.w &+= 8
  }

  /// Cuts the CDATA section at the read position (`<![CDATA[…]]>`) out of what libxml2 reads, as `cut` cuts
  /// a run: libxml2 reads a section character by character, slowly once it is not ASCII.
  ///
  /// Only a section on one line (the line numbers of warnings after it stay true), ending in this buffer,
  /// long enough, whose characters libxml2 takes as they are (no control character, no CR) is cut; its
  /// content is the run, as written.
  private mutating func cutsSection(_ c: inout Cursor) -> Bool {
    let open = 9  // `<![CDATA[`
    guard let runs, c.n &- c.r > open &+ minimumRun &+ 3, c.p[c.r &+ 1] == UInt8(ascii: "!"),
      memcmp(c.p + c.r, "<![CDATA[", open) == 0
    else { return false }
    let start = c.r &+ open
    var from = start
    var end = -1
    while let found = memchr(c.p + from, Int32(UInt8(ascii: "]")), c.n &- from) {
      let i = c.p.distance(to: found.assumingMemoryBound(to: UInt8.self))
      guard i &+ 2 < c.n else { return false }
      if c.p[i &+ 1] == UInt8(ascii: "]"), c.p[i &+ 2] == UInt8(ascii: ">") {
        end = i
        break
      }
      from = i &+ 1
    }
    guard end >= start &+ max(minimumRun, 8) else { return false }
    let content = UnsafeBufferPointer(start: c.p + start, count: end &- start)
    guard !content.contains(where: { $0 < 0x20 && $0 != 9 }),
      runs.add(content, referenceEnd: written &+ c.w &+ 8, literal: true)
    else { return false }
    putReference(replacing: UnsafeBufferPointer(start: c.p + c.r, count: end &+ 3 &- c.r), &c)
    c.r = end &+ 3
    return true
  }

  /// How many bytes of `bytes` continue a UTF-8 character (are not its first).
  private static func count(continuationBytesIn bytes: UnsafeBufferPointer<UInt8>) -> Int {
    guard ByteScanning.firstNonASCII(in: bytes.span) < bytes.count else { return 0 }
    let mask = ByteScanning.splat(0xC0)
    let continuation = ByteScanning.splat(0x80)
    return ByteScanning.count(in: bytes.span, vector: { $0 & mask .== continuation }, byte: { $0 & 0xC0 == 0x80 })
  }

  /// Moves `count` bytes of markup from the read position to the write position, noting its newlines.
  @inline(__always)
  private mutating func copy(_ count: Int, _ c: inout Cursor) {
    guard count > 0 else { return }
    if awaitsNewline, let found = memchr(c.p + c.r, 10, count) {
      newline(at: c.w &+ c.p.distance(to: found.assumingMemoryBound(to: UInt8.self)) &- c.r)
    }
    if c.w != c.r { memmove(c.p + c.w, c.p + c.r, count) }
    c.r &+= count
    c.w &+= count
  }

  /// One step through markup other than text and ordinary tags (read in `lex`'s loop): what follows a `<`,
  /// `<!` and `<!-`, a tag with quotes, comments, CDATA sections, processing instructions, and everything
  /// after a DOCTYPE.
  private mutating func markup(_ c: inout Cursor, _ state: inout State) {
    let n = c.n
    switch state {
    case .text: return
    case .lessThan:
      switch c.p[c.r] {
      case UInt8(ascii: "!"):
        copy(1, &c)
        state = .bang
      case UInt8(ascii: "?"):
        copy(1, &c)
        state = .instruction
        run = 0
      default:
        state = .tag
        endTag = c.p[c.r] == UInt8(ascii: "/")
      }
    case .bang:
      switch c.p[c.r] {
      case UInt8(ascii: "-"): state = .bangDash
      case UInt8(ascii: "["):
        state = .cdata
        run = 0
      default: state = .off
      }
      copy(1, &c)
    case .bangDash:
      if c.p[c.r] == UInt8(ascii: "-") {
        state = .comment
        run = 0
      } else {
        state = .off
      }
      copy(1, &c)
    case .tag:
      var i = c.r
      while i < n, c.p[i] != UInt8(ascii: ">"), c.p[i] != UInt8(ascii: "\""), c.p[i] != UInt8(ascii: "'") { i += 1 }
      if i < n { state = c.p[i] == UInt8(ascii: ">") ? .text : .quoted(c.p[i]) }
      if i < n, state == .text {
        tagEnded(after: i > c.r ? c.p[i - 1] : UInt8(truncatingIfNeeded: lastTwo(c.p, c.w)))
      }
      copy(min(i + 1, n) - c.r, &c)
    case .quoted(let quote):
      let end = Self.index(of: quote, c.p, from: c.r, to: n)
      if end < n { state = .tag }
      copy(min(end + 1, n) - c.r, &c)
    case .comment, .cdata, .instruction:
      let (mark, needed): (UInt8, Int) =
        switch state {
        case .comment: (UInt8(ascii: "-"), 2)
        case .cdata: (UInt8(ascii: "]"), 2)
        default: (UInt8(ascii: "?"), 1)
        }
      let end = Self.index(of: UInt8(ascii: ">"), c.p, from: c.r, to: n)
      // The marks right before the `>` (or before the buffer's end), counting those already read.
      var marks = 0
      var k = end - 1
      while k >= c.r, marks < 2, c.p[k] == mark {
        marks += 1
        k -= 1
      }
      if k < c.r { marks = min(marks + run, 2) }
      if end < n, marks >= needed {
        state = .text
      } else {
        run = end < n ? 0 : marks
      }
      copy(min(end + 1, n) - c.r, &c)
    case .off:
      copy(n - c.r, &c)
    }
  }

  /// Whether a newline matters: some replacement does not yet know where its line ends.
  private var awaitsNewline: Bool { firstOpen < edits.count || (settledShift != 0 && settledNextNewline == Int.max) }

  /// Notes a newline written at `w` in the current buffer: the line of the replacements before it ends.
  @inline(__always)
  private mutating func newline(at w: Int) {
    guard awaitsNewline else { return }
    let offset = written &+ w
    while firstOpen < edits.count {
      edits[firstOpen].nextNewline = offset
      firstOpen += 1
    }
    if settledShift != 0, settledNextNewline == Int.max { settledNextNewline = offset }
  }

  /// The last two bytes written, with `w` bytes of this buffer written so far.
  @inline(__always)
  private func lastTwo(_ p: UnsafeMutablePointer<UInt8>, _ w: Int) -> UInt16 {
    switch w {
    case 0: lastTwo
    case 1: lastTwo << 8 | UInt16(p[0])
    default: UInt16(p[w - 2]) << 8 | UInt16(p[w - 1])
    }
  }

  /// The length of the `&gt;`, `&quot;` or `&apos;` at `p` and the character it stands for; 0 if none.
  @inline(__always)
  private static func shortcut(_ p: UnsafeMutablePointer<UInt8>, available: Int) -> (Int, UInt8) {
    guard available >= 4 else { return (0, 0) }
    // As little-endian numbers: "&gt;" is 0x3B746726, "&quo" 0x6F757126, "&apo" 0x6F706126.
    let word = UInt32(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt32.self))
    if word == 0x3B74_6726 { return (4, UInt8(ascii: ">")) }
    guard available >= 6, p[5] == UInt8(ascii: ";") else { return (0, 0) }
    if word == 0x6F75_7126, p[4] == UInt8(ascii: "t") { return (6, UInt8(ascii: "\"")) }
    if word == 0x6F70_6126, p[4] == UInt8(ascii: "s") { return (6, UInt8(ascii: "'")) }
    return (0, 0)
  }

  /// The index of the first `byte` in `p[from..<to]`, or `to`.
  @inline(__always)
  private static func index(of byte: UInt8, _ p: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Int {
    guard from < to, let found = memchr(p + from, Int32(byte), to - from) else { return to }
    return p.distance(to: found.assumingMemoryBound(to: UInt8.self))
  }
}
