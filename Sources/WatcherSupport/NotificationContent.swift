// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A desktop notification as a rule renders it and the state keeps it until shown: the one shape from the
/// rule (`Decision.Notification` wraps it with its rule) through the state (`FeedState.PendingAction`) to
/// libnotify (`DesktopNotification` wraps it with what only showing needs).
public struct NotificationContent: Sendable, Equatable {
  public var summary: String
  public var body: String
  public var urgency: Urgency
  /// Expire time, seconds (`nil`: the server's default).
  public var expire: Int?
  public var icon: String?
  /// The picture: the item's image (or the first image of its HTML), an http(s) URL.
  public var image: String?
  /// The labels of the rule's own buttons (`buttons:`), each running its hook for the item when clicked.
  public var buttons: [String] = []
  /// The item's document, for the hooks of those buttons (nil without buttons).
  public var item: String?
  /// What "Open all" of a digest opens (its items' links, at most 20).
  public var links: [String] = []
  /// Whether it carries 👍 and 👎 buttons that label the item (`settings.notify.learn`; `item` is then set).
  public var learn = false
  /// The bubble it replaces when still open (`story:N`: its story's, updated in place; `digest:RULE`: the
  /// digest's last one); nil for its own.
  public var replaces: String?
  /// What it is about: an item, a digest, the health of a feed (the server's `category` hint, and what
  /// buttons it gets).
  public var category: Category = .item

  /// What a notification is about.
  public enum Category: String, Sendable {
    case item, digest, health
  }

  public init(
    summary: String, body: String, urgency: Urgency = .normal, expire: Int? = nil, icon: String? = nil,
    image: String? = nil
  ) {
    self.summary = summary
    self.body = body
    self.urgency = urgency
    self.expire = expire
    self.icon = icon
    self.image = image
  }
}

// The notification as a poll hands it to the helper that shows it (`NotifyHelper`): same build on both ends.
extension NotificationContent: Codable {}
extension NotificationContent.Category: Codable {}
