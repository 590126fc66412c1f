// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherXML

/// What the parser returns: the feed, and every problem it recovered from.
public struct ParsedFeed: Sendable, Equatable {
  /// The normalized feed.
  public var feed: Feed
  /// Problems that did not stop parsing (malformed XML, unparseable dates, truncated fields), in order.
  public var warnings: [FeedWarning]
  /// For a page read as a feed: the CSS selector of its list's rows, remembered so that the next read
  /// takes the same list.
  public var pageSelector: String?

  /// Creates a result.
  public init(feed: Feed, warnings: [FeedWarning] = []) {
    self.feed = feed
    self.warnings = warnings
  }
}
