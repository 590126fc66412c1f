// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherConfig
import WatcherSupport

/// What an option's value must be, checked once by the parser, with one wording for each kind; the
/// command then reads it typed (`Arguments.count`, `date`, `duration`, `since`).
enum OptionValue: Sendable, Equatable {
  /// A whole number from 1 to `max`, of `unit` (bytes, items).
  case count(unit: String, max: Int = Int.max)
  /// A date: ISO 8601 (2026-11-29T12:00:00Z) or a day (2026-11-29).
  case date
  /// A duration (30m, 2h, 1d, 1w), or also `auto` when `auto` is true.
  case duration(auto: Bool)
  /// A point in the past: a duration back from now (30m, 2d, 1w) or a date.
  case since

  /// What the value must be, in the words of every error about it.
  var expected: String {
    switch self {
    case .count(let unit, let max):
      "a whole number of \(unit)" + (max == Int.max ? " above 0" : " from 1 to \(max)")
    case .date: "a date such as 2026-11-29T12:00:00Z or 2026-11-29"
    case .duration(let auto): "a duration such as 30m, 2h or 1d" + (auto ? ", or auto" : "")
    case .since: "a duration back from now (30m, 2d, 1w) or a date (2026-11-30)"
    }
  }

  func accepts(_ text: String) -> Bool {
    switch self {
    case .count(_, let max): Int(text).map { $0 > 0 && $0 <= max } ?? false
    case .date: Self.date(text) != nil
    case .duration(let auto): auto && text == "auto" || (ConfigMapper.parseDuration(text) ?? 0) > 0
    case .since: ConfigMapper.parseDuration(text) != nil || Self.date(text) != nil
    }
  }

  /// A date as `--now`, `--published` and `--since` take one.
  static func date(_ text: String) -> Date? {
    DateParser.parse(text) ?? DateParser.parse(text + "T00:00:00Z")
  }
}

/// One option a command accepts, declared once (`Options.swift`) and looked up by that declaration.
struct OptionSpec: Sendable, Equatable {
  /// The long name without dashes (`json`, `config`).
  var name: String
  /// A one-letter form, for the few common options.
  var short: Character?
  /// The value's placeholder (`FILE`), or `nil` for a flag.
  var value: String?
  /// A one-line description for help.
  var help: String
  /// Whether it may be given more than once (`--feed A --feed B`); shown as `...` in the synopsis.
  var repeatable = false
  /// What its value must be, when the parser checks it (`nil`: any text).
  var kind: OptionValue?

  init(
    name: String, short: Character? = nil, value: String? = nil, help: String, repeatable: Bool = false,
    kind: OptionValue? = nil
  ) {
    self.name = name
    self.short = short
    self.value = value
    self.help = help
    self.repeatable = repeatable
    self.kind = kind
  }

  /// The same option, described for one command's help.
  func described(_ help: String) -> OptionSpec {
    var copy = self
    copy.help = help
    return copy
  }

  /// How the synopsis shows it: `[--name VALUE]...`.
  var synopsis: String {
    "[--\(name)\(value.map { " " + $0 } ?? "")]\(repeatable ? "..." : "")"
  }
}

/// The positional arguments a command takes, declared once: the synopsis and the error for a wrong count
/// are made from it.
struct Positionals: Sendable {
  enum Count: Sendable {
    case none, one, any
  }

  var count: Count
  /// The placeholder in the synopsis (`FILE|URL|-`).
  var placeholder: String
  /// For `one`: what the argument is, as the error says it ("needs exactly one FILE (…)"); for `none`: where
  /// such arguments go instead ("name feeds with --feed").
  var hint: String?

  /// No positional arguments; `hint` says what to use instead.
  static func none(_ hint: String? = nil) -> Positionals { Positionals(count: .none, placeholder: "", hint: hint) }
  /// Exactly one, shown as `placeholder`; `what` describes it in the error.
  static func one(_ placeholder: String, _ what: String) -> Positionals {
    Positionals(count: .one, placeholder: placeholder, hint: what)
  }
  /// Any number (none included).
  static func any(_ placeholder: String) -> Positionals { Positionals(count: .any, placeholder: placeholder) }

  /// How the synopsis shows them.
  var synopsis: String {
    switch count {
    case .none: return ""
    case .one: return placeholder
    case .any: return "[\(placeholder)...]"
    }
  }

  /// The usage error for `given` arguments, or `nil` when the count is right.
  func check(_ given: [String], command: String) -> UsageError? {
    switch count {
    case .none where !given.isEmpty:
      return UsageError(message: "'watcher \(command)' takes no arguments\(hint.map { "; \($0)" } ?? "")")
    case .one where given.count != 1:
      return UsageError(message: "'watcher \(command)' needs exactly one \(hint ?? placeholder)")
    default: return nil
    }
  }
}

/// Command-line arguments after parsing against a command's options.
struct Arguments {
  /// Flags given (by long name).
  private var flags: Set<String> = []
  /// Option values, in order, by long name.
  private var values: [String: [String]] = [:]
  /// Positional arguments.
  var positionals: [String] = []

  init() {}

  /// Whether the flag was given.
  func has(_ option: OptionSpec) -> Bool { flags.contains(option.name) }
  /// The last value given to the option.
  func value(_ option: OptionSpec) -> String? { values[option.name]?.last }
  /// Every value given to the option, in order.
  func values(_ option: OptionSpec) -> [String] { values[option.name] ?? [] }
  /// A `.count` option's value.
  func count(_ option: OptionSpec) -> Int? { value(option).flatMap { Int($0) } }
  /// A `.date` option's value.
  func date(_ option: OptionSpec) -> Date? { value(option).flatMap(OptionValue.date) }
  /// A `.duration` option's value in seconds (`nil` when not given, or given as `auto`).
  func duration(_ option: OptionSpec) -> Int? { value(option).flatMap(ConfigMapper.parseDuration) }
  /// A `.since` option's point in time, counted back from `now`.
  func since(_ option: OptionSpec, now: Date) -> Date? {
    guard let text = value(option) else { return nil }
    if let seconds = ConfigMapper.parseDuration(text) { return now.addingTimeInterval(-Double(seconds)) }
    return OptionValue.date(text)
  }

  fileprivate mutating func add(_ option: OptionSpec, value: String?) {
    if let value {
      values[option.name, default: []].append(value)
    } else {
      flags.insert(option.name)
    }
  }
}

/// A usage error, rendered as `error: …` plus a hint, exit 64.
struct UsageError: Error {
  var message: String
  var note: String?

  init(message: String, note: String? = nil) {
    self.message = message
    self.note = note
  }
}

/// Our small argument parser: long options (`--json`, `--config F`, `--config=F`), a few short ones, `--` to end options, and `-` as a positional (standard input).
///
/// Unknown options get a did-you-mean.
enum ArgumentParser {
  static func parse(_ argv: [String], options: [OptionSpec], command: String) throws(UsageError) -> Arguments {
    var result = Arguments()
    var index = 0
    var onlyPositionals = false
    while index < argv.count {
      let arg = argv[index]
      index += 1
      if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
        result.positionals.append(arg)
        continue
      }
      if arg == "--" {
        onlyPositionals = true
        continue
      }
      var name: String
      var inline: String?
      let spec: OptionSpec?
      if arg.hasPrefix("--") {
        name = String(arg.dropFirst(2))
        if let eq = name.firstIndex(of: "=") {
          inline = String(name[name.index(after: eq)...])
          name = String(name[..<eq])
        }
        spec = options.first { $0.name == name }
      } else {
        name = String(arg.dropFirst())
        spec = name.count == 1 ? options.first { $0.short == name.first } : nil
      }
      guard let spec else {
        let suggestion = Suggestion.closest(to: name, in: options.map(\.name)).map { "did you mean '--\($0)'?" }
        throw UsageError(
          message: "unknown option '\(arg)' for '\(command)'",
          note: suggestion ?? "see 'watcher help \(command)' for its options")
      }
      if spec.value != nil {
        let value: String
        if let inline {
          value = inline
        } else if index < argv.count {
          value = argv[index]
          index += 1
        } else {
          throw UsageError(message: "option '--\(spec.name)' needs a value (\(spec.value ?? "VALUE"))", note: nil)
        }
        if let kind = spec.kind, !kind.accepts(value) {
          throw UsageError(
            message: "--\(spec.name) takes \(kind.expected); '\(Printable.line(value))' is not one", note: nil)
        }
        result.add(spec, value: value)
      } else {
        guard inline == nil else { throw UsageError(message: "option '--\(spec.name)' takes no value", note: nil) }
        result.add(spec, value: nil)
      }
    }
    return result
  }
}
