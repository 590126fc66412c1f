// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherPoll
import WatcherRules
import WatcherState
import WatcherSupport

/// `watcher suggest [--apply N]`: plain rules the 👍 and 👎 labels argue for, each with its evidence and what
/// it would have done to the labelled items; `--apply N` writes one through the config editor.
struct SuggestCommand: Command {
  let name = "suggest"
  let summary = "propose plain rules from the 👍 and 👎 given, with their evidence; --apply N writes one"
  let positionals = Positionals.none()
  static let apply = OptionSpec(
    name: "apply", value: "N", help: "add suggestion N to the config (comments kept, a .bak left, check first)",
    kind: .count(unit: "suggestions", max: 100))
  let options = [Options.config, Options.stateDir, Self.apply]

  /// One proposal: the rule as YAML, what it says in words, and the labels it agrees with.
  struct Suggestion {
    var yaml: String
    var words: String
    var matched: Int
    var liked: Int
  }

  /// Words too common to make a rule of.
  static let stopWords: Set<String> = [
    "the", "and", "for", "with", "from", "that", "this", "are", "was", "you", "your", "has", "have", "not", "but",
    "its", "new", "how", "why", "what", "who", "will", "can", "out", "all", "about", "after", "more", "over", "into",
    "just", "now", "one", "two", "says", "say", "his", "her", "they", "their", "our", "get", "off", "week", "year",
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard let (config, path) = ConfigOption.loadForReading(arguments, terminal: terminal) else { return .config }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
    let labels = (try? store.labels(readOnly: true)) ?? []
    let suggestions = Self.suggestions(labels, taken: Set(config.rules.map(\.name)))
    guard !suggestions.isEmpty else {
      terminal.print(
        "no suggestion from \(labels.count) label\(labels.count == 1 ? "" : "s"): a rule needs an author, category "
          + "or title word that the labels like or dislike more often than chance would ('watcher like' and "
          + "'dislike' give them)")
      return .success
    }
    guard let number = arguments.count(Self.apply) else {
      for (index, suggestion) in suggestions.enumerated() {
        terminal.print(Terminal.field("\(index + 1). \(suggestion.words)"))
        terminal.print(
          "   on the labelled items it would have matched \(suggestion.matched), of which \(suggestion.liked) liked")
        for line in suggestion.yaml.split(separator: "\n") { terminal.print(Terminal.field("   " + line)) }
      }
      terminal.print("'watcher suggest --apply N' adds suggestion N to the config")
      return .success
    }
    guard (1...suggestions.count).contains(number) else {
      terminal.error("error: there are \(suggestions.count) suggestions; --apply takes 1 to \(suggestions.count)")
      return .usage
    }
    return Self.write(suggestions[number - 1], config: config, path: path, arguments, terminal: terminal)
  }

  /// The rules the labels argue for, the strongest evidence first (at most 10).
  static func suggestions(_ labels: [Label], taken: Set<String>) -> [Suggestion] {
    // Each candidate: how it is matched, what it is called, and the labels that have it.
    var tallies: [String: (kind: String, value: String, feed: String?, up: Int, down: Int)] = [:]
    for label in labels {
      var seen: Set<String> = []
      func count(_ kind: String, _ value: String, feed: String? = nil) {
        let key = kind + "\n" + value.lowercased() + "\n" + (feed ?? "")
        guard seen.insert(key).inserted else { return }
        var tally = tallies[key] ?? (kind, value, feed, 0, 0)
        if label.up { tally.up += 1 } else { tally.down += 1 }
        tallies[key] = tally
      }
      for author in label.author.replacing(" and ", with: ",").split(separator: ",") {
        let author = author.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if !author.isEmpty { count("author", author, feed: label.feed) }
      }
      for category in label.categories where !category.isEmpty { count("category", category) }
      for word in label.title.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber })
      where word.count >= 3 && !stopWords.contains(String(word)) {
        count("title", String(word))
      }
    }
    var found: [(Suggestion, Double)] = []
    var names = taken
    // Evidence, not chance: with the overall share of 👍, how likely the tally would be by luck alone.
    let base = Double(labels.count { $0.up }) / Double(max(labels.count, 1))
    for tally in tallies.values {
      let total = tally.up + tally.down
      guard total >= 3 else { continue }
      let liked = Double(tally.up) / Double(total)
      let chance = tally.up == 0 ? pow(1 - base, Double(total)) : atLeast(tally.up, of: total, rate: base)
      guard chance < 0.05 else { continue }
      let field =
        tally.kind == "title" ? "title: { words: [\(quoted(tally.value))] }" : "\(tally.kind): \(quoted(tally.value))"
      let scope = tally.feed.map { "\n  feeds: [\(quoted($0))]" } ?? ""
      let place = tally.feed.map { " in feed '\($0)'" } ?? ""
      let what = tally.kind == "title" ? "title word '\(tally.value)'" : "\(tally.kind) '\(tally.value)'"
      let base = (tally.kind + "-" + tally.value).lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }
      var name = String(base)
      while names.contains(name) { name += "-2" }
      if liked >= 0.8, tally.up >= 3 {
        names.insert(name)
        found.append(
          (
            Suggestion(
              yaml: "- name: \(quoted("notify-" + name))\(scope)\n  match: { \(field) }\n  notify: true",
              words: "notify on \(what)\(place): \(tally.up) of \(total) liked", matched: total, liked: tally.up),
            liked * Double(total)
          ))
      } else if tally.up == 0, tally.down >= 3 {
        names.insert(name)
        found.append(
          (
            Suggestion(
              yaml: "- name: \(quoted("mute-" + name))\(scope)\n  match: { \(field) }\n  mute: true",
              words: "mute \(what)\(place): 0 of \(total) liked", matched: total, liked: 0),
            Double(total)
          ))
      }
    }
    return found.sorted { ($0.1, $0.0.words) > ($1.1, $1.0.words) }.prefix(10).map(\.0)
  }

  /// The chance of `k` or more successes in `n` tries at `rate`.
  static func atLeast(_ k: Int, of n: Int, rate: Double) -> Double {
    var total = 0.0
    var choose = 1.0
    for i in 0...n {
      if i > 0 { choose = choose * Double(n - i + 1) / Double(i) }
      if i >= k { total += choose * pow(rate, Double(i)) * pow(1 - rate, Double(n - i)) }
    }
    return total
  }

  static func quoted(_ text: String) -> String {
    "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
  }

  /// Adds the suggestion's rule to the config: checked first, comments kept, a `.bak` left, the daemon told.
  static func write(
    _ suggestion: Suggestion, config: Config, path: String, _ arguments: Arguments, terminal: Terminal
  ) -> ExitCode {
    guard let data = FileManager.default.contents(atPath: path) else {
      terminal.error("error: no config at \(path) to add the rule to")
      return .failure
    }
    let updated = RuleText.adding(suggestion.yaml, to: String(decoding: data, as: UTF8.self))
    do {
      _ = try ConfigLoader.parse(updated, path: path, baseDirectory: NSStringPath(path: path).directory)
    } catch {
      terminal.error("error: the suggested rule does not check; nothing was written:\n\(error.rendered)")
      return .failure
    }
    do {
      let backup = try ConfigEditor.write(updated, to: path)
      terminal.print(Terminal.field("added the rule \(suggestion.words)"))
      terminal.print("to \(path)" + (backup.map { " (the old file is \($0))" } ?? ""))
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    if let reloaded = try? ConfigLoader.load(path: path) {
      Subscriptions.tellDaemon(arguments, config: reloaded, path: path, terminal: terminal)
    }
    return .success
  }
}

/// The directory of a path, as the config loader resolves relative feed paths against it.
private struct NSStringPath {
  let path: String
  var directory: String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return String(path[..<slash])
  }
}
