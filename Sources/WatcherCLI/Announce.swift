// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherConfig
import WatcherPoll
import WatcherState

/// `watcher items FEED --announce KEY`: an item watcher took for a known one (its feed changed its ids, or
/// so it seemed) is acted on after all, through the normal path: the item is forgotten and marked, and a
/// pass of its feed takes it for new — the rules decide, its actions are pending until done, retried, journaled.
enum Announce {
  static func run(_ key: String, feed: FeedConfig, _ arguments: Arguments, terminal: Terminal) -> ExitCode {
    // Acting waits for a config that loads, as a poll does.
    guard let (config, path) = ConfigOption.load(arguments, terminal: terminal) else { return .config }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    let request = DaemonSocket.Request(
      .announce(feed: feed.name, key: key), config: DaemonSocket.canonical(path))
    return Handover.withPoller(config, directory: directory, request: request, terminal: terminal) {
      execute(key, feed: feed, poller: $0, terminal: terminal).code
    }
  }

  /// Marks the item and runs a pass of its feed (by the command, or by the daemon it handed this to).
  static func execute(_ key: String, feed: FeedConfig, poller: Poller, terminal: Terminal) -> (
    code: ExitCode, pass: Poller.Pass?
  ) {
    do {
      var state = try poller.store.load(url: feed.url).state
      guard state.items.removeValue(forKey: key) != nil else {
        terminal.error(
          "error: feed '\(feed.name)' has no known item '\(key)' ('watcher items \(feed.name)' lists its items and keys)"
        )
        return (.usage, nil)
      }
      state.itemDigests[key] = nil
      state.announce = Array((state.announce.filter { $0 != key } + [key]).suffix(FeedState.maxAnnounce))
      try poller.store.save(state)
    } catch {
      terminal.error("error: feed '\(feed.name)': \(error)")
      return (.failure, nil)
    }
    let pass = poller.pass([feed], force: true)
    for line in KeptReport.lines(pass, keptNow: pass.outcomes.reduce(0) { $0 + $1.kept }) { terminal.report(line) }
    for outcome in pass.outcomes {
      for line in PollReport.lines(outcome, for: .poll(.normal)) { terminal.report(line) }
    }
    let left = (try? poller.store.load(url: feed.url, readOnly: true, items: false).state.announce) ?? []
    if left.contains(key) {
      terminal.error(
        "note: '\(key)' is not in the feed now: it is taken for new when it is back (within the retention)")
    }
    return (pass.outcomes.allSatisfy(\.failures.isEmpty) ? .success : .failure, pass)
  }
}
