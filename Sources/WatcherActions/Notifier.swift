// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherState
import WatcherSupport

/// A desktop notification to show.
public struct DesktopNotification: Sendable, Equatable {
  /// The summary line (plain text, per the Desktop Notifications spec).
  public var summary: String
  /// The body (plain text; the notifier escapes it for the server's markup).
  public var body: String
  /// Urgency.
  public var urgency: Urgency
  /// How long it stays, seconds (`nil`: the server's default).
  public var expire: Int?
  /// Icon name or path.
  public var icon: String?
  /// The item's link, opened with `xdg-open` when the notification is clicked (in `watcher run`).
  public var link: String?
  /// A picture to show with it (a local file: the item's image, downloaded), sent as the `image-path` hint.
  public var imagePath: String?
  /// What it is about, for the server's rules and grouping (the `category` hint).
  public var category: Category = .item
  /// The feed it is from (its "Snooze feed" button), with the item's key.
  public var feed: String?
  public var feedURL: String?
  public var key: String?
  /// The rule whose buttons it carries, their labels, and the item's document for their hooks.
  public var rule: String?
  public var buttons: [String] = []
  public var item: String?
  /// What "Open all" opens (a digest's links).
  public var links: [String] = []
  /// Whether it carries 👍 and 👎 buttons that label its item for the learner.
  public var learn = false
  /// A name for what it stands in for ("digest:NAME", "away"): a later notification with the same name
  /// replaces its bubble (`replaces_id`) instead of stacking another.
  public var replaces: String?

  /// The `category` hint values watcher sends.
  public enum Category: String, Sendable, Equatable {
    case item = "x-watcher.item"
    case digest = "x-watcher.digest"
    case health = "x-watcher.health"

    /// The hint for what a kept notification is about.
    public init(_ stored: FeedState.PendingAction.Notification.Category) {
      switch stored {
      case .item: self = .item
      case .digest: self = .digest
      case .health: self = .health
      }
    }
  }

  /// Creates a notification.
  public init(
    summary: String, body: String, urgency: Urgency = .normal, expire: Int? = nil, icon: String? = nil,
    link: String? = nil
  ) {
    self.summary = summary
    self.body = body
    self.urgency = urgency
    self.expire = expire
    self.icon = icon
    self.link = link
  }
}

extension DesktopNotification {
  /// The notification a pending action shows (its picture is added once downloaded): the one conversion
  /// from what the state keeps to what the notifier takes.
  public init(_ action: FeedState.PendingAction) {
    let notification = action.notification ?? .init(summary: "", body: "")
    self.init(
      summary: notification.summary, body: notification.body, urgency: notification.urgency,
      expire: notification.expire, icon: notification.icon, link: action.link)
    key = action.key
    category = Category(notification.category)
    rule = action.source.ruleName
    buttons = notification.buttons
    item = notification.item
    links = notification.links
    learn = notification.learn
    if let name = notification.replaces { replaces = name }
  }
}

/// Why an action could not be carried out.
public enum ActionError: Error, Sendable, Equatable {
  /// The desktop notification service cannot be reached; the payload says why and how to fix it.
  case notificationService(String)
}

extension ActionError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .notificationService(let reason): return "cannot reach the desktop notification service: \(reason)"
    }
  }
}

/// Shows desktop notifications: `LibnotifyNotifier` in production, a recording fake in tests.
public protocol Notifier: Sendable {
  /// Shows one notification, or throws why it could not.
  func show(_ notification: DesktopNotification) throws(ActionError)
}

/// What a click on a notification does, where the notifier that showed it lives (the daemon, or the helper
/// that holds an exited poll's notifications).
public protocol NotificationClicks: Sendable {
  /// "Open" or the notification itself: its link; "Open all": a digest's links.
  func open(_ links: [String])
  /// "Snooze feed".
  func snooze(feed: String)
  /// One of the rule's own buttons: its hook for the item, with a hook's guarantees.
  func press(_ button: String, of notification: DesktopNotification)
  /// 👍 (`up`) or 👎: the item labelled for the learner.
  func label(up: Bool, of notification: DesktopNotification)
}

/// Text for the body of a notification: the server interprets a small HTML-like markup in bodies, so `&`,
/// `<` and `>` are escaped and a title such as `<b>x</b>` shows literally.
public enum NotificationMarkup {
  /// `text` with markup characters escaped.
  public static func escape(_ text: String) -> String { MarkupText.escape(text) }
}

extension DesktopNotification: Codable {}
extension DesktopNotification.Category: Codable {}
