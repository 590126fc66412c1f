// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherState
import WatcherSupport

/// A desktop notification to show: the notification the rule made, as the state keeps it (`content`, the
/// one shape from the rule to libnotify), with what only showing it needs wrapped around it.
@dynamicMemberLookup
public struct DesktopNotification: Sendable, Equatable {
  /// What the rule made: summary, body, urgency, expiry, icon, buttons, links, what it is about, the bubble
  /// it replaces.
  public var content: FeedState.PendingAction.Notification
  /// The item's link, opened with `xdg-open` when the notification is clicked (in `watcher run`).
  public var link: String?
  /// A picture to show with it (a local file: the item's image, downloaded), sent as the `image-path` hint.
  public var imagePath: String?
  /// The feed it is from (its "Snooze feed" button), with the item's key.
  public var feed: String?
  public var feedURL: String?
  public var key: String?
  /// The rule whose buttons it carries.
  public var rule: String?

  /// What it is about (the server's `category` hint: `hint`).
  public typealias Category = FeedState.PendingAction.Notification.Category

  /// Creates a notification.
  public init(
    summary: String, body: String, urgency: Urgency = .normal, expire: Int? = nil, icon: String? = nil,
    link: String? = nil
  ) {
    content = .init(summary: summary, body: body, urgency: urgency, expire: expire, icon: icon)
    self.link = link
  }

  /// The content's members read and written as the notification's own (`notification.summary`).
  public subscript<Value>(dynamicMember path: WritableKeyPath<NotificationContent, Value>) -> Value {
    get { content[keyPath: path] }
    set { content[keyPath: path] = newValue }
  }
}

extension DesktopNotification.Category {
  /// The `category` hint watcher sends for it.
  public var hint: String { "x-watcher." + rawValue }
}

extension DesktopNotification {
  /// The notification a pending action shows (its picture is added once downloaded): what the state kept,
  /// with the item's key, link and rule around it.
  public init(_ action: FeedState.PendingAction) {
    if case .notify(let content) = action.payload {
      self.content = content
    } else {
      content = .init(summary: "", body: "")
    }
    link = action.link
    key = action.key
    rule = action.source.ruleName
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
