// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherConfig
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

/// Text for the body of a notification: the server interprets a small HTML-like markup in bodies, so `&`,
/// `<` and `>` are escaped and a title such as `<b>x</b>` shows literally.
public enum NotificationMarkup {
  /// `text` with markup characters escaped.
  public static func escape(_ text: String) -> String { MarkupText.escape(text) }
}
