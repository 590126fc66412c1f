// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherRegex

/// A rule's match: conditions and patterns, checked as they are read.
extension ConfigMapper {

  /// A `match:` mapping: each key is a field, a combinator, or an age test; several keys must all hold.
  package mutating func condition(_ node: YAMLNode, in context: String) -> Condition? {
    guard !overBudget else { return nil }
    conditions += 1
    if conditions > Self.maxConditions {
      overBudget = true
      error(
        "the rules hold more than \(Self.maxConditions) conditions", at: node.mark,
        notes: ["aliases ('*name') that repeat conditions multiply them; this looks like an alias bomb"])
      return nil
    }
    guard let entries = mapping(node, "'match' in \(context)") else { return nil }
    if entries.isEmpty {
      error("empty 'match' in \(context)", at: node.mark, notes: ["give at least one field, e.g. { title: release }"])
      return nil
    }
    checkKeys(
      entries, allowed: Self.conditionKeys, in: "'match'",
      hint:
        "fields: \(MatchField.allCases.map(\.rawValue).joined(separator: ", ")); combinators: all, any, not; "
        + "older_than, newer_than; score (the learned score: { above: 0.7 } or { below: 0.3 })")
    var parts: [Condition] = []
    for entry in entries {
      let v = entry.value
      switch entry.key {
      case "all":
        if let list = conditionList(v, "all", in: context) { parts.append(.all(list)) }
      case "any" where isConditionList(v):
        if let list = conditionList(v, "any", in: context) { parts.append(.any(list)) }
      case "not":
        if case .sequence = v.kind {
          if let list = conditionList(v, "not", in: context) { parts.append(.not(.any(list))) }
        } else if let inner = condition(v, in: context) {
          parts.append(.not(inner))
        }
      case "older_than":
        if let seconds = duration(v, "'older_than'") { parts.append(.olderThan(seconds)) }
      case "newer_than":
        if let seconds = duration(v, "'newer_than'") { parts.append(.newerThan(seconds)) }
      case "score":
        if let score = scoreCondition(v) { parts.append(score) }
      case "story":
        error(
          "'story' is tested at the top of a rule's match only, not inside all, any or not", at: entry.keyMark,
          notes: ["match: { story: { feeds: 3, within: 6h }, title: release }"])
      default:
        guard let field = MatchField(rawValue: entry.key) else { continue }
        if let pattern = pattern(v, field: entry.key) { parts.append(.field(field, pattern)) }
      }
    }
    guard parts.count == entries.filter({ Self.conditionKeys.contains($0.key) }).count, !parts.isEmpty else {
      return nil
    }
    return parts.count == 1 ? parts[0] : .all(parts)
  }

  /// A rule's `match` with its spread trigger (`story: { feeds: N, within: D }`) taken out: the condition of
  /// the rest (every item when nothing else is given) and the spread.
  mutating func storyCondition(_ node: YAMLNode, in context: String) -> (Condition?, StorySpread?) {
    guard case .mapping(let pairs) = node.kind, let story = pairs.first(where: { $0.key.scalar == "story" }) else {
      return (condition(node, in: context), nil)
    }
    let example = "story: { feeds: 3, within: 6h } (fires once, when a story reaches 3 feeds within 6 hours)"
    var spread: StorySpread?
    if let entries = mapping(story.value, "'story' in \(context)") {
      checkKeys(entries, allowed: ["feeds", "within"], in: "'story'")
      let feeds = value("feeds", in: entries).flatMap { integer($0, "'story.feeds'", 2...1_000) }
      let within = value("within", in: entries).flatMap { duration($0, "'story.within'", positive: true) }
      if value("feeds", in: entries) == nil || value("within", in: entries) == nil {
        error("'story' in \(context) needs 'feeds' and 'within'", at: story.value.mark, notes: [example])
      } else if let feeds, let within {
        if within > 3 * 86_400 {
          error(
            "'story.within' in \(context) is longer than the 3 days stories are kept", at: story.value.mark,
            notes: [example])
        } else {
          spread = StorySpread(feeds: feeds, within: within)
        }
      }
    }
    let rest = pairs.filter { $0.key.scalar != "story" }
    guard spread != nil else { return (nil, nil) }
    if rest.isEmpty { return (.all([]), spread) }
    return (condition(YAMLNode(kind: .mapping(rest), mark: node.mark), in: context), spread)
  }

  /// `score: { above: X }`, `{ below: Y }` or both, each a number from 0 to 1.
  private mutating func scoreCondition(_ node: YAMLNode) -> Condition? {
    let example = "score: { above: 0.7 } (the learned score, from 0 to 1), or { below: 0.3 }"
    guard let entries = mapping(node, "'score'") else { return nil }
    checkKeys(entries, allowed: ["above", "below"], in: "'score'")
    var parts: [Condition] = []
    for entry in entries where entry.key == "above" || entry.key == "below" {
      guard let text = entry.value.scalar, let bound = Double(text), bound >= 0, bound <= 1 else {
        error("'score.\(entry.key)' must be a number from 0 to 1", at: entry.value.mark, notes: [example])
        return nil
      }
      parts.append(entry.key == "above" ? .scoreAbove(bound) : .scoreBelow(bound))
    }
    guard !parts.isEmpty else {
      error("'score' needs 'above' or 'below'", at: node.mark, notes: [example])
      return nil
    }
    return parts.count == 1 ? parts[0] : .all(parts)
  }

  /// Whether a value is a list of condition mappings (the `any` combinator) rather than a pattern.
  private func isConditionList(_ node: YAMLNode) -> Bool {
    guard case .sequence(let nodes) = node.kind, let first = nodes.first else { return false }
    if case .mapping = first.kind { return true }
    return false
  }

  package mutating func conditionList(_ node: YAMLNode, _ name: String, in context: String) -> [Condition]? {
    guard case .sequence(let nodes) = node.kind, !nodes.isEmpty else {
      error(
        "'\(name)' needs a list of conditions, not \(node.kindName)", at: node.mark,
        notes: ["\(name): [ { title: x }, { category: y } ]"])
      return nil
    }
    var result: [Condition] = []
    var ok = true
    for element in nodes {
      if let inner = condition(element, in: context) { result.append(inner) } else { ok = false }
    }
    return ok ? result : nil
  }

  /// A pattern: a string (substring), a list (any of), or a mapping with one of contains/words/regex/equals.
  package mutating func pattern(_ node: YAMLNode, field: String) -> Pattern? {
    switch node.kind {
    case .scalar:
      guard let text = string(node, "'\(field)'") else { return nil }
      return Pattern(.contains([text]))
    case .sequence:
      guard let list = stringList(node, "'\(field)'") else { return nil }
      return Pattern(.contains(list))
    case .mapping:
      guard let entries = mapping(node, "'\(field)'") else { return nil }
      checkKeys(entries, allowed: Self.patternKeys, in: "the '\(field)' matcher")
      var caseSensitive = false
      if let caseNode = value("case", in: entries), let text = string(caseNode, "'case'") {
        switch text {
        case "sensitive": caseSensitive = true
        case "insensitive": caseSensitive = false
        default: unknownChoice("case", text, ["sensitive", "insensitive"], at: caseNode.mark)
        }
      }
      let tests = ["contains", "words", "regex", "equals"]
      let kinds = entries.filter { tests.contains($0.key) }
      if kinds.isEmpty, tests.contains(where: { misspells($0, in: entries) }) { return nil }
      guard kinds.count == 1, let kind = kinds.first else {
        error(
          kinds.isEmpty ? "the '\(field)' matcher has no test" : "the '\(field)' matcher has more than one test",
          at: node.mark, notes: ["use exactly one of contains, words, regex, equals"])
        return nil
      }
      switch kind.key {
      case "contains":
        return stringList(kind.value, "'contains'").map { Pattern(.contains($0), caseSensitive: caseSensitive) }
      case "words": return stringList(kind.value, "'words'").map { Pattern(.words($0), caseSensitive: caseSensitive) }
      case "equals":
        return stringList(kind.value, "'equals'").map { Pattern(.equals($0), caseSensitive: caseSensitive) }
      default:
        guard let text = string(kind.value, "'regex'") else { return nil }
        for flag in ["(?i)", "(?-i)", "(?s)", "(?m)", "(?x)"] where text.hasPrefix(flag) {
          error(
            "'\(flag)' is not supported in a regex", at: kind.value.mark,
            notes: [
              flag == "(?i)"
                ? "matching is already case-insensitive; remove '(?i)' (say case: sensitive for the other way)"
                : "watcher regexes are POSIX extended: no inline flags; case: sensitive chooses the case"
            ])
          return nil
        }
        do throws(LinearRegex.RegexError) {
          let key = (caseSensitive ? "s:" : "i:") + text
          let compiled: LinearRegex
          switch regexes[key] {
          case .success(let cached)?: compiled = cached
          case .failure(let error)?: throw error
          case nil:
            do {
              compiled = try LinearRegex(text, caseSensitive: caseSensitive)
              regexes[key] = .success(compiled)
            } catch {
              regexes[key] = .failure(error)
              throw error
            }
          }
          regexSteps += compiled.programSize
          if regexSteps > Self.maxRegexSteps, !overBudget {
            overBudget = true
            self.error(
              "the rules' regexes add up to more than \(Self.maxRegexSteps) steps", at: kind.value.mark,
              notes: [
                "every item is matched against each of them; aliases ('*name') that repeat a regex multiply it"
              ])
            return nil
          }
          return Pattern(.regex(compiled), caseSensitive: caseSensitive)
        } catch {
          var mark = kind.value.mark
          if let offset = error.offset { mark.column += offset + (quoted(kind.value) ? 1 : 0) }
          self.error(
            "invalid regex: \(error.message)", at: mark,
            notes: [
              "watcher regexes are POSIX extended with \\d \\s \\w \\b, matched in linear time; see docs/rules.md"
            ])
          return nil
        }
      }
    }
  }
}
