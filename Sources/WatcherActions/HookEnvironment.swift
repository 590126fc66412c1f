// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherConfig
import WatcherFeed
import WatcherState
import WatcherSupport

/// The `WATCHER_*` variables a hook gets: the only way, with stdin, that item data reaches it.
public enum HookEnvironment {
  /// The longest value a variable gets, in bytes; a longer one is cut at a character boundary.
  ///
  /// Linux refuses to start a program with any one environment string over 128 KiB (`E2BIG`), so an uncut
  /// 1 MB text would make the hook fail for that item every time. The whole item is on stdin, uncut.
  public static let maxValueBytes = 65_536

  /// The variables for `item` of `feed` when `rule` runs its hook, in a stable order.
  public static func variables(item: FeedItem, feed: FeedConfig, rule: String, tags: [String]) -> [(String, String)] {
    variables(item: item, feedName: feed.name, feedURL: URLSecrets.redacted(feed.url), rule: rule, tags: tags)
  }

  /// The variables of a pending hook, derived from the document it gets on stdin when it runs.
  ///
  /// That is an item's document (its feed, rule and tags are in it), or a digest's array of items. Actions
  /// stored by versions before 2026-12-01 carry the variables they were decided with, and get those.
  public static func variables(for action: FeedState.PendingAction) -> [String: String] {
    guard case .hook(let hook) = action.payload else { return [:] }
    if let stored = hook.environment { return stored }
    guard let json = hook.item else { return [:] }
    if let document = ItemDocument(json: json) {
      let pairs = variables(
        item: document.item, feedName: document.extra["feed"] ?? "",
        feedURL: URLSecrets.redacted(document.extra["feed_url"] ?? ""),
        rule: document.extra["rule"] ?? "", tags: document.tags)
      return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }
    var count = 0
    _ = try? JSONReader.read(Array(json.utf8)) { json in
      try json.array { json in
        try json.skipValue()
        count += 1
      }
    }
    return ["WATCHER_RULE": action.rule ?? "", "WATCHER_FEED": "digest", "WATCHER_DIGEST_COUNT": "\(count)"]
  }

  private static func variables(item: FeedItem, feedName: String, feedURL: String, rule: String, tags: [String])
    -> [(String, String)]
  {
    let all = [
      ("WATCHER_FEED", feedName),
      ("WATCHER_FEED_URL", feedURL),
      ("WATCHER_TITLE", item.title ?? ""),
      ("WATCHER_LINK", item.link ?? ""),
      ("WATCHER_ID", item.key),
      ("WATCHER_AUTHOR", item.author ?? ""),
      ("WATCHER_PUBLISHED", item.published.map(ISODate.format) ?? ""),
      ("WATCHER_CATEGORIES", item.categories.joined(separator: ",")),
      ("WATCHER_TAGS", tags.joined(separator: ",")),
      ("WATCHER_TEXT", item.text ?? ""),
      ("WATCHER_CONTENT", item.content ?? ""),
      ("WATCHER_RULE", rule),
    ]
    return all.map { ($0.0, clipped($0.1)) }
  }

  /// `value`, or its longest prefix of whole characters within `maxValueBytes`.
  package static func clipped(_ value: String) -> String {
    TextBudget.prefix(value, maxBytes: maxValueBytes)
  }

}
