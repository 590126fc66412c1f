// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A regular expression matched in time linear in the text: a Thompson NFA run as a Pike VM.
///
/// Why our own engine: a rule's regex runs on text written by strangers, so its cost must not depend on
/// what they write. Backtracking engines (Swift's `Regex`, PCRE) take exponential time on `(a+)+b`, and
/// glibc's `regexec`, which does not backtrack, still restarts at every position: `a+b` over 1 MB of `a`s
/// took more than a minute there (issue #7). Here every text position is visited once, with at most one
/// thread per program step, so the cost is at most (text length) × (program size), and the program size
/// is capped when the pattern compiles (`maxProgramSize`). Memory is two lists of program size.
/// In front of it, a lazily built DFA (`LazyDFA`) answers "is there a match?" at about a table lookup per
/// byte; the Pike VM runs only on texts that match, to find where.
///
/// Syntax: POSIX extended (`a|b`, `(x)`, `x{2,3}`, `[[:alpha:]]`, `^`, `$`) plus the Perl shorthands
/// `\d \D \s \S \w \W`, the word boundaries `\b \B \< \>`, `(?:x)`, and `\t \n`. A backslash escapes any
/// punctuation, also inside `[...]`. Refused with a message and offset: back-references, look-around, lazy
/// quantifiers, and escapes that mean something elsewhere (`\p{L}`, `\x41`). A match is leftmost-longest
/// (POSIX), and `.` matches any character including a newline. Matching is by Unicode scalar over UTF-8.
public final class LinearRegex: Sendable {
  /// The pattern as the user wrote it.
  public let pattern: String
  /// Whether it runs on the text as written; otherwise its literals are folded (`TextFolding`) and it
  /// runs on the folded text.
  public let caseSensitive: Bool
  /// A piece of text every match must contain, checked with a fast substring search before the
  /// machine runs (most texts do not contain it, and then the machine never starts).
  package let requiredLiteral: String?
  private let program: Program
  /// The lazily built DFA that answers "is there a match?" before the Pike VM finds where.
  private let dfa: LazyDFA

  /// The most steps a compiled pattern may have: it bounds the work per character of text.
  public static let maxProgramSize = 2_000
  /// The largest count allowed in `{n,m}`.
  public static let maxRepeat = 1_000

  /// Compiles `pattern`; throws a message and, when known, the 0-based offset (in characters) in the
  /// pattern if it is invalid, unsupported or too large.
  public init(_ pattern: String, caseSensitive: Bool) throws(RegexError) {
    self.pattern = pattern
    self.caseSensitive = caseSensitive
    var parser = RegexParser(scalars: Array(pattern.unicodeScalars), fold: !caseSensitive)
    let tree = try parser.parseAll()
    program = try Program(tree)
    dfa = LazyDFA(program)
    let literal = tree.requiredLiteral()
    requiredLiteral = literal.unicodeScalars.count >= 2 ? literal : nil
  }

  /// The leftmost-longest match in `text`, as a range of UTF-8 offsets, or `nil`.
  public func firstMatch(in text: String) -> Range<Int>? {
    if let literal = requiredLiteral, ByteSearch.find(text, literal, wholeWord: false) == nil { return nil }
    var text = text
    return text.withUTF8 { bytes in
      // Most texts do not match: the DFA says so at a table lookup per byte. Only a text that matches
      // goes through the Pike VM, which tracks where matches start.
      guard dfa.matches(bytes) != false else { return nil }
      var work = 0
      return program.search(bytes, work: &work)
    }
  }

  /// How many times the DFA's cache was emptied to make room (1 after the first fill).
  package var dfaCacheResets: Int { dfa.timesEmptied - 1 }

  /// Whether `text` has a match, by the DFA alone (`nil` when its cache was busy on another thread).
  package func dfaMatches(_ text: String) -> Bool? {
    var text = text
    return text.withUTF8 { dfa.matches($0) }
  }

  /// The match as `firstMatch` finds it, without the literal prefilter, and the number of thread steps
  /// it took: the measure tests use to show the work is linear in the text.
  package func matchCountingWork(in text: String) -> (match: Range<Int>?, work: Int) {
    var text = text
    var work = 0
    let match = text.withUTF8 { program.search($0, work: &work) }
    return (match, work)
  }

  /// The number of steps in the compiled program.
  package var programSize: Int { program.steps.count }

  /// Why a pattern was refused.
  public struct RegexError: Error, Sendable, Equatable {
    /// What is wrong.
    public var message: String
    /// Where in the pattern, 0-based, when known.
    public var offset: Int?
  }
}

// MARK: - Syntax tree

/// A zero-width test between two characters.
package enum RegexAssertion: Int32, Sendable {
  case textStart, textEnd, wordBoundary, notWordBoundary, wordStart, wordEnd

  /// Whether it holds between `previous` and `next` (`nil` at either end of the text).
  package func holds(_ previous: Unicode.Scalar?, _ next: Unicode.Scalar?) -> Bool {
    holds(previousIsWord: previous.map(WordCharacter.contains), next)
  }

  /// Whether it holds after a character that is (`true`) or is not a word character, or at the start of
  /// the text (`nil`), and before `next` (`nil` at the end).
  package func holds(previousIsWord: Bool?, _ next: Unicode.Scalar?) -> Bool {
    let before = previousIsWord ?? false
    let after = next.map(WordCharacter.contains) ?? false
    switch self {
    case .textStart: return previousIsWord == nil
    case .textEnd: return next == nil
    case .wordBoundary: return before != after
    case .notWordBoundary: return before == after
    case .wordStart: return !before && after
    case .wordEnd: return before && !after
    }
  }
}

/// The characters of `\w` and of word boundaries: letters, digits (any script) and `_`.
package enum WordCharacter {
  package static func contains(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.value < 0x80 { return containsASCII(UInt8(scalar.value)) }
    return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
  }

  @inline(__always) package static func containsASCII(_ c: UInt8) -> Bool {
    (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 122) || c == 95
  }
}

/// A bracket expression or shorthand class.
package struct ScalarSet: Sendable {
  /// The named classes of `[[:name:]]`.
  package enum Named: String, Sendable, CaseIterable {
    case alpha, digit, alnum, upper, lower, space, blank, punct, print, graph, cntrl, xdigit, word

    package func contains(_ s: Unicode.Scalar) -> Bool {
      let ascii = s.value < 0x80
      let p = s.properties
      switch self {
      case .alpha: return ascii ? isASCIILetter(s.value) : p.isAlphabetic
      case .digit: return s.value >= 48 && s.value <= 57
      case .alnum: return Named.alpha.contains(s) || Named.digit.contains(s) || (!ascii && p.numericType != nil)
      case .upper: return ascii ? (s.value >= 65 && s.value <= 90) : p.isUppercase
      case .lower: return ascii ? (s.value >= 97 && s.value <= 122) : p.isLowercase
      case .space: return ascii ? (s.value == 32 || (s.value >= 9 && s.value <= 13)) : p.isWhitespace
      case .blank: return s.value == 32 || s.value == 9 || (!ascii && p.generalCategory == .spaceSeparator)
      case .cntrl: return s.value < 32 || s.value == 127 || (!ascii && p.generalCategory == .control)
      case .xdigit: return Named.digit.contains(s) || ((s.value | 0x20) >= 97 && (s.value | 0x20) <= 102)
      case .word: return WordCharacter.contains(s)
      case .print: return Named.graph.contains(s) || s.value == 32 || (!ascii && p.generalCategory == .spaceSeparator)
      case .graph:
        if ascii { return s.value > 32 && s.value < 127 }
        switch p.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .spaceSeparator, .lineSeparator,
          .paragraphSeparator:
          return false
        default: return true
        }
      case .punct:
        if ascii { return Named.graph.contains(s) && !Named.alnum.contains(s) }
        switch p.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
          .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
          return true
        default: return false
        }
      }
    }

    private func isASCIILetter(_ v: UInt32) -> Bool { (v | 0x20) >= 97 && (v | 0x20) <= 122 }
  }

  /// Members below U+0080, as a 128-bit map, with `negated` already applied.
  package var ascii: (UInt64, UInt64) = (0, 0)
  /// Members from U+0080 up.
  package var ranges: [ClosedRange<UInt32>] = []
  package var classes: [Named] = []
  package var negated = false

  package mutating func insert(_ range: ClosedRange<UInt32>) {
    if range.lowerBound < 0x80 { for v in range.lowerBound..<min(range.upperBound + 1, 0x80) { setASCII(v) } }
    if range.upperBound >= 0x80 { ranges.append(max(range.lowerBound, 0x80)...range.upperBound) }
  }

  package mutating func insert(_ named: Named) {
    for v in UInt32(0)..<0x80 where named.contains(Unicode.Scalar(UInt8(v))) { setASCII(v) }
    classes.append(named)
  }

  /// Applies `negated` to the ASCII map; call once, after the last insert.
  package mutating func finish() {
    if negated { ascii = (~ascii.0, ~ascii.1) }
  }

  private mutating func setASCII(_ v: UInt32) {
    if v < 64 { ascii.0 |= 1 << UInt64(v) } else { ascii.1 |= 1 << UInt64(v - 64) }
  }

  @inline(__always) package func contains(_ v: UInt32) -> Bool {
    if v < 64 { return ascii.0 & (1 << UInt64(v)) != 0 }
    if v < 128 { return ascii.1 & (1 << UInt64(v - 64)) != 0 }
    return containsNonASCII(v)
  }

  private func containsNonASCII(_ v: UInt32) -> Bool {
    var found = ranges.contains { $0.contains(v) }
    if !found, let scalar = Unicode.Scalar(v) { found = classes.contains { $0.contains(scalar) } }
    return found != negated
  }

  /// Whether any member is at or above U+0080.
  package var hasNonASCII: Bool { negated || !ranges.isEmpty || !classes.isEmpty }
}

package indirect enum RegexNode: Sendable {
  case scalar(Unicode.Scalar)
  case any
  case set(ScalarSet)
  case assert(RegexAssertion)
  case sequence([RegexNode])
  case alternatives([RegexNode])
  case repeated(RegexNode, min: Int, max: Int?)

  /// The number of program steps this compiles to, saturating at `limit + 1`.
  package func size(limit: Int) -> Int {
    func cap(_ n: Int) -> Int { n > limit ? limit + 1 : n }
    switch self {
    case .scalar, .any, .set, .assert: return 1
    case .sequence(let nodes): return cap(nodes.reduce(0) { cap($0 + $1.size(limit: limit)) })
    case .alternatives(let nodes): return cap(nodes.reduce(0) { cap($0 + $1.size(limit: limit) + 2) })
    case .repeated(let node, let min, let max):
      let body = node.size(limit: limit)
      let copies = max.map { Swift.max($0, 1) } ?? (min + 1)
      return copies > limit ? limit + 1 : cap(copies * (body + 2))
    }
  }

  /// The longest run of literal characters every match contains (possibly empty).
  package func requiredLiteral() -> String {
    switch self {
    case .scalar(let c): return String(c)
    case .repeated(let body, let min, _) where min >= 1: return body.requiredLiteral()
    case .sequence(let nodes):
      var best = ""
      var run = ""
      func keep(_ candidate: String) {
        if candidate.unicodeScalars.count > best.unicodeScalars.count { best = candidate }
      }
      for node in nodes {
        switch node {
        case .scalar(let c): run.unicodeScalars.append(c)
        case .assert: continue  // zero-width: the literals on both sides stay adjacent
        case .repeated(.scalar(let c), let min, _) where min >= 1:
          // The first copy continues the run; more copies may follow, so the run ends there.
          run.unicodeScalars.append(c)
          keep(run)
          run = ""
        default:
          keep(run)
          run = ""
          keep(node.requiredLiteral())
        }
      }
      keep(run)
      return best
    default: return ""
    }
  }
}

// MARK: - Parser

private struct RegexParser {
  package let scalars: [Unicode.Scalar]
  package let fold: Bool
  package var index = 0
  /// How many groups enclose the current position; bounded so that compiling cannot exhaust the stack.
  package var depth = 0
  package static let maxDepth = 100

  package init(scalars: [Unicode.Scalar], fold: Bool) {
    self.scalars = scalars
    self.fold = fold
  }

  package typealias RegexError = LinearRegex.RegexError

  package func fail(_ message: String, at offset: Int? = nil) -> RegexError {
    RegexError(message: message, offset: offset ?? index)
  }

  package var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

  package mutating func parseAll() throws(RegexError) -> RegexNode {
    let node = try parseAlternatives()
    if index < scalars.count { throw fail("unmatched ')'") }
    return node
  }

  package mutating func parseAlternatives() throws(RegexError) -> RegexNode {
    var branches = [try parseSequence()]
    while peek == "|" {
      index += 1
      branches.append(try parseSequence())
    }
    return branches.count == 1 ? branches[0] : .alternatives(branches)
  }

  package mutating func parseSequence() throws(RegexError) -> RegexNode {
    var nodes: [RegexNode] = []
    while let c = peek, c != "|", c != ")" {
      var atom = try parseAtom()
      while let q = peek, "*+?{".unicodeScalars.contains(q), let (min, max) = try parseQuantifier() {
        atom = .repeated(atom, min: min, max: max)
        if peek == "?" { throw fail("lazy quantifiers ('*?', '+?') are not supported") }
      }
      // An unrepeated group, or a literal that folds to several characters, joins this sequence.
      if case .sequence(let inner) = atom { nodes.append(contentsOf: inner) } else { nodes.append(atom) }
    }
    return nodes.count == 1 ? nodes[0] : .sequence(nodes)
  }

  /// `*`, `+`, `?` or `{n}`, `{n,}`, `{n,m}`, `{,m}`; `nil`, with nothing consumed, when a `{` does not
  /// start a valid count (then it is a literal).
  package mutating func parseQuantifier() throws(RegexError) -> (Int, Int?)? {
    let start = index
    index += 1
    switch scalars[start] {
    case "*": return (0, nil)
    case "+": return (1, nil)
    case "?": return (0, 1)
    default: break
    }
    func number(_ p: inout RegexParser) -> Int? {
      var value: Int?
      while let c = p.peek, c.isASCII, let digit = Int(String(c)) {
        value = Swift.min((value ?? 0) * 10 + digit, 1_000_000)
        p.index += 1
      }
      return value
    }
    let low = number(&self)
    var high = low
    var comma = false
    if peek == "," {
      index += 1
      comma = true
      high = number(&self)
    }
    guard peek == "}", low != nil || (comma && high != nil) else {
      index = start
      return nil
    }
    index += 1
    let min = low ?? 0
    if let high, high < min {
      throw fail("invalid count {\(min),\(high)}: the maximum is below the minimum", at: start)
    }
    if min > LinearRegex.maxRepeat || (high ?? 0) > LinearRegex.maxRepeat {
      throw fail("counts above \(LinearRegex.maxRepeat) are not supported", at: start)
    }
    return (min, high)
  }

  package mutating func parseAtom() throws(RegexError) -> RegexNode {
    let start = index
    let c = scalars[index]
    index += 1
    switch c {
    case "(":
      if peek == "?" {
        guard index + 1 < scalars.count, scalars[index + 1] == ":" else {
          throw fail("look-around and other '(?' groups are not supported", at: start)
        }
        index += 2
      }
      depth += 1
      guard depth <= Self.maxDepth else { throw fail("groups nested more than \(Self.maxDepth) deep", at: start) }
      let inner = try parseAlternatives()
      depth -= 1
      guard peek == ")" else { throw fail("unmatched '('", at: start) }
      index += 1
      return inner
    case "[": return .set(try parseBracket(start: start))
    case ".": return .any
    case "^": return .assert(.textStart)
    case "$": return .assert(.textEnd)
    case "*", "+", "?": throw fail("nothing to repeat before '\(c)'", at: start)
    case "{":
      index = start
      if try parseQuantifier() != nil { throw fail("nothing to repeat before '{'", at: start) }
      index = start + 1
      return literal(c)
    case "\\": return try parseEscape(start: start)
    default: return literal(c)
    }
  }

  package func literal(_ c: Unicode.Scalar) -> RegexNode {
    guard fold else { return .scalar(c) }
    let folded = Array(TextFolding.fold(String(c)).unicodeScalars)
    return folded.count == 1 ? .scalar(folded[0]) : .sequence(folded.map { .scalar($0) })
  }

  package func foldedMember(_ c: Unicode.Scalar) -> Unicode.Scalar {
    guard fold else { return c }
    let folded = Array(TextFolding.fold(String(c)).unicodeScalars)
    return folded.count == 1 ? folded[0] : c
  }

  package static func shorthand(_ c: Unicode.Scalar) -> (ScalarSet.Named, negated: Bool)? {
    switch c {
    case "d": return (.digit, false)
    case "D": return (.digit, true)
    case "s": return (.space, false)
    case "S": return (.space, true)
    case "w": return (.word, false)
    case "W": return (.word, true)
    default: return nil
    }
  }

  package mutating func parseEscape(start: Int) throws(RegexError) -> RegexNode {
    guard let next = peek else { throw fail("a pattern cannot end with '\\'", at: start) }
    index += 1
    if let (named, negated) = Self.shorthand(next) {
      var set = ScalarSet()
      set.insert(named)
      set.negated = negated
      set.finish()
      return .set(set)
    }
    switch next {
    case "b": return .assert(.wordBoundary)
    case "B": return .assert(.notWordBoundary)
    case "<": return .assert(.wordStart)
    case ">": return .assert(.wordEnd)
    case "n": return .scalar("\n")
    case "t": return .scalar("\t")
    case "1"..."9":
      throw fail("back-references ('\\\(next)') are not supported: they need backtracking", at: start)
    default:
      if next.properties.isAlphabetic || next.properties.numericType != nil {
        throw fail("unsupported escape '\\\(next)'", at: start)
      }
      return literal(next)
    }
  }

  /// The members of `[...]` after the `[`.
  package mutating func parseBracket(start: Int) throws(RegexError) -> ScalarSet {
    var set = ScalarSet()
    if peek == "^" {
      set.negated = true
      index += 1
    }
    var first = true
    while true {
      guard let c = peek else { throw fail("unmatched '['", at: start) }
      if c == "]", !first { index += 1; break }
      first = false
      let memberStart = index
      var low: Unicode.Scalar
      if c == "[", index + 1 < scalars.count, ":=.".unicodeScalars.contains(scalars[index + 1]) {
        let kind = scalars[index + 1]
        var end = index + 2
        while end + 1 < scalars.count, !(scalars[end] == kind && scalars[end + 1] == "]") { end += 1 }
        guard end + 1 < scalars.count else { throw fail("unterminated '[\(kind)'", at: memberStart) }
        let name = String(String.UnicodeScalarView(scalars[(index + 2)..<end]))
        index = end + 2
        guard kind == ":" else {
          let inner = Array(name.unicodeScalars)
          guard inner.count == 1 else { throw fail("'[\(kind)\(name)\(kind)]' is not supported", at: memberStart) }
          low = foldedMember(inner[0])
          set.insert(low.value...low.value)
          continue
        }
        guard let named = ScalarSet.Named(rawValue: name), named != .word else {
          throw fail("unknown character class '[:\(name):]'", at: memberStart)
        }
        set.insert(named)
        continue
      }
      index += 1
      if c == "\\" {
        guard let e = peek else { throw fail("unmatched '['", at: start) }
        index += 1
        if let (named, negated) = Self.shorthand(e) {
          guard !negated else { throw fail("'\\\(e)' is not supported inside [...]", at: memberStart) }
          set.insert(named)
          continue
        }
        switch e {
        case "n": low = "\n"
        case "t": low = "\t"
        default:
          if e.properties.isAlphabetic || e.properties.numericType != nil {
            throw fail("unsupported escape '\\\(e)' inside [...]", at: memberStart)
          }
          low = e
        }
      } else {
        low = c
      }
      // A range 'a-z' (a '-' before the closing ']' is a literal).
      if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
        index += 1
        var high = scalars[index]
        index += 1
        if high == "\\", let e = peek {
          high = e
          index += 1
        }
        var (lo, hi) = (foldedMember(low), foldedMember(high))
        if lo.value > hi.value { (lo, hi) = (low, high) }
        guard lo.value <= hi.value else {
          throw fail("invalid range '\(low)-\(high)': the end is before the start", at: memberStart)
        }
        set.insert(lo.value...hi.value)
        continue
      }
      let member = foldedMember(low)
      set.insert(member.value...member.value)
    }
    set.finish()
    return set
  }
}

// MARK: - Program

/// The compiled machine: consuming steps, forks, jumps, assertions and a final match.
package struct Program: Sendable {
  package enum Step: Sendable {
    case scalar(UInt32)
    case any
    case set(Int32)
    case split(Int32, Int32)
    case jump(Int32)
    case assert(RegexAssertion)
    case match
  }

  package var steps: [Step] = []
  package var sets: [ScalarSet] = []
  /// The first UTF-8 bytes a match can start with, as a 256-bit map; `nil` when a match can be empty
  /// or start with any character.
  package var startBytes: [UInt64]?
  /// Whether a match can start after the first character (false when every branch starts with `^`).
  package var startsAfterFirst = true

  package init(_ tree: RegexNode) throws(LinearRegex.RegexError) {
    let limit = LinearRegex.maxProgramSize
    if tree.size(limit: limit) > limit {
      throw LinearRegex.RegexError(
        message: "the pattern is too large (over \(limit) steps once its counts are expanded)", offset: nil)
    }
    emit(tree)
    steps.append(.match)
    analyseStart()
    flatten()
  }

  private mutating func emit(_ node: RegexNode) {
    switch node {
    case .scalar(let c): steps.append(.scalar(c.value))
    case .any: steps.append(.any)
    case .set(let set):
      steps.append(.set(Int32(sets.count)))
      sets.append(set)
    case .assert(let a): steps.append(.assert(a))
    case .sequence(let nodes): nodes.forEach { emit($0) }
    case .alternatives(let nodes):
      var jumps: [Int] = []
      for (i, branch) in nodes.enumerated() {
        if i < nodes.count - 1 {
          let split = steps.count
          steps.append(.split(0, 0))
          emit(branch)
          jumps.append(steps.count)
          steps.append(.jump(0))
          steps[split] = .split(Int32(split + 1), Int32(steps.count))
        } else {
          emit(branch)
        }
      }
      for j in jumps { steps[j] = .jump(Int32(steps.count)) }
    case .repeated(let body, let min, let max):
      for _ in 0..<min { emit(body) }
      if let max {
        // Optional copies: each one may be skipped to the end.
        var splits: [Int] = []
        for _ in min..<Swift.max(max, min) {
          splits.append(steps.count)
          steps.append(.split(0, 0))
          emit(body)
        }
        for s in splits { steps[s] = .split(Int32(s + 1), Int32(steps.count)) }
      } else {
        let loop = steps.count
        steps.append(.split(0, 0))
        emit(body)
        steps.append(.jump(Int32(loop)))
        steps[loop] = .split(Int32(loop + 1), Int32(steps.count))
      }
    }
  }

  /// Fills `startBytes` and `startsAfterFirst` from the steps reachable before the first character.
  private mutating func analyseStart() {
    var seen = Set<Int>()
    var bytes: [UInt64] = [0, 0, 0, 0]
    var anywhere = false
    var afterFirst = false
    func mark(_ b: Int) { bytes[b >> 6] |= 1 << UInt64(b & 63) }
    // Each entry: a step, and whether it is reached without passing a '^'.
    var work: [(Int, Bool)] = [(0, true)]
    while let (pc, free) = work.popLast() {
      guard seen.insert(pc * 2 + (free ? 1 : 0)).inserted else { continue }
      switch steps[pc] {
      case .scalar(let c):
        afterFirst = afterFirst || free
        mark(Self.leadByte(c))
      case .any, .match:
        afterFirst = afterFirst || free
        anywhere = true
      case .set(let index):
        afterFirst = afterFirst || free
        let set = sets[Int(index)]
        for b in 0..<128 where set.contains(UInt32(b)) { mark(b) }
        if set.hasNonASCII { (0xC0...0xFF).forEach(mark) }  // every lead byte of a longer character
      case .split(let x, let y):
        work.append((Int(x), free))
        work.append((Int(y), free))
      case .jump(let x): work.append((Int(x), free))
      case .assert(let a): work.append((pc + 1, free && a != .textStart))
      }
    }
    startBytes = anywhere ? nil : bytes
    startsAfterFirst = afterFirst
  }

  /// The first UTF-8 byte of the character `value`.
  private static func leadByte(_ value: UInt32) -> Int {
    switch value {
    case ..<0x80: Int(value)
    case ..<0x800: 0xC0 | Int(value >> 6)
    case ..<0x10000: 0xE0 | Int(value >> 12)
    default: 0xF0 | Int(value >> 18)
    }
  }

  // MARK: Matching

  /// One step as the matchers read it, a plain value.
  ///
  /// Kept in one contiguous array, so the inner loop does no reference counting. `a` and `b` are the
  /// step's operands; a set's ASCII members are inline.
  package struct Instruction {
    package enum Op: UInt8 { case scalar, any, set, split, jump, assert, match }
    package var op: Op
    package var a: Int32 = 0
    package var b: Int32 = 0
    package var low: UInt64 = 0
    package var high: UInt64 = 0
  }

  /// The steps flattened for matching (filled by `flatten`).
  package var instructions: [Instruction] = []

  package mutating func flatten() {
    instructions = steps.map { step in
      switch step {
      case .scalar(let c): Instruction(op: .scalar, a: Int32(bitPattern: c))
      case .any: Instruction(op: .any)
      case .set(let index):
        Instruction(op: .set, a: index, low: sets[Int(index)].ascii.0, high: sets[Int(index)].ascii.1)
      case .split(let x, let y): Instruction(op: .split, a: x, b: y)
      case .jump(let x): Instruction(op: .jump, a: x)
      case .assert(let kind): Instruction(op: .assert, a: kind.rawValue)
      case .match: Instruction(op: .match)
      }
    }
  }

  /// The threads at one text position: each step at most once, with the offset its match started at,
  /// in order of that offset (earliest first).
  private struct Threads {
    package var steps: UnsafeMutableBufferPointer<Int32>
    package var starts: UnsafeMutableBufferPointer<Int32>
    package var count = 0
  }

  /// The memory of one search: two thread lists, the marks of steps already added at the current
  /// position (`marks[pc] == generation`), and the stack of forks still to follow.
  private struct Scratch {
    package var current: Threads
    package var next: Threads
    package let marks: UnsafeMutableBufferPointer<Int32>
    package let stack: UnsafeMutableBufferPointer<Int32>
    package var generation: Int32 = 0
  }

  package func search(_ text: UnsafeBufferPointer<UInt8>, work: inout Int) -> Range<Int>? {
    let size = instructions.count
    return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 6 * size) { memory in
      memory.initialize(repeating: -1)
      guard let base = memory.baseAddress else { return nil }
      func slice(_ i: Int) -> UnsafeMutableBufferPointer<Int32> {
        UnsafeMutableBufferPointer(start: base + i * size, count: size)
      }
      var scratch = Scratch(
        current: Threads(steps: slice(0), starts: slice(1)), next: Threads(steps: slice(2), starts: slice(3)),
        marks: slice(4), stack: slice(5))
      return instructions.withUnsafeBufferPointer { program in
        run(program, text, &scratch, work: &work)
      }
    }
  }

  @inline(__always) package static func decode(_ text: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32 {
    let b0 = UInt32(text[i])
    if b0 < 0x80 { return b0 }
    if b0 < 0xE0 { return (b0 & 0x1F) << 6 | UInt32(text[i + 1] & 0x3F) }
    if b0 < 0xF0 { return (b0 & 0x0F) << 12 | UInt32(text[i + 1] & 0x3F) << 6 | UInt32(text[i + 2] & 0x3F) }
    return (b0 & 0x07) << 18 | UInt32(text[i + 1] & 0x3F) << 12 | UInt32(text[i + 2] & 0x3F) << 6
      | UInt32(text[i + 3] & 0x3F)
  }

  /// The first byte at or after `i` that `startBytes` (a 256-bit map) holds, or the end of `text`.
  @inline(__always)
  package static func nextStart(_ startBytes: [UInt64], in text: UnsafeBufferPointer<UInt8>, from i: Int) -> Int {
    var i = i
    while i < text.count, startBytes[Int(text[i] >> 6)] & (1 << UInt64(text[i] & 63)) == 0 { i += 1 }
    return i
  }

  @inline(__always) package static func length(_ leadByte: UInt8) -> Int {
    leadByte < 0x80 ? 1 : leadByte < 0xE0 ? 2 : leadByte < 0xF0 ? 3 : 4
  }

  /// The character at byte `i`, or `nil` at the end.
  private static func scalar(at i: Int, in text: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
    i < text.count ? Unicode.Scalar(decode(text, i)) : nil
  }

  /// The character ending just before byte `i`, or `nil` at the start.
  package static func scalar(before i: Int, in text: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
    guard i > 0 else { return nil }
    var start = i - 1
    while start > 0, text[start] & 0xC0 == 0x80 { start -= 1 }
    return Unicode.Scalar(decode(text, start))
  }

  /// Adds step `first`, and every step reachable from it without consuming a character at byte
  /// `position`, to `list`, skipping steps already added there.
  @inline(__always)
  private func add(
    _ first: Int32, start: Int32, to list: inout Threads, _ program: UnsafeBufferPointer<Instruction>,
    _ scratch: Scratch, text: UnsafeBufferPointer<UInt8>, position: Int
  ) {
    let generation = scratch.generation
    // Each fork pushes at most once per position, so the stack never holds more than the program size.
    scratch.stack[0] = first
    var top = 1
    while top > 0 {
      top -= 1
      var pc = Int(scratch.stack[top])
      follow: while scratch.marks[pc] != generation {
        scratch.marks[pc] = generation
        let instruction = program[pc]
        switch instruction.op {
        case .jump: pc = Int(instruction.a)
        case .split:
          scratch.stack[top] = instruction.b
          top += 1
          pc = Int(instruction.a)
        case .assert:
          let kind = RegexAssertion(rawValue: instruction.a) ?? .textStart
          guard kind.holds(Self.scalar(before: position, in: text), Self.scalar(at: position, in: text)) else {
            break follow
          }
          pc += 1
        default:
          list.steps[list.count] = Int32(pc)
          list.starts[list.count] = start
          list.count += 1
          break follow
        }
      }
    }
  }

  private func run(
    _ program: UnsafeBufferPointer<Instruction>, _ text: UnsafeBufferPointer<UInt8>, _ scratch: inout Scratch,
    work: inout Int
  ) -> Range<Int>? {
    let end = text.count
    var position = 0
    var best: Range<Int>?
    let startBytes = self.startBytes ?? []
    let skips = !startBytes.isEmpty
    while true {
      // A new thread starts here while no match is known (a later start cannot be leftmost). The
      // current list was filled at this position under the current generation, so it is not repeated.
      if best == nil, position == 0 || startsAfterFirst {
        if scratch.current.count == 0, skips {
          // Nothing is running: jump to the next byte a match can start with.
          let from = position
          position = Self.nextStart(startBytes, in: text, from: position)
          if position == end { return nil }
          if position != from { scratch.generation += 1 }
        }
        add(0, start: Int32(position), to: &scratch.current, program, scratch, text: text, position: position)
      }
      // Nothing running and nothing more to start: done.
      if scratch.current.count == 0, best != nil || !startsAfterFirst || position >= end { return best }
      let value = position < end ? Self.decode(text, position) : UInt32.max
      let after = position < end ? position + Self.length(text[position]) : end
      scratch.generation += 1
      scratch.next.count = 0
      work += scratch.current.count
      for i in 0..<scratch.current.count {
        let start = Int(scratch.current.starts[i])
        if let best, start > best.lowerBound { break }  // the list is in order of start
        let pc = Int(scratch.current.steps[i])
        let instruction = program[pc]
        let matched: Bool
        switch instruction.op {
        case .match:
          if best.map({ start < $0.lowerBound || position > $0.upperBound }) ?? true { best = start..<position }
          continue
        case .scalar: matched = UInt32(bitPattern: instruction.a) == value
        case .any: matched = position < end
        case .set:
          if value < 64 {
            matched = instruction.low & (1 << UInt64(value)) != 0
          } else if value < 128 {
            matched = instruction.high & (1 << UInt64(value - 64)) != 0
          } else {
            matched = position < end && sets[Int(instruction.a)].contains(value)
          }
        default: matched = false
        }
        if matched {
          add(Int32(pc + 1), start: Int32(start), to: &scratch.next, program, scratch, text: text, position: after)
        }
      }
      if position >= end { return best }
      swap(&scratch.current, &scratch.next)
      position = after
    }
  }
}
