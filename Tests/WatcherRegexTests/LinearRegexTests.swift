// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

@testable import WatcherRegex

/// The rule regex engine: POSIX extended syntax with Perl shorthands, leftmost-longest matches, and work
/// linear in the text whatever the text (issue #7).
@Suite("Linear regex")
struct LinearRegexTests {
  static func match(_ pattern: String, _ text: String, caseSensitive: Bool = true) throws -> String? {
    let regex = try LinearRegex(pattern, caseSensitive: caseSensitive)
    guard let range = regex.firstMatch(in: text) else { return nil }
    return String(decoding: Array(text.utf8)[range], as: UTF8.self)
  }

  @Test(
    "matches are leftmost, then longest",
    arguments: [
      ("a|ab", "xab", "ab"), ("abcd|c", "xabcd", "abcd"), ("a*", "baaa", ""), ("a+", "baaa", "aaa"),
      ("(a|b)*c", "abxababc", "ababc"), ("x(ab)?", "xab", "xab"), ("[0-9]{2,3}", "a12345", "123"),
      ("colou?r", "the color", "color"), ("b{2}", "abbbb", "bb"), ("a{,2}b", "aaab", "aab"),
      ("^abc$", "abc", "abc"), ("a.c", "a\nc", "a\nc"), ("\\d+\\.\\d+", "v 6.3.1", "6.3"),
      ("\\bcat\\b", "concat cat", "cat"), ("\\<is\\>", "this is", "is"), ("\\Bis", "this", "is"),
      ("(?:ab)+", "ababab", "ababab"), ("a\\|b", "a|b", "a|b"), ("[]a]+", "x]a]", "]a]"),
      ("[^]a]+", "]]bc", "bc"), ("[a\\]]+", "x]a", "]a"), ("[-a]+", "x-a", "-a"), ("[a-]+", "x-a", "-a"),
      ("[[:digit:][:space:]]+", "ab1 2c", "1 2"), ("\\w+@\\w+", "mail me@host now", "me@host"),
      ("a{", "a{", "a{"), ("{x}", "{x}", "{x}"), ("a{,}", "a{,}", "a{,}"), ("()*a", "a", "a"),
      ("(a*)*b", "aab", "aab"), ("(a|)+b", "ab", "ab"), ("^(x*)*(^.)", "b", "b"), ("\\t", "a\tb", "\t"),
    ])
  func semantics(_ pattern: String, _ text: String, _ expected: String) throws {
    #expect(try Self.match(pattern, text) == expected)
  }

  @Test("no match", arguments: [("^b", "ab"), ("a$", "ab"), ("\\bcat\\b", "concat"), ("x{3}", "xx"), ("[^a]", "aaa")])
  func misses(_ pattern: String, _ text: String) throws {
    #expect(try Self.match(pattern, text) == nil)
  }

  @Test("characters, not bytes: '.', classes, ranges and word boundaries see whole UTF-8 characters")
  func unicode() throws {
    #expect(try Self.match("^.$", "é") == "é")
    #expect(try Self.match("^...$", "日本語") == "日本語")
    #expect(try Self.match("[à-ü]+", "caféine") == "é")
    #expect(try Self.match("\\w+", "  naïve  ") == "naïve")
    #expect(try Self.match("[[:alpha:]]+", "1Ωμέγα2") == "Ωμέγα")
    #expect(try Self.match("\\bcafé\\b", "un café noir") == "café")
    #expect(try Self.match("\\bcafé\\b", "cafés") == nil)
    #expect(try Self.match("[^a]", "aé") == "é")
    #expect(try Self.match("\\s+", "a\u{00A0}\u{2003}b") == "\u{00A0}\u{2003}")
    #expect(try Self.match("🎉+", "yay 🎉🎉!") == "🎉🎉")
  }

  @Test("case-insensitive patterns are folded like the text they run on")
  func folding() throws {
    let regex = try LinearRegex("STRASSE|ÉLAN [A-C]", caseSensitive: false)
    #expect(regex.firstMatch(in: TextFolding.fold("Die Straße")) != nil)
    #expect(regex.firstMatch(in: TextFolding.fold("élan B")) != nil)
    #expect(regex.firstMatch(in: TextFolding.fold("élan D")) == nil)
  }

  @Test(
    "invalid or unsupported patterns are refused with a message and where",
    arguments: [
      ("a(b", "unmatched '('", 1), ("ab)", "unmatched ')'", 2), ("x[ab", "unmatched '['", 1),
      ("*a", "nothing to repeat", 0), ("a|+", "nothing to repeat", 2), ("{2}", "nothing to repeat", 0),
      ("a*?", "lazy", 2), ("(a)\\1", "back-references", 3), ("x(?=y)", "look-around", 1),
      ("\\p{L}", "unsupported escape '\\p'", 0), ("a{3,2}", "below the minimum", 1),
      ("a{1001}", "counts above 1000", 1), ("[[:alfa:]]", "unknown character class", 1),
      ("[z-a]", "invalid range", 1), ("[\\W]", "not supported inside", 1), ("ab\\", "cannot end with", 2),
      ("(a{1000}){1000}", "too large", nil),
    ])
  func refused(_ pattern: String, _ message: String, _ offset: Int?) {
    #expect {
      _ = try LinearRegex(pattern, caseSensitive: true)
    } throws: { error in
      guard let error = error as? LinearRegex.RegexError else { return false }
      return error.message.contains(message) && error.offset == offset
    }
  }

  @Test("deep nesting is refused rather than exhausting the stack")
  func nesting() throws {
    let deep = String(repeating: "(", count: 10_000) + "a" + String(repeating: ")", count: 10_000)
    #expect(throws: LinearRegex.RegexError.self) { try LinearRegex(deep, caseSensitive: true) }
    let fine = String(repeating: "(", count: 50) + "a" + String(repeating: ")", count: 50)
    #expect(try LinearRegex(fine, caseSensitive: true).firstMatch(in: "xa") == 1..<2)
  }

  /// A hostile text, named in the test's output by its pattern and size, not its megabyte of text.
  struct HostileText: Sendable, CustomTestStringConvertible {
    let pattern: String
    let text: String
    var testDescription: String { "\(pattern) over \(text.utf8.count) bytes" }
  }

  /// Patterns that take backtracking engines exponential time, and glibc's quadratic time, on texts
  /// written to defeat them (1 MB).
  static let hostile: [HostileText] = [
    HostileText(pattern: "(a+)+b", text: String(repeating: "a", count: 1 << 20)),
    HostileText(pattern: "a+b", text: String(repeating: "a", count: 1 << 20)),
    HostileText(pattern: "(a|aa)*b", text: String(repeating: "a", count: 1 << 20)),
    HostileText(pattern: "(.*)*x", text: String(repeating: "y", count: 1 << 20)),
    HostileText(pattern: "(\\w+\\s?)+$", text: String(repeating: "word ", count: 1 << 18) + "!"),
    HostileText(pattern: "([a-z]+)*[0-9]{4}z", text: String(repeating: "ab1234", count: 1 << 17)),
  ]

  @Test("work is at most (text length + 1) × program size on hostile 1 MB texts", arguments: hostile)
  func linear(_ hostile: HostileText) throws {
    let (pattern, text) = (hostile.pattern, hostile.text)
    let regex = try LinearRegex(pattern, caseSensitive: true)
    let (match, work) = regex.matchCountingWork(in: text)
    #expect(match == nil)
    let bound = (text.utf8.count + 1) * regex.programSize
    #expect(work <= bound, "\(pattern): \(work) thread steps, bound \(bound)")
    // And it is far below the bound in practice: a few steps per character.
    #expect(work <= 8 * (text.utf8.count + 1), "\(pattern): \(work) thread steps")
  }

  /// Random patterns over a small alphabet, checked against Foundation's (ICU) engine on short texts:
  /// the same texts match, and the match starts at the same place (both are leftmost).
  @Test("agrees with ICU on 2,000 random patterns")
  func differential() throws {
    var random = SplitMix(seed: 7)
    let atoms = ["a", "b", "c", ".", "[ab]", "[^a]", "\\d", "\\w", "\\s", "1", " "]
    func pattern(_ depth: Int) -> String {
      var out = ""
      for _ in 0..<(1 + random.next(3)) {
        var atom = depth < 2 && random.next(4) == 0 ? "(\(pattern(depth + 1)))" : atoms[random.next(atoms.count)]
        if depth < 2, random.next(6) == 0 { atom = "(\(pattern(depth + 1))|\(pattern(depth + 1)))" }
        out += atom + ["", "", "*", "+", "?", "{1,2}", "{2}"][random.next(7)]
      }
      // Anchors only at the top: ICU cannot repeat an empty-matching group zero times before an inner
      // '^' (it misses '^(x*)*(^.)' on "b"; Python's re and POSIX agree with us, see `semantics`).
      if depth == 0, random.next(8) == 0 { out = "^" + out }
      if depth == 0, random.next(8) == 0 { out += "$" }
      return out
    }
    let alphabet = Array("abc1 ")
    var disagreements: [String] = []
    for _ in 0..<2_000 {
      let p = pattern(0)
      let ours = try LinearRegex(p, caseSensitive: true)
      let icu = try NSRegularExpression(pattern: p)
      for _ in 0..<10 {
        let text = String((0..<random.next(12)).map { _ in alphabet[random.next(alphabet.count)] })
        let expected = icu.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))?.range.location
        let actual = ours.firstMatch(in: text)?.lowerBound
        if expected != actual {
          disagreements.append(
            "\(p) on '\(text)': ICU \(String(describing: expected)), ours \(String(describing: actual))")
        }
      }
    }
    #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
  }

  /// The DFA (which answers "is there a match?") and the Pike VM (which finds where) must agree, also
  /// across word boundaries, non-ASCII text, and a DFA cache emptied again and again for lack of room.
  @Test("the DFA and the Pike VM agree, also when the DFA cache overflows")
  func dfaAgreesWithPikeVM() throws {
    var random = SplitMix(seed: 11)
    let patterns = [
      "(a|b)*a(a|b){9}", "\\bé[a-z]*\\b", "\\<ab|ba\\>", "^a.*b$", "[^[:alpha:]]+x", "\\Bb\\B", "é{2,}|ß",
      "(a|é)+b?$", "x*", "^$",
    ]
    let alphabet: [Character] = ["a", "b", "é", " ", "x", "1", "ß"]
    var disagreements: [String] = []
    for pattern in patterns {
      let regex = try LinearRegex(pattern, caseSensitive: true)
      for _ in 0..<400 {
        // Only a's and b's for the first pattern: its 1,024 states need long runs of them.
        let letters = pattern == patterns[0] ? ["a", "b"] : alphabet
        let length = random.next(pattern == patterns[0] ? 200 : 40)
        let text = String((0..<length).map { _ in letters[random.next(letters.count)] })
        let dfa = regex.dfaMatches(text)
        let pike = regex.matchCountingWork(in: text).match != nil
        if dfa != pike { disagreements.append("\(pattern) on '\(text)': DFA \(String(describing: dfa)), VM \(pike)") }
      }
      if pattern == patterns[0] { #expect(regex.dfaCacheResets > 0, "the cache never overflowed") }
    }
    #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
  }

  @Test("one regex is safe to share between threads")
  func concurrent() async throws {
    let regex = try LinearRegex("[a-z]+-[0-9]{2,}\\b", caseSensitive: true)
    let texts = (0..<200).map { "item \($0) tag-\($0 % 7 == 0 ? "\($0 + 10)" : "x") end" }
    let expected = texts.map { regex.matchCountingWork(in: $0).match }
    let results = await withTaskGroup(of: [Range<Int>?].self) { group in
      for _ in 0..<4 { group.addTask { texts.map { regex.firstMatch(in: $0) } } }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results.count == 4 && results.allSatisfy { $0 == expected })
  }
}
