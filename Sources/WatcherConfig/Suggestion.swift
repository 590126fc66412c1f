// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// "Did you mean …?" for misspelt names (commands, options, config keys).
public enum Suggestion {
  /// The candidate closest to `word` by edit distance, if it is close enough to be a likely typo.
  public static func closest(to word: String, in candidates: [String]) -> String? {
    let limit = max(1, word.count / 3)
    var best: (String, Int)?
    let lowered = word.lowercased()
    // A length difference alone past the limit rules a candidate out, at no cost (a 10 KB key against short
    // names would otherwise cost a full edit-distance table each).
    for candidate in candidates where abs(candidate.count - word.count) <= limit {
      let d = distance(lowered, candidate.lowercased())
      if d <= limit, d < best?.1 ?? Int.max { best = (candidate, d) }
    }
    return best?.0
  }

  /// Edit distance between two strings, by characters: insertions, deletions, substitutions, and swaps of
  /// two neighbours ("pares" → "parse" is 1), the optimal-string-alignment form of Damerau–Levenshtein.
  public static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { rows[i][0] = i }
    for j in 0...b.count { rows[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
        }
      }
    }
    return rows[a.count][b.count]
  }
}
