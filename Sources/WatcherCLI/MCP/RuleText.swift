// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A rule given as YAML text, added to a config's text with everything else of the file kept (comments,
/// order, spelling): the edit `add_rule` makes and `propose_rule` tries.
enum RuleText {
  /// The rule as one entry of a list, at indent 0: `- name: …` and its other lines two spaces in.
  static func entry(_ rule: String) -> String {
    var lines = rule.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    while let last = lines.last, last.allSatisfy(\.isWhitespace) { lines.removeLast() }
    while let first = lines.first, first.allSatisfy(\.isWhitespace) { lines.removeFirst() }
    guard let first = lines.first else { return "- {}" }
    // Written as a list entry already: its `- ` goes, and its other lines lose the two spaces under it.
    let listed = first.drop { $0 == " " }.hasPrefix("- ")
    let margin = lines.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
    lines = lines.map { String($0.dropFirst(min(margin, $0.prefix { $0 == " " }.count))) }
    if listed {
      lines[0] = String(lines[0].dropFirst(2))
      lines = [lines[0]] + lines.dropFirst().map { String($0.dropFirst(min(2, $0.prefix { $0 == " " }.count))) }
    }
    return (["- " + lines[0]] + lines.dropFirst().map { $0.isEmpty ? "" : "  " + $0 }).joined(separator: "\n")
  }

  /// `config` with the rule added as the last of its `rules:`.
  static func adding(_ rule: String, to config: String) -> String {
    var lines = config.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    let isTopKey = { (line: String) -> Bool in
      guard let first = line.first else { return false }
      return first != " " && first != "#" && first != "-" && first != "\t"
    }
    guard let start = lines.firstIndex(where: { $0.hasPrefix("rules:") }) else {
      return (lines + ["", "rules:"] + indented(entry(rule), by: 2)).joined(separator: "\n") + "\n"
    }
    let value = lines[start].dropFirst("rules:".count).drop { $0 == " " }
    if value.hasPrefix("[]") { lines[start] = "rules:" }
    // The block ends before the next top-level key; the entry goes after its last entry line (comments and
    // blank lines before the next key stay with that key).
    var end = lines[(start + 1)...].firstIndex(where: isTopKey) ?? lines.count
    while end > start + 1,
      lines[end - 1].allSatisfy(\.isWhitespace) || lines[end - 1].drop(while: { $0 == " " }).hasPrefix("#")
    {
      end -= 1
    }
    let indent =
      lines[(start + 1)..<end].first { $0.drop { $0 == " " }.hasPrefix("-") }.map {
        $0.prefix { $0 == " " }.count
      } ?? 2
    lines.insert(contentsOf: indented(entry(rule), by: indent), at: end)
    return lines.joined(separator: "\n") + "\n"
  }

  private static func indented(_ text: String, by count: Int) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).map {
      $0.isEmpty ? "" : String(repeating: " ", count: count) + $0
    }
  }
}
