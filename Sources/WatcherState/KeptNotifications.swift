// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A notification that could not be shown (no notification service), kept to show later.
public struct KeptNotification: Sendable, Equatable {
  /// The feed's name.
  public var feed: String
  /// The notification, as it was pending.
  public var action: FeedState.PendingAction
  /// Held until then (quiet hours); `nil`: shown as soon as the notification service can be reached.
  public var until: Date?

  /// Creates a kept notification.
  public init(feed: String, action: FeedState.PendingAction, until: Date? = nil) {
    self.feed = feed
    self.action = action
    self.until = until
  }

  /// The newest `keepMax` of `kept` that are younger than `keepFor` seconds, and how many were dropped.
  public static func prune(_ kept: [KeptNotification], keepFor: Int, keepMax: Int, now: Date) -> (
    kept: [KeptNotification], dropped: Int
  ) {
    let horizon = now.addingTimeInterval(-Double(keepFor))
    // A notification held for quiet hours is not given up on before it was due.
    let young = kept.filter { $0.action.created >= horizon || ($0.until.map { $0 > now } ?? false) }
    let result = Array(young.suffix(keepMax))
    return (result, kept.count - result.count)
  }
}

/// The kept notifications live in one file of the state directory, `notifications.json`, written like the
/// feeds' state (atomic and durable).
extension StateStore {
  private struct File: Decodable {
    package struct Entry: Decodable {
      package var feed: String
      package var action: FeedState.PendingAction
      package var until: Date?
    }
    package var notifications: [Entry]
  }

  /// The kept notifications' file.
  public var keptPath: String { directory + "/notifications.json" }

  /// The kept notifications, oldest first; none when the file is missing.
  ///
  /// A corrupt file is moved aside (unless `readOnly`) and counts as none; a file that cannot be read
  /// throws and is left alone.
  public func keptNotifications(readOnly: Bool = false) throws(StateError) -> [KeptNotification] {
    let data: Data
    switch ChunkedFile.readRegularFile(keptPath, maxBytes: Self.maxFileBytes, followSymlinks: false) {
    case .missing: return []
    case .failed(let reason): throw .unreadable(path: keptPath, reason: reason)
    case .read(let bytes): data = bytes
    }
    do {
      let file = try Self.decoder.decode(File.self, from: data)
      return file.notifications.map { KeptNotification(feed: $0.feed, action: $0.action, until: $0.until) }
    } catch {
      if !readOnly {
        _ = rename(keptPath, keptPath + ".corrupt-" + ISODate.format(Date()).replacingOccurrences(of: ":", with: ""))
      }
      return []
    }
  }

  /// Replaces the kept notifications (durably: the caller removes them from a feed's pending list next).
  public func saveKept(_ kept: [KeptNotification]) throws(StateError) {
    var json = PrettyJSON()
    json.object { json in
      json.member("version", 1)
      json.key("notifications")
      json.array { json in
        for notification in kept {
          json.element()
          json.object { json in
            json.key("action")
            notification.action.write(to: &json)
            json.member("feed", notification.feed)
            json.member("until", notification.until)
          }
        }
      }
    }
    try Self.writeAtomically(Data(json.document()), to: keptPath, directory: directory)
  }
}
