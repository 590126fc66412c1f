// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

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
