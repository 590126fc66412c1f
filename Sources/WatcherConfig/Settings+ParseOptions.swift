// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherFeed

extension FeedParser {
  /// The options a poll uses for one feed: the config's size and item limits.
  public static func options(_ settings: Settings, documentURL: String? = nil, charset: String? = nil) -> Options {
    Options(
      maxBytes: settings.maxBytes, maxItems: settings.maxItems, documentURL: documentURL, charset: charset)
  }
}
