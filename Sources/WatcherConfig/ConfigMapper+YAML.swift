// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// Reading YAML nodes as the config's kinds of value (strings, lists, booleans, numbers, durations, sizes,
/// mappings), each mistake reported at its mark.
extension ConfigMapper {
  package mutating func string(_ node: YAMLNode, _ what: String) -> String? {
    guard case .scalar(let text, _) = node.kind, !node.isNull else {
      error("\(what) must be a string, not \(node.kindName)", at: node.mark)
      return nil
    }
    return text
  }

  package mutating func stringList(_ node: YAMLNode, _ what: String, allowEmpty: Bool = false) -> [String]? {
    switch node.kind {
    case .scalar:
      return string(node, what).map { [$0] }
    case .sequence(let nodes):
      if nodes.isEmpty {
        if allowEmpty { return [] }
        error("\(what) is an empty list", at: node.mark)
        return nil
      }
      var result: [String] = []
      for element in nodes {
        guard let text = string(element, "each item of \(what)") else { return nil }
        result.append(text)
      }
      return result
    case .mapping:
      error("\(what) must be a string or a list of strings, not a mapping", at: node.mark)
      return nil
    }
  }

  package mutating func bool(_ node: YAMLNode, _ what: String) -> Bool? {
    guard case .scalar(let text, let plain) = node.kind else {
      error("\(what) must be true or false, not \(node.kindName)", at: node.mark)
      return nil
    }
    if plain, text == "true" { return true }
    if plain, text == "false" { return false }
    if !plain, text == "true" || text == "false" {
      error("\(what) must be true or false, not the string \"\(text)\"", at: node.mark, notes: ["remove the quotes"])
      return nil
    }
    let lowered = text.lowercased()
    var notes = ["only true and false are booleans here"]
    if ["yes", "on", "y", "true", "1"].contains(lowered) { notes.insert("did you mean 'true'?", at: 0) }
    if ["no", "off", "n", "false", "0"].contains(lowered) { notes.insert("did you mean 'false'?", at: 0) }
    error("\(what) must be true or false, not '\(text)'", at: node.mark, notes: notes)
    return nil
  }

  package mutating func integer(_ node: YAMLNode, _ what: String, _ range: ClosedRange<Int>) -> Int? {
    guard case .scalar(let text, true) = node.kind, let value = Int(text) else {
      error("\(what) must be a whole number, not \(node.scalar.map { "'\($0)'" } ?? node.kindName)", at: node.mark)
      return nil
    }
    guard range.contains(value) else {
      error("\(what) must be between \(range.lowerBound) and \(range.upperBound), not \(value)", at: node.mark)
      return nil
    }
    return value
  }

  /// The longest duration accepted: 100 years (no arithmetic on it can overflow).
  package static let maxDuration = 100 * 365 * 86_400

  /// `90s`, `15m`, `1h30m`, `7d`, `2w` → seconds; with `positive`, zero is refused.
  package mutating func duration(_ node: YAMLNode, _ what: String, positive: Bool = false) -> Int? {
    guard let text = node.scalar, !node.isNull else {
      error("\(what) must be a duration like 15m, not \(node.kindName)", at: node.mark)
      return nil
    }
    if let seconds = Self.parseDuration(text) {
      if seconds > Self.maxDuration {
        error("\(what) is too long: '\(text)'", at: node.mark, notes: ["the longest duration is 100 years (5200w)"])
        return nil
      }
      if positive, seconds == 0 {
        error("\(what) must be longer than 0s", at: node.mark, notes: ["for example 30s or 15m"])
        return nil
      }
      return seconds
    }
    var notes = ["a duration is a number and a unit: s, m, h, d or w (for example 90s, 15m, 1h30m, 7d)"]
    if Int(text) != nil { notes.insert("add a unit: '\(text)s' or '\(text)m'?", at: 0) }
    error("invalid duration '\(text)' for \(what)", at: node.mark, notes: notes)
    return nil
  }

  package static func parseDuration(_ text: String) -> Int? {
    var total = 0
    var number: Int?
    var sawUnit = false
    for c in text.trimming(.spaces) {
      if let digit = c.wholeNumberValue, c.isASCII {
        number = (number ?? 0) &* 10 &+ digit
        guard let n = number, n < 100_000_000 else { return nil }
      } else {
        guard let n = number else { return nil }
        let unit: Int
        switch c {
        case "s": unit = 1
        case "m": unit = 60
        case "h": unit = 3_600
        case "d": unit = 86_400
        case "w": unit = 604_800
        default: return nil
        }
        // Saturating: anything this large is refused by the caller.
        let (product, overflow) = n.multipliedReportingOverflow(by: unit)
        let (sum, overflow2) = total.addingReportingOverflow(product)
        total = overflow || overflow2 ? Int.max : sum
        number = nil
        sawUnit = true
      }
    }
    return number == nil && sawUnit ? total : nil
  }

  /// `20MB`, `512 KB`, `1GiB`, `1000000` (bytes) → bytes.
  package mutating func size(_ node: YAMLNode, _ what: String) -> Int? {
    guard let text = node.scalar, !node.isNull else {
      error("\(what) must be a size like 20MB, not \(node.kindName)", at: node.mark)
      return nil
    }
    if let bytes = Self.parseSize(text) { return bytes }
    error(
      "invalid size '\(text)' for \(what)", at: node.mark,
      notes: ["a size is a number and a unit: B, KB, MB, GB, KiB, MiB or GiB (for example 20MB)"])
    return nil
  }

  package static func parseSize(_ text: String) -> Int? {
    let trimmed = text.trimming(.spaces)
    let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
    guard let value = Int(digits), value >= 0 else { return nil }
    let unit = trimmed.dropFirst(digits.count).trimming(.spaces).lowercased()
    let multipliers = [
      "": 1, "b": 1, "kb": 1_000, "mb": 1_000_000, "gb": 1_000_000_000, "kib": 1_024,
      "mib": 1_048_576, "gib": 1_073_741_824,
    ]
    guard let multiplier = multipliers[unit] else { return nil }
    let (result, overflow) = value.multipliedReportingOverflow(by: multiplier)
    return overflow ? nil : result
  }

  package mutating func urgency(_ node: YAMLNode) -> Urgency? {
    guard let text = string(node, "'urgency'") else { return nil }
    if let urgency = Urgency(rawValue: text) { return urgency }
    unknownChoice("urgency", text, Urgency.allCases.map(\.rawValue), at: node.mark)
    return nil
  }

  // MARK: - Structure

  /// A mapping's entries keyed by their text; reports non-mappings, non-scalar keys and duplicate keys.
  package mutating func mapping(_ node: YAMLNode, _ what: String) -> [(key: String, keyMark: Mark, value: YAMLNode)]? {
    guard case .mapping(let raw) = node.kind else {
      error("\(what) must be a mapping (key: value lines), not \(node.kindName)", at: node.mark)
      return nil
    }
    var entries: [(key: String, keyMark: Mark, value: YAMLNode)] = []
    var seen: [String: Mark] = [:]
    for entry in raw {
      guard let key = entry.key.scalar else {
        error("a key in \(what) must be a plain name, not \(entry.key.kindName)", at: entry.key.mark)
        continue
      }
      if let first = seen[key] {
        error(
          "duplicate key '\(key)' in \(what)", at: entry.key.mark,
          notes: ["'\(key)' is already set at line \(first.line); a key may appear once"])
        continue
      }
      seen[key] = entry.key.mark
      entries.append((key, entry.key.mark, entry.value))
    }
    return entries
  }

  package mutating func sequence(_ node: YAMLNode, _ what: String) -> [YAMLNode]? {
    if node.isNull { return [] }
    guard case .sequence(let nodes) = node.kind else {
      error("\(what) must be a list (lines starting with '- '), not \(node.kindName)", at: node.mark)
      return nil
    }
    return nodes
  }

  package func value(_ key: String, in entries: [(key: String, keyMark: Mark, value: YAMLNode)]) -> YAMLNode? {
    entries.first { $0.key == key }?.value
  }

  package mutating func checkKeys(
    _ entries: [(key: String, keyMark: Mark, value: YAMLNode)], allowed: [String], in context: String,
    hint: String? = nil
  ) {
    for entry in entries where !allowed.contains(entry.key) {
      let message = "unknown key '\(entry.key)' in \(context)"
      // An alias repeats its keys: the did-you-mean is worked out once.
      guard !reported.contains(Self.reportKey(message, entry.keyMark)) else { continue }
      var notes: [String] = []
      if let suggestion = Suggestion.closest(to: entry.key, in: allowed) {
        notes.append("did you mean '\(suggestion)'?")
      }
      notes.append(hint ?? "valid keys: " + allowed.joined(separator: ", "))
      error(message, at: entry.keyMark, notes: notes)
    }
  }

  /// Whether an unknown key in `entries` is a misspelling of `key` (already reported with a did-you-mean).
  package func misspells(_ key: String, in entries: [(key: String, keyMark: Mark, value: YAMLNode)]) -> Bool {
    entries.contains { $0.key != key && Suggestion.closest(to: $0.key, in: [key]) == key }
  }

  package mutating func unknownChoice(_ what: String, _ value: String, _ choices: [String], at mark: Mark) {
    var notes: [String] = []
    if let suggestion = Suggestion.closest(to: value, in: choices) { notes.append("did you mean '\(suggestion)'?") }
    notes.append("choose one of: " + choices.joined(separator: ", "))
    error("unknown \(what) '\(value)'", at: mark, notes: notes)
  }

  func quoted(_ node: YAMLNode) -> Bool {
    if case .scalar(_, let plain) = node.kind { return !plain }
    return false
  }

  /// Records an error once per place and message (aliases repeat the nodes they point at), and at most
  /// `maxDiagnostics` of them.
  package mutating func error(_ message: String, at mark: Mark?, notes: [String] = []) {
    guard reported.insert(Self.reportKey(message, mark)).inserted else { return }
    if diagnostics.count == Self.maxDiagnostics {
      diagnostics.append(
        Diagnostic(message: "too many errors; fix these first and run watcher check again", mark: mark))
    }
    guard diagnostics.count < Self.maxDiagnostics else { return }
    diagnostics.append(Diagnostic(message: message, mark: mark, notes: notes))
  }

  /// Records a warning (the file still works), once per place and message.
  package mutating func warning(_ message: String, at mark: Mark?, notes: [String] = []) {
    guard reported.insert(Self.reportKey(message, mark)).inserted, diagnostics.count < Self.maxDiagnostics else {
      return
    }
    diagnostics.append(Diagnostic(.warning, message: message, mark: mark, notes: notes))
  }

  /// What makes a diagnostic a repeat: its place and its message.
  static func reportKey(_ message: String, _ mark: Mark?) -> String {
    "\(mark?.line ?? 0):\(mark?.column ?? 0):\(message)"
  }
}
