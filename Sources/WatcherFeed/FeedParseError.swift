// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport

/// Why a document could not be read as a feed at all. (Recoverable problems are `FeedWarning`s.)
public enum FeedParseError: Error, Sendable, Equatable {
  /// The input was empty or only whitespace.
  case empty
  /// The input is larger than the configured cap, in bytes.
  case tooLarge(limit: Int)
  /// The content is not a feed; the payload says what was found instead (for example "an HTML page").
  case notAFeed(found: String)
  /// The content looks like JSON but could not be read; the payload is the JSON reader's message.
  case invalidJSON(String)
}

extension FeedParseError: CustomStringConvertible {
  /// A one-line description, without the file name (the caller adds it).
  public var description: String {
    switch self {
    case .empty: return "not a feed: the document is empty"
    case .tooLarge(let limit): return "the document is larger than the \(ByteCount.format(limit)) limit"
    case .notAFeed(let found): return "not a feed: found \(found)"
    case .invalidJSON(let message): return "not a feed: invalid JSON: \(message)"
    }
  }
}
