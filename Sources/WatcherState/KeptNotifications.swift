// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
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

  /// The newest `keepMax` of `kept` that are younger than `keepFor` seconds, and those dropped.
  public static func prune(_ kept: [KeptNotification], keepFor: Int, keepMax: Int, now: Date) -> (
    kept: [KeptNotification], dropped: [KeptNotification]
  ) {
    let horizon = now.addingTimeInterval(-Double(keepFor))
    // A notification held for quiet hours is not given up on before it was due.
    let young = kept.indices.filter { kept[$0].action.created >= horizon || (kept[$0].until.map { $0 > now } ?? false) }
    let staying = Set(young.suffix(keepMax))
    guard staying.count < kept.count else { return (kept, []) }
    var result: ([KeptNotification], [KeptNotification]) = ([], [])
    for index in kept.indices {
      if staying.contains(index) { result.0.append(kept[index]) } else { result.1.append(kept[index]) }
    }
    return result
  }
}

/// The kept notifications live in one file of the state directory, `notifications.json`, written like the
/// feeds' state (atomic and durable).
extension StateStore {
  /// The kept notifications' file.
  public var keptPath: String { directory + "/notifications.json" }

  /// The kept notifications, oldest first; none when the file is missing.
  ///
  /// A corrupt file is moved aside (unless `readOnly`) and counts as none; a file that cannot be read
  /// throws and is left alone.
  public func keptNotifications(readOnly: Bool = false) throws(StateError) -> [KeptNotification] {
    try readShared(keptPath, readOnly: readOnly) { json in try KeptNotification.file(reading: &json) } ?? []
  }

  /// Replaces the kept notifications (durably: the caller removes them from a feed's pending list next),
  /// within `budget.sharedFile` bytes: returns the oldest, dropped to fit (none, unless items are huge or
  /// `keep_max` is).
  @discardableResult
  public func saveKept(_ kept: [KeptNotification]) throws(StateError) -> [KeptNotification] {
    var (document, sizes) = KeptNotification.document(kept)
    let over = ByteBudget.fairOverflow(
      sizes: sizes, owners: kept.map(\.feed), total: document.count, budget: budget.sharedFile)
    if !over.isEmpty {
      document = KeptNotification.document(kept.indices.filter { !over.contains($0) }.map { kept[$0] }).bytes
    }
    try Self.writeAtomically(Data(document), to: keptPath, directory: directory)
    return over.sorted().map { kept[$0] }
  }
}

extension KeptNotification {
  /// `notifications.json`'s text for `kept`, and the bytes each entry takes in it.
  package static func document(_ kept: [KeptNotification]) -> (bytes: [UInt8], sizes: [Int]) {
    var json = PrettyJSON()
    var sizes: [Int] = []
    sizes.reserveCapacity(kept.count)
    json.object { json in
      json.member("version", 1)
      json.key("notifications")
      json.array { json in
        for notification in kept {
          let start = json.count
          json.element()
          json.object { json in
            json.key("action")
            notification.action.write(to: &json)
            json.member("feed", notification.feed)
            json.member("until", notification.until)
          }
          sizes.append(json.count - start)
        }
      }
    }
    return (json.document(), sizes)
  }
}
extension KeptNotification {
  /// Reads `notifications.json` (`{"version": 1, "notifications": [{"action": …, "feed": …, "until": …}]}`)
  /// with the state files' own reader; an entry must have its action and feed.
  package static func file(reading json: inout JSONReader) throws -> [KeptNotification] {
    var kept: [KeptNotification] = []
    var found = false
    try json.object { json, key in
      guard key == "notifications" else { return try json.skipValue() }
      found = true
      try json.array { json in
        var (action, feed, until): (FeedState.PendingAction?, String?, Date?) = (nil, nil, nil)
        try json.object { json, key in
          switch key {
          case "action": action = try FeedState.PendingAction(reading: &json)
          case "feed": feed = try json.string()
          case "until": until = try json.optional { try $0.date() }
          default: try json.skipValue()
          }
        }
        guard let action, let feed else { throw json.failure("a kept notification needs 'action' and 'feed'") }
        kept.append(KeptNotification(feed: feed, action: action, until: until))
      }
    }
    guard found else { throw json.failure("the file has no 'notifications'") }
    return kept
  }
}
