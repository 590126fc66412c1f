// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherConfig
import WatcherFeed
import WatcherState
import WatcherSupport

/// Pending actions brought up to date with the config before they run: a hook runs the command its rule
/// has now (fixing a broken hook fixes its retries), and an action whose rule is gone is given up.
enum PendingRefresh {
  /// `pending` with each hook's command, arguments and timeout as its rule now says; `gone` are the actions
  /// whose rule is no longer in the config (or no longer asks for that kind of action).
  static func refresh(_ pending: [FeedState.PendingAction], feed: FeedConfig, config: Config) -> (
    current: [FeedState.PendingAction], gone: [FeedState.PendingAction]
  ) {
    var current: [FeedState.PendingAction] = []
    var gone: [FeedState.PendingAction] = []
    for action in pending {
      switch action.kind {
      case .notify:
        // A notification's texts were rendered when it was decided; only its rule's existence matters.
        if let rule = action.rule, !config.rules.contains(where: { $0.name == rule && $0.actions.notify != nil }) {
          gone.append(action)
        } else {
          current.append(action)
        }
      case .hook:
        guard let hook = hook(of: action.rule, feed: feed, config: config) else {
          gone.append(action)
          continue
        }
        var updated = action
        updated.command = hook.command
        updated.timeout = hook.timeout
        updated.arguments = hook.run.map { templates in
          let (item, tags) = item(from: action.environment ?? [:], key: action.key)
          return templates.map { $0.render(item, feed: feed.name, tags: tags) }
        }
        current.append(updated)
      }
    }
    return (current, gone)
  }

  /// The hook a rule (or the feed's own `hook:`, "feed 'NAME'") has in the config now.
  private static func hook(of rule: String?, feed: FeedConfig, config: Config) -> HookAction? {
    guard let rule else { return nil }
    if rule == "feed '\(feed.name)'" { return feed.hook }
    return config.rules.first { $0.name == rule }?.actions.hook
  }

  /// The item's fields as the hook's `WATCHER_*` variables carry them, for filling in `run:` templates again.
  private static func item(from environment: [String: String], key: String) -> (FeedItem, [String]) {
    func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    let item = FeedItem(
      key: value("WATCHER_ID") ?? key, title: value("WATCHER_TITLE"), link: value("WATCHER_LINK"),
      author: value("WATCHER_AUTHOR"),
      categories: value("WATCHER_CATEGORIES").map { $0.split(separator: ",").map(String.init) } ?? [],
      published: value("WATCHER_PUBLISHED").flatMap(DateParser.parse), text: value("WATCHER_TEXT"))
    return (item, value("WATCHER_TAGS").map { $0.split(separator: ",").map(String.init) } ?? [])
  }
}
