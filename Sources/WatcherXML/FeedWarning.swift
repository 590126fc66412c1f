// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport

/// A problem the parser recovered from, with its place in the document when known.
public struct FeedWarning: Sendable, Equatable, CustomStringConvertible {
  /// 1-based line, or 0 when the problem has no position (JSON Feed, encoding).
  public var line: Int
  /// 1-based column, or 0 when unknown.
  public var column: Int
  /// What was wrong and what the parser did about it (as one printable line: it may quote the feed).
  public var message: String

  /// Creates a warning.
  public init(line: Int = 0, column: Int = 0, message: String) {
    self.line = line
    self.column = column
    self.message = Printable.line(message)
  }

  /// `LINE:COL: message`, or just the message when there is no position.
  public var description: String {
    line > 0 ? "\(line):\(column): \(message)" : message
  }
}
