// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherFeed
import WatcherPoll
import WatcherRules
import WatcherState
import WatcherSupport

/// What the clicks on watcher's notifications do, for the process that holds them (the daemon, or the
/// helper of an exited `watcher poll`): open links, snooze a feed (`snoozed.json`), and record a button's
/// click (`clicks/`) for the next pass to run as a pending hook, then say so (`recorded`).
struct StoreClicks: NotificationClicks {
  let directory: String
  /// How long "Snooze feed" snoozes (`settings.notify.snooze`).
  let snoozeFor: Int
  /// Called once a click was recorded: the daemon wakes; the helper runs `watcher pending --retry`.
  let recorded: @Sendable (Click) -> Void

  private var store: StateStore? { try? StateStore(directory: directory) }

  func open(_ links: [String]) {
    for link in links.prefix(20) { LinkOpener.open(link) }
  }

  func snooze(feed: String) {
    let now = WallClock.now()
    try? store?.snooze(feed, until: now.addingTimeInterval(Double(snoozeFor)), now: now)
  }

  func label(up: Bool, of notification: DesktopNotification) {
    guard let store, let key = notification.key, let document = notification.item,
      let item = try? JSONValue.read(Array(document.utf8))
    else { return }
    var read = Relevance.Item(document: item)
    if read.feed.isEmpty { read.feed = notification.feed ?? "" }
    if read.title.isEmpty { read.title = notification.summary }
    let label = Label(key: key, item: read, up: up, time: WallClock.now())
    try? store.updateLabels { $0.append(label) }
  }

  func press(_ button: String, of notification: DesktopNotification) {
    guard let store, let url = notification.feedURL, let key = notification.key, let rule = notification.rule else {
      return
    }
    let click = Click(
      feedURL: url, key: key, rule: rule, button: button, title: notification.summary, link: notification.link,
      item: notification.item, time: WallClock.now())
    guard (try? store.record(click)) != nil else { return }
    recorded(click)
  }
}
