// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherRegex
import WatcherSupport

/// The hand-written mapping from YAML nodes to the config model; collects diagnostics instead of stopping.
package struct ConfigMapper {
  package var diagnostics: [Diagnostic] = []
  /// The directory relative feed paths are resolved against.
  package var baseDirectory: String?

  package init(baseDirectory: String? = nil) {
    self.baseDirectory = baseDirectory
  }
  /// Compiled regexes (or why they do not compile) by (pattern, case): an alias that repeats a regex
  /// shares one compiled program, and an invalid one is compiled once.
  private var regexes: [String: Result<LinearRegex, LinearRegex.RegexError>] = [:]
  /// The diagnostics already reported, so that an alias repeating a mistake reports it once.
  var reported: Set<String> = []

  /// The most diagnostics reported for one config; past it, the rest are summed up in one line.
  static let maxDiagnostics = 10_000
  /// Conditions mapped so far, aliases counted as often as they are used.
  private var conditions = 0
  /// Set once a work cap was passed (reported once; the rest of the rules are not mapped).
  private var overBudget = false

  /// Regex program steps so far, summed over every regex condition (each use of an alias counted).
  private var regexSteps = 0

  /// The most conditions (fields, combinators, age tests) a config may hold, aliases expanded.
  package static let maxConditions = 10_000
  /// The most regex steps all regex conditions may hold together, aliases expanded: each step is work
  /// done for every item.
  package static let maxRegexSteps = 2_000_000

  package static let topKeys = ["settings", "feeds", "rules"]
  package static let settingsKeys = [
    "interval", "concurrency", "timeout", "first_poll", "max_age", "retention", "max_size", "max_items",
    "state_dir",
    "hook_concurrency", "hook_retries", "notify", "journal", "full_text",
  ]
  package static let journalKeys = ["keep_for", "keep_max"]
  package static let notifySettingsKeys = [
    "urgency", "expire", "max_per_poll", "icon", "keep_for", "keep_max", "quiet", "quiet_allows",
  ]
  package static let feedKeys = [
    "url", "name", "title", "interval", "tags", "notify", "hook", "identity", "full_text",
  ]
  package static let ruleKeys = [
    "name", "feeds", "match", "tag", "mute", "notify", "hook", "stop", "digest", "digest_hook",
  ]
  package static let digestKeys = ["every", "at"]
  package static let conditionKeys = MatchField.allCases.map(\.rawValue) + ["all", "not", "older_than", "newer_than"]
  package static let patternKeys = ["contains", "words", "regex", "equals", "case"]
  package static let notifyKeys = ["summary", "body", "urgency", "expire", "icon"]
  package static let hookKeys = ["command", "run", "timeout"]

  // MARK: - Top level

  package mutating func config(_ root: YAMLNode?) -> Config {
    var config = Config()
    guard let root, !root.isNull else {
      error("the config is empty", at: Mark(line: 1, column: 1), notes: ["it needs at least a 'feeds:' list"])
      return config
    }
    guard let entries = mapping(root, "the config") else { return config }
    checkKeys(entries, allowed: Self.topKeys, in: "the config")
    if let node = value("settings", in: entries) { config.settings = settings(node) }
    if let node = value("feeds", in: entries) { config.feeds = feeds(node, settings: config.settings) }
    if let node = value("rules", in: entries) { config.rules = rules(node, feeds: config.feeds) }
    checkContentRules(config)
    return config
  }

  /// A rule on `content` whose feeds never fetch their articles can never match on it: a warning.
  private mutating func checkContentRules(_ config: Config) {
    for rule in config.rules where rule.condition.tests(.content) {
      let feeds = config.feeds.filter {
        rule.scope.isEmpty || rule.scope.contains($0.name) || $0.tags.contains(where: rule.scope.contains)
      }
      guard !feeds.contains(where: { $0.wantsFullText(config.settings) }) else { continue }
      diagnostics.append(
        Diagnostic(
          .warning, message: "rule '\(rule.name)' matches on content, but none of its feeds fetches its articles",
          mark: rule.mark,
          notes: [
            "content is the main text of the page an item links to; watcher reads it only for feeds with "
              + "full_text: true (or settings.full_text: true)"
          ]))
    }
  }

  // MARK: - Settings

  package mutating func settings(_ node: YAMLNode) -> Settings {
    var settings = Settings()
    guard let entries = mapping(node, "'settings'") else { return settings }
    checkKeys(entries, allowed: Self.settingsKeys, in: "'settings'")
    for entry in entries {
      let v = entry.value
      switch entry.key {
      case "interval": settings.interval = duration(v, "'interval'", positive: true) ?? settings.interval
      case "concurrency": settings.concurrency = integer(v, "'concurrency'", 1...256) ?? settings.concurrency
      case "timeout": settings.timeout = duration(v, "'timeout'", positive: true) ?? settings.timeout
      case "first_poll": settings.firstPoll = firstPoll(v) ?? settings.firstPoll
      case "max_age":
        if v.scalar == "none" {
          settings.maxAge = nil
        } else {
          settings.maxAge = duration(v, "'max_age'") ?? settings.maxAge
        }
      case "retention": settings.retention = duration(v, "'retention'") ?? settings.retention
      case "max_size": settings.maxBytes = size(v, "'max_size'") ?? settings.maxBytes
      case "max_items": settings.maxItems = integer(v, "'max_items'", 1...10_000_000) ?? settings.maxItems
      case "state_dir": settings.stateDir = string(v, "'state_dir'")
      case "hook_concurrency":
        settings.hookConcurrency = integer(v, "'hook_concurrency'", 1...64) ?? settings.hookConcurrency
      case "hook_retries": settings.hookRetries = integer(v, "'hook_retries'", 0...100) ?? settings.hookRetries
      case "notify": settings.notify = notifySettings(v)
      case "full_text": settings.fullText = bool(v, "'full_text'") ?? false
      case "journal":
        guard let entries = mapping(v, "'settings.journal'") else { break }
        checkKeys(entries, allowed: Self.journalKeys, in: "'settings.journal'")
        for entry in entries {
          switch entry.key {
          case "keep_for": settings.journalKeepFor = duration(entry.value, "'keep_for'") ?? settings.journalKeepFor
          case "keep_max":
            settings.journalKeepMax = integer(entry.value, "'keep_max'", 0...1_000_000) ?? settings.journalKeepMax
          default: break
          }
        }
      default: break
      }
    }
    return settings
  }

  package mutating func notifySettings(_ node: YAMLNode) -> NotifySettings {
    var notify = NotifySettings()
    guard let entries = mapping(node, "'settings.notify'") else { return notify }
    checkKeys(entries, allowed: Self.notifySettingsKeys, in: "'settings.notify'")
    for entry in entries {
      switch entry.key {
      case "urgency": notify.urgency = urgency(entry.value) ?? notify.urgency
      case "expire": notify.expire = duration(entry.value, "'expire'") ?? notify.expire
      case "max_per_poll": notify.maxPerPoll = integer(entry.value, "'max_per_poll'", 1...1_000) ?? notify.maxPerPoll
      case "icon": notify.icon = string(entry.value, "'icon'")
      case "keep_for": notify.keepFor = duration(entry.value, "'keep_for'") ?? notify.keepFor
      case "keep_max": notify.keepMax = integer(entry.value, "'keep_max'", 0...100_000) ?? notify.keepMax
      case "quiet":
        for text in stringList(entry.value, "'quiet'", allowEmpty: true) ?? [] {
          if let range = QuietHours.range(text) {
            notify.quiet.ranges.append(range)
          } else {
            error(
              "invalid quiet hours '\(text)'", at: entry.value.mark,
              notes: [
                "write a local time range as \"22:00-07:00\" (HH:MM-HH:MM; it may run past midnight), or a list of them"
              ])
          }
        }
      case "quiet_allows":
        if entry.value.scalar == "none" {
          notify.quiet.allows = nil
        } else {
          notify.quiet.allows = urgency(entry.value)
        }
      default: break
      }
    }
    return notify
  }

  package mutating func firstPoll(_ node: YAMLNode) -> Settings.FirstPoll? {
    guard let text = string(node, "'first_poll'") else { return nil }
    switch text {
    case "silent": return .silent
    case "all": return .all
    default:
      let parts = text.split(separator: " ")
      if parts.count == 2, parts[0] == "latest", let n = Int(parts[1]), n > 0 { return .latest(n) }
      error(
        "invalid 'first_poll' value '\(text)'", at: node.mark,
        notes: ["use 'silent' (record everything, act on nothing), 'latest N' or 'all'"])
      return nil
    }
  }

  // MARK: - Feeds

  package mutating func feeds(_ node: YAMLNode, settings: Settings) -> [FeedConfig] {
    guard let elements = sequence(node, "'feeds'") else { return [] }
    var feeds: [FeedConfig] = []
    var names: [String: Mark] = [:]
    var urls: [String: Mark] = [:]
    for (index, element) in elements.enumerated() {
      let context = "feeds[\(index + 1)]"
      guard let entries = mapping(element, context) else { continue }
      checkKeys(entries, allowed: Self.feedKeys, in: context)
      guard let urlNode = value("url", in: entries) else {
        error(
          "\(context) has no 'url'", at: element.mark, notes: ["every feed needs 'url: https://…' (or a file path)"])
        continue
      }
      guard let written = string(urlNode, "'url'") else { continue }
      guard checkLocation(written, at: urlNode) else { continue }
      // A relative path means relative to the config file, wherever watcher is started from.
      let url = FeedLocation.resolve(written, against: baseDirectory)
      var feed = FeedConfig(url: url, name: FeedConfig.slug(for: written), mark: element.mark)
      if let nameNode = value("name", in: entries), let name = string(nameNode, "'name'") {
        feed.name = name
      }
      for entry in entries {
        switch entry.key {
        case "interval": feed.interval = duration(entry.value, "'interval'", positive: true)
        case "title": feed.title = string(entry.value, "'title'")
        case "tags": feed.tags = stringList(entry.value, "'tags'", allowEmpty: true) ?? []
        case "notify": feed.notify = bool(entry.value, "'notify'") ?? false
        case "hook": feed.hook = hookAction(entry.value, in: context)
        case "full_text": feed.fullText = bool(entry.value, "'full_text'")
        case "identity":
          if let text = string(entry.value, "'identity'") {
            if let identity = FeedConfig.Identity(rawValue: text) {
              feed.identity = identity
            } else {
              unknownChoice("identity", text, FeedConfig.Identity.allCases.map(\.rawValue), at: entry.value.mark)
            }
          }
        default: break
        }
      }
      let nameMark = value("name", in: entries)?.mark ?? urlNode.mark
      if let first = names[feed.name] {
        error(
          "duplicate feed name '\(feed.name)'", at: nameMark,
          notes: ["the first feed with this name is at line \(first.line); give each feed its own 'name'"])
      } else {
        names[feed.name] = nameMark
      }
      // Two spellings of one feed (a relative and an absolute path, HTTP://Host:80/ and http://host/)
      // would be polled twice and act twice: compare them normalized.
      let key = FeedLocation.normalized(url)
      if let first = urls[key] {
        var notes = ["the same URL is already watched at line \(first.line)"]
        let resolved = FeedLocation.isHTTP(url) || url.hasPrefix("/") || url.hasPrefix("~")
        if written != key, resolved { notes.append("'\(written)' is \(key)") }
        error("duplicate feed URL '\(written)'", at: urlNode.mark, notes: notes)
      } else {
        urls[key] = urlNode.mark
      }
      feeds.append(feed)
    }
    return feeds
  }

  /// Checks a feed's location; returns false after reporting an error.
  ///
  /// Errors: no scheme (`www.example.com/feed` would be read as a file), a malformed scheme (`https//…`), a
  /// scheme watcher does not read (`ftp:`). For a relative path: a note of where it points, and a warning
  /// when that file does not exist.
  mutating func checkLocation(_ written: String, at node: YAMLNode) -> Bool {
    let text = written.trimmingCharacters(in: .whitespaces)
    let lower = text.lowercased()
    for broken in ["https//", "http//", "https:/", "http:/", "https:\\", "http:\\"]
    where lower.hasPrefix(broken) && !FeedLocation.isHTTP(lower) {
      let scheme = lower.hasPrefix("https") ? "https" : "http"
      let rest = text.dropFirst(broken.count).drop { $0 == "/" || $0 == "\\" }
      error(
        "malformed URL '\(text)' for 'url'", at: node.mark, notes: ["did you mean '\(scheme)://\(rest)'?"])
      return false
    }
    if URLResolver.hasScheme(text), !FeedLocation.isHTTP(text), !lower.hasPrefix("file:") {
      let scheme = String(text.prefix { $0 != ":" })
      let afterColon = text.dropFirst(scheme.count + 1)
      // `localhost:8080/feed` reads as the scheme "localhost": a host and port without http://.
      if afterColon.first?.isNumber == true || ["localhost"].contains(scheme.lowercased()) {
        error(
          "feed URL '\(text)' has no scheme", at: node.mark, notes: ["did you mean 'http://\(text)'?"])
        return false
      }
      var notes = ["watcher reads http://, https:// and file:// URLs, and file paths"]
      if ["feed", "rss", "itpc", "pcast", "podcast", "feeds"].contains(scheme.lowercased()) {
        let rest = afterColon.drop { $0 == "/" }
        notes.insert("did you mean 'https://\(rest)'?", at: 0)
      }
      error("unsupported URL scheme '\(scheme):' in '\(text)'", at: node.mark, notes: notes)
      return false
    }
    guard !FeedLocation.isHTTP(text), !lower.hasPrefix("file:"), !text.hasPrefix("/"), !text.hasPrefix("~") else {
      return true
    }
    // A relative path: relative to the config's directory. One that names no existing file but looks like a
    // host (`www.example.com/feed`, `127.0.0.1:8080/x`) is a URL without its scheme.
    let resolved = FeedLocation.resolve(text, against: baseDirectory)
    let exists = baseDirectory != nil && FileManager.default.fileExists(atPath: resolved)
    let head = text.prefix { $0 != "/" }
    let looksLikeHost =
      text.contains("/") && head.contains(".") && !head.hasPrefix(".")
      && head.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" }
    if !exists, looksLikeHost {
      error("feed URL '\(text)' has no scheme", at: node.mark, notes: ["did you mean 'https://\(text)'?"])
      return false
    }
    guard baseDirectory != nil else { return true }
    if exists {
      diagnostics.append(Diagnostic(.note, message: "'\(text)' is \(resolved)", mark: node.mark))
    } else {
      diagnostics.append(
        Diagnostic(
          .warning, message: "feed file \(resolved) does not exist", mark: node.mark,
          notes: ["a relative path is read from the config's directory"]))
    }
    return true
  }

  // MARK: - Rules

  package mutating func rules(_ node: YAMLNode, feeds: [FeedConfig]) -> [Rule] {
    guard let elements = sequence(node, "'rules'") else { return [] }
    let feedNames = feeds.map(\.name)
    let feedTags = Array(Set(feeds.flatMap(\.tags))).sorted()
    var rules: [Rule] = []
    var names: [String: Mark] = [:]
    for (index, element) in elements.enumerated() {
      var context = "rules[\(index + 1)]"
      guard let entries = mapping(element, context) else { continue }
      // A feed entry pasted under rules: say so once, instead of "unknown key", "no match", "does nothing".
      if let urlEntry = entries.first(where: { $0.key == "url" }), value("match", in: entries) == nil {
        error(
          "\(context) looks like a feed (it has a 'url'), not a rule", at: urlEntry.keyMark,
          notes: ["feeds belong under 'feeds:'; a rule has a match and actions"])
        continue
      }
      var name = "rule \(index + 1)"
      if let nameNode = value("name", in: entries), let given = string(nameNode, "'name'") {
        name = given
        context = "rule '\(given)'"
        if let first = names[given] {
          error(
            "duplicate rule name '\(given)'", at: nameNode.mark,
            notes: ["the first rule with this name is at line \(first.line)"])
        }
        names[given] = nameNode.mark
      }
      checkKeys(entries, allowed: Self.ruleKeys, in: context)
      var scope: [String] = []
      if let scopeNode = value("feeds", in: entries) {
        scope = stringList(scopeNode, "'feeds'") ?? []
        let items: [YAMLNode] = {
          if case .sequence(let nodes) = scopeNode.kind { return nodes }
          return [scopeNode]
        }()
        for (offset, entry) in scope.enumerated() where !feedNames.contains(entry) && !feedTags.contains(entry) {
          let mark = offset < items.count ? items[offset].mark : scopeNode.mark
          var notes: [String] = []
          if let suggestion = Suggestion.closest(to: entry, in: feedNames + feedTags) {
            notes.append("did you mean '\(suggestion)'?")
          }
          notes.append("a rule's 'feeds' names feeds (by 'name') or feed tags")
          error("\(context) names unknown feed or tag '\(entry)'", at: mark, notes: notes)
        }
      }
      var condition: Condition?
      // A rule scoped by `feeds:` may leave out `match` (or give `match: {}`): it is for every item of those
      // feeds. Without a scope that would be every item of every feed, which is a feed's own notify/hook.
      let matchNode = value("match", in: entries)
      let everyItem = matchNode.map {
        if case .mapping(let pairs) = $0.kind { return pairs.isEmpty } else { return false }
      }
      if let matchNode, everyItem != true {
        if case .scalar("true", true) = matchNode.kind {
          error(
            "'match' in \(context) must be a mapping of conditions, not true", at: matchNode.mark,
            notes: ["for every item of some feeds, scope the rule with feeds: and leave out match"])
        } else {
          condition = self.condition(matchNode, in: context)
        }
      } else if !scope.isEmpty {
        condition = .all([])
      } else if !misspells("match", in: entries) {
        error(
          matchNode == nil ? "\(context) has no 'match'" : "empty 'match' in \(context)",
          at: matchNode?.mark ?? element.mark,
          notes: [
            "say which items it is for, e.g. match: { title: release }",
            "for every item of some feeds, scope the rule with feeds: and leave out match",
          ])
      }
      var actions = RuleActions()
      for entry in entries {
        switch entry.key {
        case "tag": actions.tags = stringList(entry.value, "'tag'") ?? []
        case "mute": actions.mute = bool(entry.value, "'mute'") ?? false
        case "stop": actions.stop = bool(entry.value, "'stop'") ?? false
        case "notify": actions.notify = notifyAction(entry.value, in: context)
        case "hook": actions.hook = hookAction(entry.value, in: context)
        case "digest": actions.digest = digestAction(entry.value, in: context)
        case "digest_hook": actions.digestHook = hookAction(entry.value, in: context)
        default: break
        }
      }
      if actions.digestHook != nil, actions.digest == nil,
        let hookEntry = entries.first(where: { $0.key == "digest_hook" })
      {
        error(
          "\(context) has a digest_hook but no digest", at: hookEntry.keyMark,
          notes: ["add digest: { every: 1d, at: \"08:00\" } (the hook runs when the digest goes out)"])
      }
      if actions.isEmpty,
        !entries.contains(where: { ["tag", "mute", "notify", "hook", "stop", "digest"].contains($0.key) })
      {
        error(
          "\(context) does nothing", at: element.mark,
          notes: ["add at least one action: tag, mute, notify, hook, digest or stop"])
      }
      if let condition {
        rules.append(Rule(name: name, scope: scope, condition: condition, actions: actions, mark: element.mark))
      }
    }
    return rules
  }

  /// `digest: { every: 1d, at: "08:00" }` (`at` optional).
  package mutating func digestAction(_ node: YAMLNode, in context: String) -> DigestAction? {
    guard let entries = mapping(node, "'digest' in \(context)") else { return nil }
    checkKeys(entries, allowed: Self.digestKeys, in: "'digest' in \(context)")
    var every: Int?
    var at: Int?
    for entry in entries {
      switch entry.key {
      case "every": every = duration(entry.value, "'every'", positive: true)
      case "at":
        guard let text = string(entry.value, "'at'") else { break }
        if let minutes = QuietHours.timeOfDay(text.trimmingCharacters(in: .whitespaces)) {
          at = minutes
        } else {
          error(
            "invalid time '\(text)' for 'at'", at: entry.value.mark, notes: ["write a local time as \"08:00\" (HH:MM)"])
        }
      default: break
      }
    }
    guard let every else {
      error(
        "'digest' in \(context) has no 'every'", at: node.mark,
        notes: ["say how often it goes out: digest: { every: 1d, at: \"08:00\" } or digest: { every: 1h }"])
      return nil
    }
    return DigestAction(every: every, at: at)
  }

  package mutating func notifyAction(_ node: YAMLNode, in context: String) -> NotifyAction? {
    if case .scalar = node.kind {
      return bool(node, "'notify'") == true ? NotifyAction() : nil
    }
    guard let entries = mapping(node, "'notify' in \(context)") else { return nil }
    checkKeys(entries, allowed: Self.notifyKeys, in: "'notify' in \(context)")
    var action = NotifyAction()
    for entry in entries {
      switch entry.key {
      case "summary": action.summary = template(entry.value, "'summary'")
      case "body": action.body = template(entry.value, "'body'")
      case "urgency": action.urgency = urgency(entry.value)
      case "expire": action.expire = duration(entry.value, "'expire'")
      case "icon": action.icon = string(entry.value, "'icon'")
      default: break
      }
    }
    return action
  }

  package mutating func hookAction(_ node: YAMLNode, in context: String) -> HookAction? {
    if case .scalar = node.kind {
      guard let command = string(node, "'hook'") else { return nil }
      guard !command.trimmingCharacters(in: .whitespaces).isEmpty else {
        error("'hook' in \(context) is empty", at: node.mark, notes: ["give the command to run"])
        return nil
      }
      return HookAction(command: command, mark: node.mark)
    }
    guard let entries = mapping(node, "'hook' in \(context)") else { return nil }
    checkKeys(entries, allowed: Self.hookKeys, in: "'hook' in \(context)")
    var action: HookAction
    if let runNode = value("run", in: entries) {
      if value("command", in: entries) != nil {
        error(
          "'hook' in \(context) has both 'command' and 'run'", at: node.mark,
          notes: ["'command' runs through /bin/sh; 'run' runs a program directly: choose one"])
        return nil
      }
      guard let words = stringList(runNode, "'run'") else { return nil }
      var templates: [Template] = []
      for (offset, word) in words.enumerated() {
        let wordNode: YAMLNode = {
          if case .sequence(let nodes) = runNode.kind, offset < nodes.count { return nodes[offset] }
          return runNode
        }()
        guard let parsed = template(wordNode, "'run'") else { return nil }
        if offset == 0, word.contains("{") {
          error(
            "the program in 'run' cannot be a template", at: wordNode.mark,
            notes: ["item fields may fill the arguments, never the program"])
          return nil
        }
        templates.append(parsed)
      }
      checkProgram(words[0], at: runNode)
      action = HookAction(command: words.joined(separator: " "), run: templates)
    } else {
      guard let commandNode = value("command", in: entries), let command = string(commandNode, "'command'") else {
        if value("command", in: entries) == nil {
          error(
            "'hook' in \(context) has no 'command' or 'run'", at: node.mark,
            notes: ["hook: { command: ~/bin/archive, timeout: 30s }", "hook: { run: [notify-send, \"{title}\"] }"])
        }
        return nil
      }
      action = HookAction(command: command, mark: commandNode.mark)
    }
    if let timeout = value("timeout", in: entries) { action.timeout = duration(timeout, "'timeout'", positive: true) }
    return action
  }

  /// Reports a `run:` program that cannot be found: an absolute (or `~`) path that is not an executable
  /// file, or a name found on no directory of `PATH`.
  mutating func checkProgram(_ program: String, at node: YAMLNode) {
    let expanded = HomePath.expand(program)
    if expanded.contains("/") {
      guard let problem = HookProgram.problem(at: expanded) else { return }
      error(
        "the program '\(program)' in 'run' is not an executable file", at: node.mark,
        notes: [problem == .missing ? "no file at \(expanded)" : "make it executable: chmod +x \(expanded)"])
      return
    }
    guard HookProgram.resolve(program) == nil else { return }
    error(
      "the program '\(program)' in 'run' is not on PATH", at: node.mark,
      notes: ["give its full path, or install it"])
  }

  package mutating func template(_ node: YAMLNode, _ what: String) -> Template? {
    guard let text = string(node, what) else { return nil }
    do {
      return try Template(text)
    } catch {
      let column = node.mark.column + error.offset + (quoted(node) ? 1 : 0)
      let mark = Mark(line: node.mark.line, column: column)
      if error.unclosed {
        self.error("unclosed '{' in \(what)", at: mark, notes: ["write '{{' for a literal brace"])
      } else {
        var notes: [String] = []
        if let suggestion = Suggestion.closest(to: error.name, in: Template.Field.allCases.map(\.rawValue)) {
          notes.append("did you mean '{\(suggestion)}'?")
        }
        notes.append("fields: " + Template.Field.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", "))
        self.error("unknown template field '{\(error.name)}' in \(what)", at: mark, notes: notes)
      }
      return nil
    }
  }

  // MARK: - Conditions

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
        "fields: title, text, category, author, link, feed, tag, any; combinators: all, any, not; older_than, newer_than"
    )
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
