// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherConfig
import WatcherFeed
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
    let all = [
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
      ("WATCHER_CONTENT", item.content ?? ""),
      ("WATCHER_RULE", rule),
    ]
    return all.map { ($0.0, clipped($0.1)) }
  }

  /// `value`, or its longest prefix of whole characters within `maxValueBytes`.
  package static func clipped(_ value: String) -> String {
    guard value.utf8.count > maxValueBytes else { return value }
    let bytes = Array(value.utf8)
    var end = maxValueBytes
    while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a character
    return String(decoding: bytes[..<end], as: UTF8.self)
  }
}
