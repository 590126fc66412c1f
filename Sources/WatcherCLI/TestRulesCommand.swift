// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherPoll
import WatcherRules
import WatcherState
import WatcherSupport

/// `watcher test-rules`: a dry run of the rules over feeds, files or a synthetic item.
///
/// It never notifies, never runs a hook and never writes state.
struct TestRulesCommand: Command {
  let name = "test-rules"
  let summary = "dry run: show what the rules would do to each item, and why"
  let positionals = Positionals.any("FILE|URL")
  let options = [
    Options.config,
    Options.stateDir.described("with --explain: the state that says which items were seen before (read only)"),
    Options.feed.described("only this configured feed, or a file or URL (repeatable); the feed of a synthetic item"),
    Options.asFeed,
    Options.all,
    Options.explain,
    Options.json.described("print the stable JSON schema (share/doc/watcher/rules.md)"),
    Options.title,
    Options.text,
    Options.content,
    Options.category,
    Options.link,
    Options.published,
    Options.now,
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard let (config, _) = ConfigOption.loadForReading(arguments, terminal: terminal) else { return .config }
    var engine = RuleEngine(rules: config.rules, settings: config.settings.notify)
    if engine.usesScore,
      let store = try? StateStore(
        directory: StateOptions.directory(arguments, config: config, environment: terminal.environment))
    {
      engine = engine.learning(from: store, feeds: config.feeds, byTag: config.settings.scoreByTag)
    }
    let now = arguments.date(Options.now) ?? WallClock.now()
    var run = DryRun()
    let synthetic = [Options.title, Options.text, Options.content, Options.category, Options.link, Options.published]
      .contains { !arguments.values($0).isEmpty }
    if synthetic {
      // The item is put in the named feed, so the rules scoped to it (or to its tags) apply; an unknown name
      // is an error, never a silent feed of its own.
      let names = arguments.values(Options.feed)
      guard names.count <= 1 else {
        terminal.error("error: a synthetic item belongs to one feed; give --feed once")
        return .usage
      }
      var feed = FeedConfig(url: "test:", name: "test")
      if let name = names.first {
        guard let named = StateOptions.named([name], config: config, terminal: terminal)?.first else { return .usage }
        feed = named
      }
      let published = arguments.date(Options.published) ?? now
      var item = FeedItem(
        key: "test", title: arguments.value(Options.title), link: arguments.value(Options.link),
        categories: arguments.values(Options.category), published: published, text: arguments.value(Options.text))
      item.id = nil
      item.content = arguments.value(Options.content)
      run.add([item], feed: feed, engine: engine, now: now)
    } else {
      guard let sources = sources(arguments, config: config, terminal: terminal) else { return .usage }
      // The http(s) feeds are fetched together; the files read directly.
      let transport = CurlTransport(userAgent: WatcherCLI.userAgent)
      let results = FeedLoader.load(sources, settings: config.settings, transport: transport)
      for (feed, result) in zip(sources, results) {
        switch result {
        case .success(let parsed):
          var items = parsed.feed.items
          if feed.wantsFullText(config.settings), !items.isEmpty {
            let failed = ArticleLoader.addContent(
              to: &items, feedURL: feed.url, limits: ArticleLoader.Limits(config.settings), transport: transport)
            for (item, error) in failed {
              terminal.error("warning: feed '\(feed.name)': full text of '\(item)': \(error)")
            }
          }
          run.add(items, feed: feed, engine: engine, now: now)
        case .failure(let error): run.failures.append((feed, "\(error)"))
        }
      }
    }
    for failure in run.failures {
      terminal.error("error: feed '\(failure.feed.name)' (\(URLSecrets.redacted(failure.feed.url))): \(failure.reason)")
    }
    if arguments.has(Options.json) {
      let explain = arguments.has(Options.explain)
      terminal.print(
        run.json(
          includeUntouched: explain || arguments.has(Options.all), explain: explain ? config.rules : nil, now: now
        )
        .text)
    } else {
      // --explain also says what the state knows: an item seen before is not new, an edited one is updated.
      let seen =
        arguments.has(Options.explain)
        ? Self.seen(run, config: config, arguments, environment: terminal.environment) : [:]
      printText(
        run, all: arguments.has(Options.all) || arguments.has(Options.explain),
        explain: arguments.has(Options.explain) ? config.rules : nil, now: now, maxAge: config.settings.maxAge,
        seen: seen, terminal: terminal)
    }
    return run.failures.isEmpty ? .success : .failure
  }

  /// The feeds to read: named ones, files or URLs (matched to a configured feed when it points at the same
  /// place), or every configured feed.
  private func sources(_ arguments: Arguments, config: Config, terminal: Terminal) -> [FeedConfig]? {
    // --feed takes a configured name, or a file or URL (as the positional arguments do).
    var files = arguments.positionals
    var names: [String] = []
    for value in arguments.values(Options.feed) {
      let isFeed = config.feeds.contains { $0.name == value }
      let isFile = FeedLocation.isHTTP(value) || FileManager.default.fileExists(atPath: FeedLocation.path(of: value))
      if !isFeed, isFile { files.append(value) } else { names.append(value) }
    }
    guard var result = StateOptions.named(names, config: config, terminal: terminal) else { return nil }
    if let name = arguments.value(Options.asFeed) {
      // --as NAME: a local copy (or another URL) read as the configured feed NAME, with its tags, scope
      // and settings.
      guard files.count == 1 else {
        terminal.error("error: --as needs exactly one FILE or URL to read as the feed '\(name)'")
        return nil
      }
      guard var feed = StateOptions.named([name], config: config, terminal: terminal)?.first else { return nil }
      feed.url = FeedLocation.isHTTP(files[0]) ? files[0] : FeedLocation.path(of: files[0])
      return result + [feed]
    }
    for file in files {
      if FeedLocation.isHTTP(file) {
        result.append(config.feeds.first { $0.url == file } ?? FeedConfig(url: file, name: FeedConfig.slug(for: file)))
        continue
      }
      let path = FeedLocation.path(of: file)
      if let feed = config.feeds.first(where: { FeedLocation.path(of: $0.url) == path }) {
        result.append(feed)
      } else {
        result.append(FeedConfig(url: file, name: FeedConfig.slug(for: FilePath.name(path))))
      }
    }
    if result.isEmpty { result = config.feeds }
    return result
  }

  /// For each item of a configured feed the state knows (by outcome index): "seen before" or "updated".
  static func seen(_ run: DryRun, config: Config, _ arguments: Arguments, environment: [String: String]) -> [Int:
    String]
  {
    let directory = StateOptions.directory(arguments, config: config, environment: environment)
    guard let store = try? StateStore(directory: directory) else { return [:] }
    var states: [String: FeedState] = [:]
    var result: [Int: String] = [:]
    for (index, outcome) in run.outcomes.enumerated() {
      // The configured feed's state (also for a copy read with --as).
      guard let url = config.feeds.first(where: { $0.name == outcome.feed.name })?.url else { continue }
      if states[url] == nil { states[url] = (try? store.load(url: url, readOnly: true).state) ?? FeedState(url: "") }
      guard let state = states[url], state.initialized else { continue }
      let key = FeedDecider.identity(outcome.feed, state: state).key(of: outcome.item)
      guard let known = state.items[key] else { continue }
      let digest = StoryIdentity.digest(title: outcome.item.title, text: outcome.item.text)
      if let before = state.itemDigests[key], before != digest {
        let onUpdate = config.rules.contains { $0.actions.onUpdate && $0.applies(to: outcome.feed) }
        result[index] =
          "updated, not new: its title or text changed since it was first seen"
          + (onUpdate ? " (the rules with on_update act on it)" : "; the poll would not act on it")
      } else {
        result[index] =
          "seen before (first seen \(WallClock.shown(known.firstSeen))): not new, the poll would not act on it"
      }
    }
    return result
  }

  private func printText(
    _ run: DryRun, all: Bool, explain rules: [Rule]?, now: Date, maxAge: Int?, seen: [Int: String] = [:],
    terminal: Terminal
  ) {
    let color = terminal.outputIsTerminal && terminal.environment["NO_COLOR"] == nil
    func bold(_ s: String) -> String { color ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
    func highlight(_ s: String) -> String { color ? "\u{1B}[33m\(s)\u{1B}[0m" : "\"\(s)\"" }
    var out = ""
    for (index, outcome) in run.outcomes.enumerated() where all || outcome.decision.isTouched {
      let d = outcome.decision
      out += "\(bold(outcome.item.title ?? "(untitled)"))  [\(outcome.feed.name)]\n"
      if let link = outcome.item.link { out += "  link: \(link)\n" }
      if let content = outcome.item.content {
        let words = content.split(whereSeparator: \.isWhitespace)
        out += "  content: \(words.count) words from the article: \(Terminal.clip(words.joined(separator: " "), 72))\n"
      }
      // test-rules is the rules' view; say when the poll would not act on the item whatever the rules say.
      if let maxAge, let published = outcome.item.published, published < now.addingTimeInterval(-Double(maxAge)) {
        out += "  the poll would not act on it: published \(WallClock.shown(published)), older than max_age\n"
      }
      if let seen = seen[index] { out += "  \(seen)\n" }
      if !d.isTouched { out += "  no rule matched\n" }
      if let mutedBy = d.mutedBy { out += "  MUTED by '\(mutedBy)': no notification, no hook\n" }
      if !d.tags.isEmpty { out += "  tags: \(d.tags.joined(separator: ", "))\n" }
      for n in d.notifications {
        out +=
          "  notify (\(n.rule.map { "rule '\($0)'" } ?? "feed notify: true"), \(n.urgency.rawValue)): \(n.summary)\n"
        if !n.body.isEmpty { out += "    body: \(n.body)\n" }
      }
      for apprise in d.apprise {
        out += "  apprise (rule '\(apprise.rule)'): \(apprise.message.summary)\n"
      }
      for webhook in d.webhooks {
        out += "  webhook (rule '\(webhook.rule)'): POST to \(URLSecrets.redacted(webhook.action.url))\n"
      }
      for hook in d.hooks {
        if let arguments = hook.arguments {
          out +=
            "  hook (rule '\(hook.rule)'): runs \(arguments.map { JSONString.literal($0) }.joined(separator: " "))\n"
        } else {
          out += "  hook (rule '\(hook.rule)'): /bin/sh -c \(hook.command)\n"
        }
        for (name, value) in HookEnvironment.variables(
          item: outcome.item, feed: outcome.feed, rule: hook.rule, tags: d.tags)
        {
          // Only the text can be long; everything else is shown whole.
          // The article's text is there only for full_text feeds; elsewhere it is always empty.
          if name == "WATCHER_CONTENT" && outcome.item.content == nil { continue }
          let long = name == "WATCHER_TEXT" || name == "WATCHER_CONTENT"
          let shown = long && value.count > 60 ? String(value.prefix(59)) + "…" : value
          out += "    \(name)=\(shown.replacing("\n", with: " "))\n"
        }
      }
      for match in d.matches {
        out += "  why: rule '\(match.rule)' matched \(match.field) \(highlight(match.text))\n"
      }
      if let stop = d.stoppedBy { out += "  rule '\(stop)' stopped evaluation\n" }
      if let rules {
        if let score = outcome.score {
          let moved =
            outcome.scoreReasons.isEmpty ? "" : ", most moved by " + outcome.scoreReasons.joined(separator: ", ")
          out += Terminal.field("  learned score: \(Relevance.shown(score))\(moved)") + "\n"
        }
        for verdict in RuleExplainer.explain(
          outcome.item, feed: outcome.feed, rules: rules, now: now, score: outcome.score)
        {
          if let skipped = verdict.skipped {
            out += "  - rule '\(verdict.rule)' not looked at: \(skipped)\n"
          } else {
            out +=
              "  \(verdict.matched ? "+" : "-") rule '\(verdict.rule)' \(verdict.matched ? "matched" : "did not match")\n"
            out += (verdict.steps?.lines(indent: "      ") ?? []).joined(separator: "\n") + "\n"
          }
        }
      }
      out += "\n"
    }
    out += run.summary.line + "\n"
    terminal.output(Array(out.utf8))
  }
}
