// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// The `WATCHER_*` variables a hook gets (SPEC §8): the only way, with stdin, that item data reaches it.
public enum HookEnvironment {
  /// The variables for `item` of `feed` when `rule` runs its hook, in a stable order.
  public static func variables(item: FeedItem, feed: FeedConfig, rule: String, tags: [String]) -> [(String, String)] {
    [
      ("WATCHER_FEED", feed.name),
      ("WATCHER_FEED_URL", feed.url),
      ("WATCHER_TITLE", item.title ?? ""),
      ("WATCHER_LINK", item.link ?? ""),
      ("WATCHER_ID", item.key),
      ("WATCHER_AUTHOR", item.author ?? ""),
      ("WATCHER_PUBLISHED", item.published.map(ISODate.format) ?? ""),
      ("WATCHER_CATEGORIES", item.categories.joined(separator: ",")),
      ("WATCHER_TAGS", tags.joined(separator: ",")),
      ("WATCHER_TEXT", item.text ?? ""),
      ("WATCHER_RULE", rule),
    ]
  }
}
