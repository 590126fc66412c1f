// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// "Did you mean …?" for misspelt names (commands, options, config keys).
public enum Suggestion {
  /// The candidate closest to `word` by edit distance, if it is close enough to be a likely typo.
  public static func closest(to word: String, in candidates: [String]) -> String? {
    let limit = max(1, word.count / 3)
    var best: (String, Int)?
    for candidate in candidates {
      let d = distance(word.lowercased(), candidate.lowercased())
      if d <= limit, d < best?.1 ?? Int.max { best = (candidate, d) }
    }
    return best?.0
  }

  /// Levenshtein distance between two strings, by characters.
  public static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }
}
