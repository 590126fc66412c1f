// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

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
  /// Lazily built DFAs that answer "is there a match?" before the Pike VM finds where: one per processor
  /// (up to 8), each with its own cache and lock, so that threads evaluating rules at once each warm and
  /// use their own instead of finding one cache busy and falling back to the Pike VM.
  private let dfas: [LazyDFA]

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
    let program = try Program(tree)
    self.program = program
    let copies = min(Processors.available, 8)
    dfas = (0..<copies).map { _ in LazyDFA(program) }
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
      guard dfaMatches(bytes) != false else { return nil }
      var work = 0
      return program.search(bytes, work: &work)
    }
  }

  /// Whether `text` has a match anywhere: the DFA alone when it can answer (the Pike VM only when its cache
  /// is busy on another thread), so no match position is computed.
  public func isMatch(_ text: String) -> Bool {
    isMatch(text, literalFound: false)
  }

  /// `isMatch`, without looking for the required literal again when the caller has found it already.
  package func isMatch(_ text: String, literalFound: Bool) -> Bool {
    if !literalFound, let literal = requiredLiteral, ByteSearch.find(text, literal, wholeWord: false) == nil {
      return false
    }
    var text = text
    return text.withUTF8 { bytes in
      if let answer = dfaMatches(bytes) { return answer }
      var work = 0
      return program.search(bytes, work: &work) != nil
    }
  }

  /// The answer of the first DFA free, starting from the one this thread prefers; `nil` when all are busy.
  private func dfaMatches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
    let count = dfas.count
    let preferred = count == 1 ? 0 : ThreadSlot.current % count
    for offset in 0..<count {
      if let answer = dfas[(preferred + offset) % count].matches(bytes) { return answer }
    }
    return nil
  }

  /// How many times the first DFA's cache was emptied to make room (0 until it overflows).
  package var dfaCacheResets: Int { dfas[0].timesEmptied - 1 }

  /// Whether `text` has a match, by the first DFA alone (`nil` when its cache was busy on another thread).
  package func dfaMatches(_ text: String) -> Bool? {
    var text = text
    return text.withUTF8 { dfas[0].matches($0) }
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

/// A small number for the calling thread, handed out in the order threads first ask (0, 1, 2, …) and kept
/// for the thread's life, so that threads evaluating rules at once prefer different DFA caches.
///
/// A hash of the thread's id sent both threads of a 2-core machine to the same cache in about one process
/// out of two, and they then passed its lock and tables back and forth.
enum ThreadSlot {
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()
  private static let lock = Lock()
  nonisolated(unsafe) private static var next = 0

  /// The calling thread's slot.
  static var current: Int {
    if let stored = pthread_getspecific(key) { return Int(bitPattern: stored) - 1 }
    let slot = lock.withLock {
      defer { next += 1 }
      return next
    }
    pthread_setspecific(key, UnsafeRawPointer(bitPattern: slot + 1))
    return slot
  }
}
