// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
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
    for var action in pending {
      // Recorded before sources were typed: the feed's own hook was the rule "feed 'NAME'".
      if action.kind == .hook, case .rule(let name) = action.source, name == "feed '\(feed.name)'",
        !config.rules.contains(where: { $0.name == name })
      {
        action.source = .feed
      }
      switch action.payload {
      case .notify:
        // A notification's texts were rendered when it was decided; only its rule's existence matters.
        if let rule = action.rule, !config.rules.contains(where: { $0.name == rule && $0.actions.notify != nil }) {
          gone.append(action)
        } else {
          current.append(action)
        }
      case .hook(var hook):
        guard let now = self.hook(of: action.source, feed: feed, config: config) else {
          gone.append(action)
          continue
        }
        hook.command = now.command
        hook.timeout = now.timeout
        // Decided in this pass: its arguments were just filled in from the item by these templates.
        // Otherwise they are filled in again, from the item's document.
        if !hook.decidedInPass || hook.arguments == nil {
          hook.arguments = now.run.map { templates in
            let document = hook.item.flatMap { ItemDocument(json: $0) } ?? legacy(action)
            return Template.arguments(templates, item: document.item, feed: feed.name, tags: document.tags)
          }
        }
        action.payload = .hook(hook)
        current.append(action)
      case .webhook(var webhook):
        // Where it goes and its secret as the rule says now (a fixed URL fixes its retries).
        guard let rule = action.rule, let now = config.rules.first(where: { $0.name == rule })?.actions.webhook
        else {
          gone.append(action)
          continue
        }
        (webhook.url, webhook.secretFile, webhook.secretEnv, webhook.timeout) =
          (now.url, now.secretFile, now.secretEnv, now.timeout)
        action.payload = .webhook(webhook)
        current.append(action)
      case .apprise(var apprise):
        // Where it goes is the rule's now: its URLs (never stored) and URL file.
        let now: AppriseAction?
        switch action.source {
        case .feed: now = feed.apprise
        case .rule(let rule): now = config.rules.first { $0.name == rule }?.actions.apprise
        case .button: now = nil
        }
        guard let now else {
          gone.append(action)
          continue
        }
        (apprise.urls, apprise.file) = (now.urls, now.file)
        action.payload = .apprise(apprise)
        current.append(action)
      }
    }
    return (current, gone)
  }

  /// The hook its rule (or the feed's own `hook:`) has in the config now.
  private static func hook(of source: ActionSource, feed: FeedConfig, config: Config) -> HookAction? {
    switch source {
    case .feed: return feed.hook
    case .rule(let rule): return config.rules.first { $0.name == rule }?.actions.hook
    case .button(let rule, let label):
      return config.rules.first { $0.name == rule }?.actions.buttons.first { $0.label == label }?.hook
    }
  }

  /// The item of an action stored without its document, from the `WATCHER_*` variables stored with it.
  private static func legacy(_ action: FeedState.PendingAction) -> ItemDocument {
    guard case .hook(let hook) = action.payload else { return ItemDocument(item: FeedItem(key: action.key)) }
    let environment = hook.environment ?? [:]
    func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    let item = FeedItem(
      key: value("WATCHER_ID") ?? action.key, title: value("WATCHER_TITLE"), link: value("WATCHER_LINK"),
      author: value("WATCHER_AUTHOR"),
      categories: value("WATCHER_CATEGORIES").map { $0.split(separator: ",").map(String.init) } ?? [],
      published: value("WATCHER_PUBLISHED").flatMap(DateParser.parse), text: value("WATCHER_TEXT"))
    return ItemDocument(item: item, tags: value("WATCHER_TAGS").map { $0.split(separator: ",").map(String.init) } ?? [])
  }
}
