// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

struct RegexParser {
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
