// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherRegex
import WatcherSupport
import WatcherXML

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
  var regexes: [String: Result<LinearRegex, LinearRegex.RegexError>] = [:]
  /// The diagnostics already reported, so that an alias repeating a mistake reports it once.
  var reported: Set<String> = []

  /// The most diagnostics reported for one config; past it, the rest are summed up in one line.
  static let maxDiagnostics = 10_000
  /// Conditions mapped so far, aliases counted as often as they are used.
  var conditions = 0
  /// Set once the note on where relative feed paths are read from was made.
  var notedRelativePaths = false
  /// Set once a work cap was passed (reported once; the rest of the rules are not mapped).
  var overBudget = false

  /// Regex program steps so far, summed over every regex condition (each use of an alias counted).
  var regexSteps = 0

  /// The most conditions (fields, combinators, age tests) a config may hold, aliases expanded.
  package static let maxConditions = 10_000
  /// The most regex steps all regex conditions may hold together, aliases expanded: each step is work
  /// done for every item.
  package static let maxRegexSteps = 2_000_000

  package static let topKeys = ["settings", "feeds", "rules"]
  package static let settingsKeys =
    [
      "interval", "concurrency", "timeout", "first_poll", "max_age", "retention", "max_size", "max_items",
      "state_dir",
      "hook_concurrency", "hook_retries", "hook_retry", "ignore_parameters", "dedupe", "stories", "notify", "journal",
      "full_text",
      "full_text_budget", "auto_interval", "host_gap", "score_scope",
    ] + fetchKeys
  /// How a feed is requested, in `settings` or on a feed.
  package static let fetchKeys = ["user_agent", "headers", "netrc", "cookies", "proxy"]
  package static let journalKeys = ["keep_for", "keep_max"]
  package static let hookRetryKeys = ["delay", "max_delay", "give_up_after"]
  package static let notifySettingsKeys = [
    "urgency", "expire", "max_per_poll", "icon", "keep_for", "keep_max", "quiet", "quiet_allows", "health",
    "snooze", "learn",
  ]
  package static let feedKeys =
    [
      "url", "name", "title", "site", "interval", "tags", "notify", "hook", "apprise", "identity", "full_text",
      "dedupe", "stories", "first_poll", "content_selector", "link_rewrite", "page", "items",
    ] + fetchKeys
  package static let ruleKeys = [
    "name", "feeds", "match", "tag", "mute", "notify", "hook", "stop", "digest", "digest_hook", "on_update", "webhook",
    "apprise", "buttons", "dedupe",
  ]
  package static let digestKeys = ["every", "at"]
  package static let conditionKeys =
    MatchField.allCases.map(\.rawValue) + ["all", "not", "older_than", "newer_than", "score", "story"]
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
    checkPageOptions(config)
    checkSpreadRules(config)
    return config
  }

  /// A spread trigger counts the feeds of a story: with grouping off for every feed it applies to, it never
  /// fires, which is worth a word.
  private mutating func checkSpreadRules(_ config: Config) {
    for rule in config.rules where rule.spread != nil {
      let grouped = config.feeds.filter { rule.applies(to: $0) && ($0.stories ?? config.settings.stories) }
      guard grouped.count < 2 else { continue }
      warning(
        "rule '\(rule.name)' waits for a story across feeds, but \(grouped.count) of its feeds \(grouped.count == 1 ? "is" : "are") grouped into stories: it never fires",
        at: rule.mark,
        notes: ["settings.stories: false or stories: false on a feed leaves its items out of stories"])
    }
  }

  /// `content_selector` and `link_rewrite` say how a feed's pages are read: on a feed that reads none they
  /// do nothing, which is worth a word.
  private mutating func checkPageOptions(_ config: Config) {
    for feed in config.feeds where !feed.wantsFullText(config.settings) {
      let keys = [feed.contentSelector.map { _ in "content_selector" }, feed.linkRewrite.map { _ in "link_rewrite" }]
        .compactMap { $0 }
      guard !keys.isEmpty else { continue }
      diagnostics.append(
        Diagnostic(
          .warning,
          message: "feed '\(feed.name)' has \(keys.joined(separator: " and ")), but does not fetch its articles",
          mark: feed.mark, notes: ["add full_text: true to the feed (or settings.full_text: true)"]))
    }
  }

  /// A rule on `content` over feeds that do not fetch their articles can never match on them: a warning
  /// that names them.
  private mutating func checkContentRules(_ config: Config) {
    for rule in config.rules where rule.condition.tests(.content) {
      let feeds = config.feeds.filter {
        rule.scope.isEmpty || rule.scope.contains($0.name) || $0.tags.contains(where: rule.scope.contains)
      }
      let without = feeds.filter { !$0.wantsFullText(config.settings) }.map(\.name)
      guard !without.isEmpty else { continue }
      let all = without.count == feeds.count
      let named = without.prefix(5).map { "'\($0)'" }.joined(separator: ", ") + (without.count > 5 ? ", …" : "")
      diagnostics.append(
        Diagnostic(
          .warning,
          message: all
            ? "rule '\(rule.name)' matches on content, but none of its feeds fetches its articles"
            : "rule '\(rule.name)' matches on content, but \(without.count) of its feeds "
              + (without.count == 1 ? "does not fetch its articles: " : "do not fetch their articles: ") + named,
          mark: rule.mark,
          notes: [
            "content is the main text of the page an item links to; watcher reads it only for feeds with "
              + "full_text: true (or settings.full_text: true)"
          ]))
    }
  }

  // MARK: - Settings

  /// `settings.hook_retry`: `delay`, `max_delay`, `give_up_after` (durations).
  private mutating func hookRetry(_ node: YAMLNode) -> RetrySettings {
    var retry = RetrySettings()
    guard let entries = mapping(node, "'settings.hook_retry'") else { return retry }
    checkKeys(entries, allowed: Self.hookRetryKeys, in: "'settings.hook_retry'")
    for entry in entries {
      switch entry.key {
      case "delay": retry.delay = duration(entry.value, "'delay'", positive: true) ?? retry.delay
      case "max_delay": retry.maxDelay = duration(entry.value, "'max_delay'", positive: true) ?? retry.maxDelay
      case "give_up_after": retry.giveUpAfter = duration(entry.value, "'give_up_after'") ?? retry.giveUpAfter
      default: break
      }
    }
    return retry
  }

  package mutating func settings(_ node: YAMLNode) -> Settings {
    var settings = Settings()
    guard let entries = mapping(node, "'settings'") else { return settings }
    checkKeys(entries, allowed: Self.settingsKeys, in: "'settings'")
    for entry in entries {
      let v = entry.value
      switch entry.key {
      case "interval":
        if v.scalar == "auto" {
          settings.autoInterval = true
        } else {
          settings.interval = duration(v, "'interval'", positive: true) ?? settings.interval
        }
      case "auto_interval": settings.autoBounds = autoBounds(v)
      case "host_gap":
        settings.hostGap = seconds(v, "'host_gap'")
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
      case "hook_retry": settings.hookRetry = hookRetry(v)
      case "ignore_parameters":
        settings.ignoreParameters = stringList(v, "'ignore_parameters'", allowEmpty: true) ?? []
      case "dedupe": settings.dedupe = bool(v, "'dedupe'") ?? true
      case "stories": settings.stories = bool(v, "'stories'") ?? true
      case "score_scope":
        switch v.scalar {
        case "all": settings.scoreByTag = false
        case "tag": settings.scoreByTag = true
        default: unknownChoice("score_scope", v.scalar ?? v.kindName, ["all", "tag"], at: v.mark)
        }
      case "notify": settings.notify = notifySettings(v)
      case "full_text": settings.fullText = bool(v, "'full_text'") ?? false
      case "full_text_budget":
        guard let entries = mapping(v, "'settings.full_text_budget'") else { break }
        checkKeys(entries, allowed: ["pages", "feed", "pass"], in: "'settings.full_text_budget'")
        var budget = settings.fullTextBudget
        for entry in entries {
          switch entry.key {
          case "pages": budget.pages = integer(entry.value, "'pages'", 0...1_000) ?? budget.pages
          case "feed": budget.feedSeconds = duration(entry.value, "'feed'", positive: true) ?? budget.feedSeconds
          case "pass": budget.passSeconds = duration(entry.value, "'pass'", positive: true) ?? budget.passSeconds
          default: break
          }
        }
        settings.fullTextBudget = budget
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
    settings.fetch = fetchOptions(entries, in: "'settings'")
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
      case "health": notify.health = bool(entry.value, "'health'") ?? true
      case "snooze": notify.snooze = duration(entry.value, "'snooze'", positive: true) ?? notify.snooze
      case "learn": notify.learn = bool(entry.value, "'learn'") ?? false
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

  /// `link_rewrite: { match: REGEX, replace: TEXT }`, its regex compiled.
  mutating func linkRewrite(_ node: YAMLNode) -> LinkRewrite? {
    guard let entries = mapping(node, "'link_rewrite'") else { return nil }
    checkKeys(entries, allowed: ["match", "replace"], in: "link_rewrite")
    guard let matchNode = value("match", in: entries), let pattern = string(matchNode, "'link_rewrite.match'"),
      let replaceNode = value("replace", in: entries), let replace = string(replaceNode, "'link_rewrite.replace'")
    else {
      error(
        "'link_rewrite' needs 'match' and 'replace'", at: node.mark,
        notes: ["for example link_rewrite: { match: '/article/', replace: '/print/' }"])
      return nil
    }
    do {
      return LinkRewrite(match: try LinearRegex(pattern, caseSensitive: true), replace: replace)
    } catch {
      self.error("'link_rewrite.match' is not a regex this reads: \(error.message)", at: matchNode.mark)
      return nil
    }
  }

  package mutating func feeds(_ node: YAMLNode, settings: Settings) -> [FeedConfig] {
    guard let elements = sequence(node, "'feeds'") else { return [] }
    var feeds: [FeedConfig] = []
    var names: [String: Mark] = [:]
    var urls: [String: Mark] = [:]
    for (index, element) in elements.enumerated() {
      let context = "feeds[\(index + 1)]"
      guard let entries = mapping(element, context) else { continue }
      checkKeys(entries, allowed: Self.feedKeys, in: context)
      if let both = value("page", in: entries), value("url", in: entries) != nil {
        error(
          "\(context) has both 'url' and 'page'", at: both.mark,
          notes: ["'url: URL' watches a feed; 'page: URL' watches the list of posts of a page that has none"])
        continue
      }
      guard let urlNode = value("url", in: entries) ?? value("page", in: entries) else {
        error(
          "\(context) has no 'url'", at: element.mark,
          notes: ["every feed needs 'url: https://…' (or a file path), or 'page: https://…' for a page without a feed"])
        continue
      }
      let entryKey = value("url", in: entries) == nil ? "page" : "url"
      guard let written = string(urlNode, "'\(entryKey)'") else { continue }
      guard checkLocation(written, at: urlNode, key: entryKey) else { continue }
      // A relative path means relative to the config file, wherever watcher is started from.
      let url = FeedLocation.resolve(written, against: baseDirectory)
      var feed = FeedConfig(url: url, name: FeedConfig.slug(for: written), mark: element.mark)
      feed.page = page(entries, in: context)
      if let nameNode = value("name", in: entries), let name = string(nameNode, "'name'") {
        feed.name = name
      }
      for entry in entries {
        switch entry.key {
        case "interval":
          if entry.value.scalar == "auto" {
            feed.autoInterval = true
          } else {
            feed.interval = duration(entry.value, "'interval'", positive: true)
            feed.autoInterval = feed.interval == nil ? nil : false
          }
        case "title": feed.title = string(entry.value, "'title'")
        case "site": feed.site = string(entry.value, "'site'")
        case "tags": feed.tags = stringList(entry.value, "'tags'", allowEmpty: true) ?? []
        case "notify": feed.notify = bool(entry.value, "'notify'") ?? false
        case "hook": feed.hook = hookAction(entry.value, in: context)
        case "apprise": feed.apprise = appriseAction(entry.value, in: context)
        case "full_text": feed.fullText = bool(entry.value, "'full_text'")
        case "content_selector":
          guard let text = string(entry.value, "'content_selector'") else { break }
          do {
            feed.contentSelector = try HTMLSelector(text)
          } catch {
            self.error(
              "'content_selector' is not a selector this reads: \(error)", at: entry.value.mark,
              notes: ["write a CSS selector such as 'article .post-body' or 'div#content > p'"])
          }
        case "link_rewrite": feed.linkRewrite = linkRewrite(entry.value)
        case "dedupe": feed.dedupe = bool(entry.value, "'dedupe'")
        case "stories": feed.stories = bool(entry.value, "'stories'")
        case "first_poll": feed.firstPoll = firstPoll(entry.value)
        case "identity":
          if let text = string(entry.value, "'identity'") {
            if let identity = FeedConfig.Identity(rawValue: text) {
              feed.identity = identity
              feed.identityChosen = true
            } else {
              unknownChoice("identity", text, FeedConfig.Identity.allCases.map(\.rawValue), at: entry.value.mark)
            }
          }
        default: break
        }
      }
      feed.fetch = fetchOptions(entries, in: context)
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
  mutating func checkLocation(_ written: String, at node: YAMLNode, key: String = "url") -> Bool {
    let text = written.trimming(.spaces)
    let lower = text.lowercased()
    for broken in ["https//", "http//", "https:/", "http:/", "https:\\", "http:\\"]
    where lower.hasPrefix(broken) && !FeedLocation.isHTTP(lower) {
      let scheme = lower.hasPrefix("https") ? "https" : "http"
      let rest = text.dropFirst(broken.count).drop { $0 == "/" || $0 == "\\" }
      error(
        "malformed URL '\(text)' for '\(key)'", at: node.mark, notes: ["did you mean '\(scheme)://\(rest)'?"])
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
      // Said once, at the first relative path: where all of them are read from.
      if !notedRelativePaths, let baseDirectory {
        notedRelativePaths = true
        diagnostics.append(
          Diagnostic(
            .note, message: "relative feed paths are read from the config's directory, \(baseDirectory)",
            mark: node.mark, notes: ["'\(text)' is \(resolved)"]))
      }
    } else {
      diagnostics.append(
        Diagnostic(
          .warning, message: "feed file \(resolved) does not exist", mark: node.mark,
          notes: ["a relative path is read from the config's directory"]))
    }
    return true
  }
}
