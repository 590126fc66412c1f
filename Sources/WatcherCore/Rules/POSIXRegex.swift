// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A compiled regular expression on glibc's POSIX engine, with the common Perl escapes translated.
///
/// Why this engine: it does not backtrack, and it is about a hundred times faster than Swift's `Regex` on a
/// miss (0.8 µs vs 100 µs on 1.2 KB, measured here). Its limit: an unanchored pattern that fails on a long
/// run of what it repeats costs time quadratic in the run (`(a+)+b` over 40,000 `a`s: 3 s; issue #7).
/// Syntax: POSIX extended (`a|b`, `(x)`, `x{2,3}`, `[[:alpha:]]`) plus `\d \D \s \S \w \W \b \B \< \>`.
/// Not supported: look-around, lazy quantifiers and back-references (glibc matches those by backtracking);
/// they are refused when the config loads, with a message.
/// Matching is UTF-8 aware (the process uses a UTF-8 `LC_CTYPE`).
/// The corresponding C functions are `regcomp`, `regexec`, `regerror` and `regfree`.
public final class POSIXRegex: Sendable {
  /// The compiled `regex_t`, kept as an address so the class is `Sendable`: it is written once in `init`
  /// and only read after (glibc's `regexec` is thread-safe on a shared `regex_t`).
  private let address: Int
  private var compiled: UnsafeMutablePointer<regex_t> {
    // The address was made from a valid allocation in init and lives until deinit.
    UnsafeMutablePointer(bitPattern: address).unsafelyUnwrapped
  }
  /// The pattern as the user wrote it.
  public let pattern: String
  /// Whether it runs on the text as written; otherwise it runs on the folded text.
  public let caseSensitive: Bool
  /// Whether it was compiled for UTF-8 characters (it has non-ASCII characters); then it must also run in a
  /// UTF-8 locale.
  private let utf8: Bool
  /// A piece of text every match must contain, checked with a fast substring search before the regex
  /// engine runs (most texts do not contain it, and then the engine never starts).
  let requiredLiteral: String?

  /// Compiles `pattern`; throws a message (and, when known, the 0-based offset in the pattern) if it is
  /// invalid or uses an unsupported construct.
  public init(_ pattern: String, caseSensitive: Bool) throws(RegexError) {
    Self.ensureUTF8Locale()
    self.pattern = pattern
    self.caseSensitive = caseSensitive
    // Case-insensitive patterns are folded like the text they run on (`TextFolding`), which is much
    // faster than REG_ICASE (glibc upper-cases the whole text on every call in a UTF-8 locale) and gives
    // the same full Unicode folding as the other matchers.
    let translated = try Self.translate(pattern, fold: !caseSensitive)
    let regex = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
    let flags = REG_EXTENDED
    // glibc fixes the character width when it compiles: an ASCII pattern compiled in the C locale runs on
    // bytes, several times faster than in a UTF-8 locale (which converts every text to wide characters on
    // each call). UTF-8 text still matches byte for byte; only '.' and bracket lists see bytes, not
    // characters. Patterns with non-ASCII characters are compiled for UTF-8. uselocale is per thread.
    let ascii = translated.utf8.allSatisfy { $0 < 0x80 }
    utf8 = !ascii
    let previous = uselocale(ascii ? Self.cLocale : Self.utf8Locale)
    defer { uselocale(previous) }
    let status = regcomp(regex, translated, flags)
    if status != 0 {
      var buffer = [CChar](repeating: 0, count: 256)
      regerror(status, regex, &buffer, buffer.count)
      regex.deallocate()
      let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw RegexError(message: message, offset: nil)
    }
    address = Int(bitPattern: regex)
    requiredLiteral = Self.requiredLiteral(translated)
  }

  deinit {
    regfree(compiled)
    compiled.deallocate()
  }

  /// The first match in `text`, as a range of UTF-8 offsets, or `nil`.
  public func firstMatch(in text: String) -> Range<Int>? {
    if let literal = requiredLiteral, ItemFacts.find(text, literal, wholeWord: false) == nil { return nil }
    var match = regmatch_t()
    let previous = uselocale(utf8 ? Self.utf8Locale : Self.cLocale)
    defer { uselocale(previous) }
    let status = text.withCString { regexec(compiled, $0, 1, &match, 0) }
    guard status == 0 else { return nil }
    return Int(match.rm_so)..<Int(match.rm_eo)
  }

  /// Why a pattern was refused.
  public struct RegexError: Error, Sendable, Equatable {
    /// The engine's (or our) message.
    public var message: String
    /// Where in the pattern, 0-based, when known.
    public var offset: Int?
  }

  /// The longest run of literal characters that every match of the (translated) pattern contains, or `nil`.
  ///
  /// Conservative: only top-level literals outside any group, bracket or alternation count, and a
  /// character followed by `?`, `*` or `{` is optional so it ends the run.
  static func requiredLiteral(_ pattern: String) -> String? {
    let s = Array(pattern.unicodeScalars)
    var depth = 0
    var bracket = false
    for (index, c) in s.enumerated() {
      if bracket {
        if c == "]", index > 0, s[index - 1] != "[" { bracket = false }
        continue
      }
      if c == "\\" { continue }
      if c == "[" { bracket = true } else if c == "(" { depth += 1 } else if c == ")" { depth -= 1 }
      // Any top-level alternation makes every literal optional.
      if c == "|", depth == 0, index == 0 || s[index - 1] != "\\" { return nil }
    }
    var best = ""
    var run = ""
    var i = 0
    depth = 0
    func finish() {
      if run.unicodeScalars.count > best.unicodeScalars.count { best = run }
      run = ""
    }
    while i < s.count {
      let c = s[i]
      let next: Unicode.Scalar? = i + 1 < s.count ? s[i + 1] : nil
      let optional = next == "?" || next == "*" || next == "{"
      if c == "\\", let escaped = next {
        // An escaped punctuation character is a literal; \b, \<, \w and friends are not.
        let after: Unicode.Scalar? = i + 2 < s.count ? s[i + 2] : nil
        if "\\.^$|?*+()[]{}/-".unicodeScalars.contains(escaped), after != "?", after != "*", after != "{" {
          run.unicodeScalars.append(escaped)
        } else {
          finish()
        }
        i += 2
        continue
      }
      if c == "(" || c == "[" {
        finish()
        // Skip the whole group or bracket expression.
        let close: Unicode.Scalar = c == "(" ? ")" : "]"
        var level = 0
        var j = i
        while j < s.count {
          if s[j] == "\\" {
            j += 2
            continue
          }
          if s[j] == c {
            level += 1
          } else if s[j] == close {
            level -= 1
            if level == 0 { break }
          }
          j += 1
        }
        i = j + 1
        continue
      }
      if ".^$+?*{}|)".unicodeScalars.contains(c) || optional {
        finish()
        if c == "{" {
          while i < s.count, s[i] != "}" { i += 1 }
        }
        i += 1
        continue
      }
      run.unicodeScalars.append(c)
      i += 1
    }
    finish()
    return best.unicodeScalars.count >= 2 ? best : nil
  }

  /// Perl escapes to POSIX classes; look-around and lazy quantifiers refused with their offset.
  static func translate(_ pattern: String, fold: Bool) throws(RegexError) -> String {
    let scalars = Array(pattern.unicodeScalars)
    var out = ""
    var i = 0
    var inBracket = false
    func classes(_ c: Unicode.Scalar, bracket: Bool) -> String? {
      switch c {
      case "d": return bracket ? "0-9" : "[0-9]"
      case "D": return bracket ? nil : "[^0-9]"
      case "s": return bracket ? "[:space:]" : "[[:space:]]"
      case "S": return bracket ? nil : "[^[:space:]]"
      case "w": return bracket ? "[:alnum:]_" : "[[:alnum:]_]"
      case "W": return bracket ? nil : "[^[:alnum:]_]"
      default: return nil
      }
    }
    while i < scalars.count {
      let c = scalars[i]
      if c == "\\", i + 1 < scalars.count {
        let next = scalars[i + 1]
        if let replacement = classes(next, bracket: inBracket) {
          out += replacement
        } else if !inBracket, ("1"..."9").contains(next) {
          // glibc matches backreferences by backtracking: '^(a*)*\1b' takes minutes on 5,000 'a's.
          throw RegexError(
            message: "backreferences ('\\\(next)') are not supported: they can take exponential time on a long text",
            offset: i)
        } else if inBracket, "DSW".unicodeScalars.contains(next) {
          throw RegexError(message: "'\\\(next)' is not supported inside [...]", offset: i)
        } else if next == "t" {
          out += "\t"
        } else if next == "n" {
          out += "\n"
        } else {
          out.unicodeScalars.append(c)
          out.unicodeScalars.append(next)
        }
        i += 2
        continue
      }
      if inBracket {
        if c == "]" {
          inBracket = false
        } else if c == "[", i + 1 < scalars.count,
          scalars[i + 1] == ":" || scalars[i + 1] == "=" || scalars[i + 1] == "."
        {
          // A class name such as [:alpha:] is copied as is.
          let close = scalars[(i + 2)...].firstIndex(of: scalars[i + 1]) ?? scalars.count - 1
          let end = min(scalars.count - 1, close + 1)
          out.unicodeScalars.append(contentsOf: scalars[i...end])
          i = end + 1
          continue
        }
        if fold { out += TextFolding.fold(String(c)) } else { out.unicodeScalars.append(c) }
        i += 1
        continue
      }
      if c == "[" {
        inBracket = true
        out.unicodeScalars.append(c)
        // A ']' right after '[' or '[^' is a literal member.
        var j = i + 1
        if j < scalars.count, scalars[j] == "^" {
          out.unicodeScalars.append("^")
          j += 1
        }
        if j < scalars.count, scalars[j] == "]" {
          out.unicodeScalars.append("]")
          j += 1
        }
        i = j
        continue
      }
      if c == "(", i + 1 < scalars.count, scalars[i + 1] == "?" {
        if i + 2 < scalars.count, scalars[i + 2] == ":" {
          out += "("
          i += 3
          continue
        }
        throw RegexError(
          message: "look-around and other '(?' groups are not supported (POSIX extended syntax)", offset: i)
      }
      if c == "?", i > 0, "*+?}".unicodeScalars.contains(scalars[i - 1]) {
        throw RegexError(message: "lazy quantifiers ('*?', '+?') are not supported (POSIX extended syntax)", offset: i)
      }
      if fold { out += TextFolding.fold(String(c)) } else { out.unicodeScalars.append(c) }
      i += 1
    }
    if inBracket { throw RegexError(message: "unmatched '['", offset: pattern.unicodeScalars.count) }
    return out
  }

  /// The locales patterns are compiled in, as addresses (`locale_t` is not `Sendable`); made once, kept.
  private static let locales: (c: Int, utf8: Int) = {
    let c = newlocale(LC_CTYPE_MASK, "C", nil)
    let utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil) ?? newlocale(LC_CTYPE_MASK, "C.utf8", nil) ?? c
    return (Int(bitPattern: c), Int(bitPattern: utf8))
  }()
  private static var cLocale: locale_t? { locale_t(bitPattern: locales.c) }
  private static var utf8Locale: locale_t? { locale_t(bitPattern: locales.utf8) }

  private static func ensureUTF8Locale() { _ = locales }
}
