// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherState
import WatcherSupport

extension Poller {
  /// The buttons clicked since the last pass (`clicks/`), each made a pending hook of its feed and saved,
  /// then its file removed: the pass then runs them as it runs any pending hook (retried, journaled).
  ///
  /// A click whose feed or button is no longer in the config is given up, and journaled so.
  package func absorbClicks(now: Date) -> [String] {
    var problems: [String] = []
    for (path, click) in store.clicks() {
      guard let feed = config.feeds.first(where: { $0.url == click.feedURL }),
        let button = config.rules.first(where: { $0.name == click.rule })?.actions.buttons.first(where: {
          $0.label == click.button
        })
      else {
        problems.append(
          "a click on '\(click.button)' of rule '\(click.rule)' was given up: the feed or the button is no longer in the config"
        )
        try? store.appendJournal(
          [
            JournalEntry(
              time: now, feed: "", title: click.title, link: click.link, key: click.key, rule: click.rule,
              action: "hook", outcome: .dropped, detail: "button '\(click.button)': no longer in the config")
          ], limits: journalLimits, now: now)
        unlink(path)
        continue
      }
      do {
        var state = try store.load(url: feed.url).state
        state.pending.append(
          FeedState.PendingAction(
            key: click.key, source: .button(rule: click.rule, label: click.button),
            payload: .hook(
              .init(command: button.hook.command, timeout: button.hook.timeout, item: click.item ?? "{}")),
            title: click.title, link: click.link, created: click.time))
        try store.save(state, syncDirectory: true)
        unlink(path)
      } catch {
        problems.append("cannot record a click on '\(click.button)' for feed '\(feed.name)': \(error)")
      }
    }
    return problems
  }
}
