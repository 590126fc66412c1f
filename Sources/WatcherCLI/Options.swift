// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Every option of every command, declared once.
///
/// Commands list the ones they take (with their own help where it differs, `described(_:)`) and look values
/// up by these declarations, so a misspelt option does not compile.
enum Options {
  static let help = OptionSpec(name: "help", short: "h", help: "show this help")
  static let config = OptionSpec(
    name: "config", value: "FILE", help: "the config file (default: $WATCHER_CONFIG, then ~/.config/watcher/rules.yaml)"
  )
  static let stateDir = OptionSpec(
    name: "state-dir", value: "DIR",
    help: "where state lives (default: settings.state_dir, then ~/.local/state/watcher)")
  static let feed = OptionSpec(
    name: "feed", value: "NAME", help: "only this feed, due or not (repeatable)", repeatable: true)
  static let force = OptionSpec(
    name: "force", help: "poll named feeds even when their server asked to wait (Retry-After)")
  static let json = OptionSpec(name: "json", help: "print JSON")
  static let wide = OptionSpec(name: "wide", help: "every column at full width, whatever the terminal's width")
  static let print = OptionSpec(name: "print", help: "print the YAML entries instead of editing the config")
  static let dryRun = OptionSpec(
    name: "dry-run", help: "do everything but act and save: print the notifications and hooks the poll would make")

  // parse
  static let charset = OptionSpec(
    name: "charset", value: "NAME", help: "the encoding to assume when the feed declares none")
  static let maxSize = OptionSpec(
    name: "max-size", value: "BYTES", help: "refuse documents larger than this (default 20000000)",
    kind: .count(unit: "bytes"))
  static let maxItems = OptionSpec(
    name: "max-items", value: "N", help: "read at most N items (default 10000)", kind: .count(unit: "items"))
  // extract
  static let base = OptionSpec(
    name: "base", value: "URL", help: "the address a saved page came from (shown as its url)")
  // log
  static let since = OptionSpec(
    name: "since", value: "WHEN", help: "only entries newer than this: a duration (2d, 3h) or a date", kind: .since)
  static let follow = OptionSpec(
    name: "follow", help: "go on printing each entry as it is written, by any poll or the daemon, until interrupted")
  // pending
  static let retry = OptionSpec(name: "retry", help: "run them now (all, or those of the items KEY...)")
  static let drop = OptionSpec(name: "drop", help: "forget them (all, or those of the items KEY...)")
  // add, remove
  static let name = OptionSpec(
    name: "name", value: "NAME", help: "the feed's name in rules and messages (default: from its title)")
  static let tag = OptionSpec(
    name: "tag", value: "TAG", help: "a tag for every item of the feed (repeatable)", repeatable: true)
  static let notifyAll = OptionSpec(name: "notify", help: "notify every new item of the feed, rule or not")
  static let fullText = OptionSpec(
    name: "full-text", help: "fetch each new item's article, for rules on 'content' (full_text: true)")
  static let interval = OptionSpec(
    name: "interval", value: "DURATION", help: "how often to poll it: 30m, 2h, 1d, or auto (as often as it posts)",
    kind: .duration(auto: true))
  static let latest = OptionSpec(
    name: "latest", value: "N", help: "act on its newest N items at the first poll (first_poll: latest N)",
    kind: .count(unit: "items", max: 10_000))
  static let preview = OptionSpec(name: "preview", help: "show what the digest has collected and when it goes out")
  static let sendNow = OptionSpec(name: "send-now", help: "send the digest now instead of at its time")
  static let announce = OptionSpec(
    name: "announce", value: "KEY",
    help: "act on an item recognised as a known one after all: the next pass takes it for new (and runs now)")
  static let purge = OptionSpec(
    name: "purge", help: "also delete what watcher remembers of the feed (its state file)")
  // test-rules
  static let asFeed = OptionSpec(
    name: "as", value: "NAME", help: "read the one FILE or URL given as the configured feed NAME")
  static let all = OptionSpec(name: "all", help: "also list the items no rule touched")
  static let explain = OptionSpec(
    name: "explain",
    help: "for every item and rule: matched or not, and each condition with what decided it (implies --all)")
  static let title = OptionSpec(name: "title", value: "TEXT", help: "test a synthetic item with this title")
  static let text = OptionSpec(name: "text", value: "TEXT", help: "… with this text")
  static let content = OptionSpec(
    name: "content", value: "TEXT", help: "… with this article text (the field full_text fills)")
  static let category = OptionSpec(
    name: "category", value: "NAME", help: "… with this category (repeatable)", repeatable: true)
  static let link = OptionSpec(name: "link", value: "URL", help: "… with this link")
  static let published = OptionSpec(
    name: "published", value: "DATE", help: "… published at this date (ISO 8601; default: now)", kind: .date)
  static let now = OptionSpec(
    name: "now", value: "DATE", help: "evaluate age conditions as of this date (ISO 8601)", kind: .date)
}
