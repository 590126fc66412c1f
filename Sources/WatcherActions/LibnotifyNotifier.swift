// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CNotify
import Foundation
import WatcherConfig
import WatcherSupport

/// Desktop notifications through libnotify (the only file that imports it).
///
/// Calls are serialized.
///
/// The corresponding C functions are `notify_init`, `notify_notification_new`,
/// `notify_notification_set_urgency`, `notify_notification_set_timeout`, `notify_notification_show` and
/// `g_object_unref`.
public final class LibnotifyNotifier: Notifier {
  private let lock = Locked(false)
  private let environment: [String: String]
  private let openLinks: Bool

  /// Creates a notifier.
  ///
  /// `environment` is checked for a session bus before libnotify is asked. With `openLinks` (the daemon), clicking a
  /// notification opens its item's link with `xdg-open`: a GLib main loop runs on a thread of its own to receive the
  /// click, and each notification is released when closed.
  public init(environment: [String: String], openLinks: Bool = false) {
    self.environment = environment
    self.openLinks = openLinks
  }

  private static let mainLoop: Bool = {
    let thread = Thread {
      let loop = g_main_loop_new(nil, 0)
      g_main_loop_run(loop)
    }
    thread.start()
    return true
  }()

  public func show(_ notification: DesktopNotification) throws(ActionError) {
    if (environment["DBUS_SESSION_BUS_ADDRESS"] ?? "").isEmpty, environment["XDG_RUNTIME_DIR"] == nil {
      throw .notificationService(
        "DBUS_SESSION_BUS_ADDRESS is not set — start watcher from your desktop session or via the systemd user unit")
    }
    let failure: String? = lock.withLock { initialized in
      if !initialized {
        guard notify_init("watcher") != 0 else { return "libnotify could not start" }
        initialized = true
      }
      guard
        let handle = notify_notification_new(
          notification.summary, NotificationMarkup.escape(notification.body), notification.icon)
      else { return "libnotify could not create a notification" }
      var keepUntilClosed = false
      defer { if !keepUntilClosed { g_object_unref(UnsafeMutableRawPointer(handle)) } }
      if openLinks, let link = notification.link, !link.isEmpty {
        _ = Self.mainLoop
        let box = Unmanaged.passRetained(LinkBox(link)).toOpaque()
        notify_notification_add_action(handle, "default", "Open", openAction, box, releaseLink)
        // Released when the server says the notification closed (clicked, expired or dismissed).
        g_signal_connect_data(
          UnsafeMutableRawPointer(handle), "closed", unsafeBitCast(notificationClosed, to: GCallback.self), nil, nil,
          GConnectFlags(rawValue: 0))
        keepUntilClosed = true
      }
      let urgency: NotifyUrgency =
        switch notification.urgency {
        case .low: NOTIFY_URGENCY_LOW
        case .normal: NOTIFY_URGENCY_NORMAL
        case .critical: NOTIFY_URGENCY_CRITICAL
        }
      notify_notification_set_urgency(handle, urgency)
      if let expire = notification.expire {
        notify_notification_set_timeout(handle, Int32(min(expire, 86_400) * 1_000))
      }
      notify_notification_set_app_name(handle, "watcher")
      if let image = notification.imagePath { notify_notification_set_hint_string(handle, "image-path", image) }
      var error: UnsafeMutablePointer<GError>?
      if notify_notification_show(handle, &error) == 0 {
        let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
        if let error { g_error_free(error) }
        return message
      }
      return nil
    }
    if let failure { throw .notificationService(Self.explain(failure)) }
  }

  /// The notification server on the session bus: its name, vendor, version, spec version and capabilities.
  public struct ServerInfo: Sendable, Equatable {
    public var name: String
    public var vendor: String
    public var version: String
    public var specVersion: String
    public var capabilities: [String]
  }

  /// Asks the session bus for the notification server (`GetServerInformation`, `GetCapabilities`), or says
  /// why there is none: no session bus, or no server on it.
  public func serverInfo() throws(ActionError) -> ServerInfo {
    if let problem = Self.sessionBusProblem(environment) { throw .notificationService(problem) }
    let failure: String? = lock.withLock { initialized in
      if !initialized {
        guard notify_init("watcher") != 0 else { return "libnotify could not start" }
        initialized = true
      }
      return nil
    }
    if let failure { throw .notificationService(failure) }
    var name: UnsafeMutablePointer<CChar>?
    var vendor: UnsafeMutablePointer<CChar>?
    var version: UnsafeMutablePointer<CChar>?
    var spec: UnsafeMutablePointer<CChar>?
    let found = lock.withLock { _ in notify_get_server_info(&name, &vendor, &version, &spec) != 0 }
    func take(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
      defer { g_free(pointer) }
      return pointer.map { String(cString: $0) } ?? ""
    }
    let info = (take(name), take(vendor), take(version), take(spec))
    guard found else {
      throw .notificationService(
        "no notification server answers on the session bus (org.freedesktop.Notifications) — install and start "
          + "one, such as dunst, mako or your desktop's")
    }
    var capabilities: [String] = []
    let list = lock.withLock { _ in notify_get_server_caps() }
    var node = list
    while let current = node {
      if let data = current.pointee.data {
        capabilities.append(String(cString: data.assumingMemoryBound(to: CChar.self)))
      }
      node = current.pointee.next
    }
    g_list_free_full(list, g_free)
    return ServerInfo(
      name: info.0, vendor: info.1, version: info.2, specVersion: info.3, capabilities: capabilities.sorted())
  }

  /// Why there is no session bus to talk to, or nil when there seems to be one.
  static func sessionBusProblem(_ environment: [String: String]) -> String? {
    if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return nil }
    if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
      var info = stat()
      if stat(runtime + "/bus", &info) == 0 { return nil }
    }
    return "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist — "
      + "start watcher from your desktop session or via the systemd user unit"
  }

  /// libnotify's message, with the fix when it is a missing bus or server.
  package static func explain(_ message: String) -> String {
    if message.contains("autolaunch") || message.contains("dbus-launch") || message.contains("Could not connect") {
      return "\(message) — start watcher from your desktop session or via the systemd user unit"
    }
    if message.contains("ServiceUnknown") || message.contains("org.freedesktop.Notifications") {
      return "\(message) — no notification daemon is running (install and start one, such as dunst or your desktop's)"
    }
    return message
  }
}

/// The link a notification opens, owned by libnotify's action (released through `releaseLink`).
private final class LinkBox {
  package let link: String
  package init(_ link: String) { self.link = link }
}

private let openAction:
  @convention(c) (UnsafeMutablePointer<NotifyNotification>?, UnsafeMutablePointer<CChar>?, gpointer?) -> Void = {
    _, _, data in
    guard let data else { return }
    LinkOpener.open(Unmanaged<LinkBox>.fromOpaque(data).takeUnretainedValue().link)
  }

private let releaseLink: @convention(c) (gpointer?) -> Void = { data in
  guard let data else { return }
  Unmanaged<LinkBox>.fromOpaque(data).release()
}

private let notificationClosed: @convention(c) (gpointer?, gpointer?) -> Void = { notification, _ in
  if let notification { g_object_unref(notification) }
}
