// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `watcher import-opml FILE`: adds an OPML file's (or a newsboat `urls` file's) subscriptions to the config.
///
/// The config is edited in place as text, so comments and layout survive; the old file is kept as `.bak`, and
/// the edit is written only if the result loads. Users expect an import to import (as every feed reader
/// does), not to hand them YAML to paste; `--print` is there for those who want to paste it themselves.
struct ImportOPMLCommand: Command {
  let name = "import-opml"
  let summary =
    "add the subscriptions of an OPML file or a newsboat urls file to the config (folders become tags; duplicates skipped)"
  let positionals = Positionals.one("FILE", "FILE (an OPML export of your feed reader, or newsboat's urls)")
  let options = [
    Options.config,
    Options.print,
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let file = arguments.positionals[0]
    let data: Data
    if file == "-" {
      data = terminal.readInput(20_000_000)
    } else {
      switch RegularFile.read(file, maxBytes: 20_000_000) {
      case .success(let contents): data = contents
      case .failure(let reason):
        terminal.error("error: \(file): cannot read: \(reason.description)")
        return .failure
      }
    }
    let subscriptions: [OPMLSubscription]
    do {
      let list = try OPML.read(data)
      subscriptions = list.subscriptions
      for reason in list.skipped { terminal.error(Terminal.field("skipped \(reason)")) }
    } catch {
      terminal.error(Terminal.field("error: \(file):\(error.line > 0 ? "" : " ")\(error)"))
      return .failure
    }
    let path = ConfigLocator.candidates(explicit: arguments.value(Options.config), environment: terminal.environment)[0]
    let exists = FileManager.default.fileExists(atPath: path)
    var text = ""
    var config = Config()
    if exists {
      guard let (loaded, _) = ConfigOption.load(arguments, terminal: terminal) else {
        terminal.error("note: fix the config first; the import leaves a broken config alone")
        return .config
      }
      config = loaded
      text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
    let plan = ConfigEditor.plan(subscriptions, into: config)
    var skipped = plan.skipped.isEmpty ? "" : "; skipped \(plan.skipped.count) already in the config"
    if !plan.notWeb.isEmpty {
      skipped += "; skipped \(plan.notWeb.count) that are not http(s) feeds"
      for url in plan.notWeb {
        terminal.error(Terminal.field("skipped '\(url)': not an http or https URL; only web feeds are imported"))
      }
    }
    if !plan.invalid.isEmpty {
      skipped += "; skipped \(plan.invalid.count) whose URL cannot be a line of the config"
      for url in plan.invalid {
        terminal.error(
          Terminal.field(
            "skipped '\(Terminal.clip(url, 120))': a URL of \(url.utf8.count) bytes with a space, a line break or "
              + "another control character, or over \(ConfigEditor.maxURLBytes) bytes, cannot be a feed"))
      }
    }
    if arguments.has(Options.print) {
      terminal.output(Array(("feeds:\n" + ConfigEditor.entries(plan.added)).utf8))
      terminal.error("\(plan.added.count) new feed\(plan.added.count == 1 ? "" : "s")\(skipped)")
      return .success
    }
    guard !plan.added.isEmpty else {
      terminal.print("\(path): nothing to add (\(subscriptions.count) subscriptions, all already there)")
      return .success
    }
    do {
      if !exists { text = "# watcher config, started by 'watcher import-opml'; see watcher-rules(5).\n" }
      let edited = try ConfigEditor.adding(plan.added, to: text, path: path)
      let backup = try ConfigEditor.write(edited, to: path)
      let count = plan.added.count
      terminal.print(
        "\(path): added \(count) feed\(count == 1 ? "" : "s")\(skipped)"
          + (backup.map { " (the old file is \($0))" } ?? ""))
      Subscriptions.tellDaemon(arguments, config: config, path: path, terminal: terminal)
      return .success
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
  }
}

/// `watcher export-opml`: prints the configured feeds as OPML 2.0.
struct ExportOPMLCommand: Command {
  let name = "export-opml"
  let summary = "print the configured feeds as OPML 2.0 (tags in the category attribute)"
  let positionals = Positionals.none()
  let options = [Options.config]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard let (config, _) = ConfigOption.load(arguments, terminal: terminal) else { return .config }
    // A page watched for its list of posts is no feed another reader could subscribe to.
    let pages = config.feeds.filter { $0.page != nil }
    if !pages.isEmpty {
      terminal.error(
        "note: left out \(pages.count) page feed\(pages.count == 1 ? "" : "s") (page: entries are pages, not feeds "
          + "other readers can read): \(pages.map { Terminal.field($0.name) }.joined(separator: ", "))")
    }
    terminal.output(Array(OPML.export(config.feeds.filter { $0.page == nil }).utf8))
    return .success
  }
}
