// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherRegex

#if canImport(Glibc)
  import Glibc
#endif

/// Seconds `body` takes.
func seconds(_ body: () -> Void) -> Double {
  let start = DispatchTime.now()
  body()
  return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

/// glibc's POSIX engine in the C locale (what watcher used before issue #7), for comparison.
struct GlibcRegex {
  var compiled = regex_t()
  init(_ pattern: String) {
    let previous = uselocale(newlocale(LC_CTYPE_MASK, "C", nil))
    defer { uselocale(previous) }
    precondition(regcomp(&compiled, pattern, REG_EXTENDED) == 0, pattern)
  }
  mutating func matches(_ text: String) -> Bool {
    var match = regmatch_t()
    return text.withCString { regexec(&compiled, $0, 1, &match, 0) } == 0
  }
}

/// Hostile texts (time per match, ours against glibc's) and typical texts (matches per second).
func regexBenchmark() throws {
  let hostile: [(String, (Int) -> String)] = [
    ("(a+)+b", { String(repeating: "a", count: $0) }),
    ("a+b", { String(repeating: "a", count: $0) }),
    ("(a|aa)*b", { String(repeating: "a", count: $0) }),
    ("(.*)*x", { String(repeating: "y", count: $0) }),
    ("([a-z]+)*[0-9]{4}z", { String(repeating: "ab1234", count: $0 / 6) }),
  ]
  print("hostile texts: seconds for one search that finds no match")
  print("pattern                   ours 64 KB   glibc 64 KB   ours 1 MB")
  for (pattern, text) in hostile {
    let regex = try LinearRegex(pattern, caseSensitive: true)
    var glibc = GlibcRegex(pattern)
    let small = text(65_536)
    let big = text(1 << 20)
    var found = false
    let oursSmall = seconds { found = found || regex.firstMatch(in: small) != nil }
    let glibcSmall = seconds { found = found || glibc.matches(small) }
    let oursBig = seconds { found = found || regex.firstMatch(in: big) != nil }
    precondition(!found)
    print(
      pattern.padding(toLength: 24, withPad: " ", startingAt: 0)
        + String(format: "%10.4f %13.4f %11.4f", oursSmall, glibcSmall, oursBig))
  }

  // Typical rules with no literal every match must contain, so the engine runs on every text.
  var random = Generator()
  let texts = (0..<50_000).map { index in
    (0..<80).map { _ in random.pick(words) }.joined(separator: " ") + (index % 50 == 0 ? " cve-2026-1234 v6.3" : "")
  }
  let patterns = [
    "[0-9]+\\.[0-9]+", "(cve|ghsa)-[0-9a-z-]+", "[[:alpha:]]+ [0-9]{4}", "[a-z]{2,}-[0-9]+", "(v|version )[0-9]",
  ]
  print("\ntypical texts: \(texts.count) texts of ~500 bytes, \(patterns.count) patterns with no required literal")
  var ours = 0
  var theirs = 0
  let compiled = try patterns.map { try LinearRegex($0, caseSensitive: true) }
  let oursTime = seconds {
    for text in texts { for regex in compiled where regex.firstMatch(in: text) != nil { ours += 1 } }
  }
  var glibc = patterns.map(GlibcRegex.init)
  let glibcTime = seconds {
    for text in texts { for index in glibc.indices where glibc[index].matches(text) { theirs += 1 } }
  }
  for (pattern, regex) in zip(patterns, compiled) {
    let t = seconds { for text in texts { _ = regex.firstMatch(in: text) } }
    var g = GlibcRegex(pattern)
    let u = seconds { for text in texts { _ = g.matches(text) } }
    print(
      pattern.padding(toLength: 24, withPad: " ", startingAt: 0) + String(format: "ours %.3f s  glibc %.3f s", t, u))
  }
  let searches = Double(texts.count * patterns.count)
  print(
    String(
      format: "ours:  %.3f s, %.2f million searches per second, %d matches", oursTime, searches / oursTime / 1e6, ours))
  print(
    String(
      format: "glibc: %.3f s, %.2f million searches per second, %d matches", glibcTime, searches / glibcTime / 1e6,
      theirs))
}
