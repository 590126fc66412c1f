// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CNotify
import FoundationEssentials
import Glibc
import WatcherState
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
  private let clicks: (any NotificationClicks)?
  /// What the server said it can do, asked once (`GetCapabilities`).
  private let capabilities = Locked<Capabilities?>(nil)
  /// The bubbles a later notification replaces, when there is no `bubbles` file to keep them in.
  private let memory = Locked(BubbleRuns())
  /// Notifications with buttons not yet closed (the helper waits for them).
  private let live = Locked(0)

  /// Creates a notifier.
  ///
  /// `environment` is checked for a session bus before libnotify is asked. With `clicks` (the daemon, the
  /// helper of `watcher poll`), notifications carry buttons when the server has the `actions`
  /// capability, and a GLib main loop runs on a thread of its own to receive the clicks; each notification
  /// is released when closed.
  ///
  /// `bubbles` is a file that keeps, across processes, the server id of the last bubble of each
  /// `replaces` name (a digest, "While you were away", a run of critical items: `BubbleRuns`), so that the
  /// next one replaces it.
  public init(environment: [String: String], clicks: (any NotificationClicks)? = nil, bubbles: String? = nil) {
    self.environment = environment
    self.clicks = clicks
    self.bubbles = bubbles
  }

  private let bubbles: String?

  /// The bubbles kept, in `bubbles` or in memory, changed by `body` (and written back when it returns true).
  private func withBubbles<T>(_ body: (inout BubbleRuns) -> (T, changed: Bool)) -> T {
    guard let bubbles else {
      return memory.withLock { runs in body(&runs).0 }
    }
    var runs = BubbleRuns(contentsOf: FileManager.default.contents(atPath: bubbles))
    let (result, changed) = body(&runs)
    if changed {
      try? AtomicFile.write(runs.data, to: bubbles, directory: FilePath.directory(bubbles), mode: 0o600)
    }
    return result
  }

  /// Forgets a bubble that closed.
  fileprivate func closed(_ name: String) {
    withBubbles { runs in
      let known = runs.bubbles[name] != nil
      runs.closed(name)
      return ((), known)
    }
  }

  /// What a server can do, as watcher uses it.
  public struct Capabilities: Sendable, Equatable {
    /// `body-markup`: bodies are escaped markup; otherwise plain text is sent as it is.
    public var markup: Bool
    /// `actions`: buttons and the default click.
    public var actions: Bool
    /// The hint a picture goes in: `image-path` (spec 1.2), `image_path` before it.
    public var imageHint: String
    /// Whether the default action shows as a button of its own (xfce4-notifyd): then "Open" is that one.
    public var defaultIsButton: Bool

    public init(capabilities: [String], server: String, specVersion: String) {
      markup = capabilities.contains("body-markup")
      actions = capabilities.contains("actions")
      // Versions compare as numbers, part by part: "1.10" is after "1.2".
      let version = specVersion.split(separator: ".").map { Int($0) ?? 0 }
      imageHint = version.lexicographicallyPrecedes([1, 2]) ? "image_path" : "image-path"
      defaultIsButton = server.lowercased().contains("xfce")
    }
  }

  /// Why libnotify could not start: the library missing (install libnotify4), or its own failure.
  private static var startProblem: String {
    guard let problem = watcher_notify_problem() else { return "libnotify could not start" }
    return "libnotify could not be loaded (\(String(cString: problem))): install libnotify4"
  }

  private static let mainLoop: Bool = {
    Threads.spawn {
      let loop = g_main_loop_new(nil, 0)
      g_main_loop_run(loop)
    }
    return true
  }()

  /// The notifications with buttons still open.
  public var openWithButtons: Int { live.withLock { $0 } }

  /// The server's capabilities, asked once for this connection.
  public func serverCapabilities() -> Capabilities {
    if let known = capabilities.withLock({ $0 }) { return known }
    let info = try? serverInfo()
    let found = Capabilities(
      capabilities: info?.capabilities ?? [], server: info?.name ?? "", specVersion: info?.specVersion ?? "1.2")
    capabilities.withLock { $0 = found }
    return found
  }

  public func show(_ original: DesktopNotification) throws(ActionError) {
    if (environment["DBUS_SESSION_BUS_ADDRESS"] ?? "").isEmpty, environment["XDG_RUNTIME_DIR"] == nil {
      throw .notificationService(
        "DBUS_SESSION_BUS_ADDRESS is not set — start watcher from your desktop session or via the systemd user unit")
    }
    let started: String? = lock.withLock { initialized in
      if !initialized {
        guard notify_init("watcher") != 0 else { return Self.startProblem }
        initialized = true
      }
      return nil
    }
    if let started { throw .notificationService(started) }
    let caps = serverCapabilities()
    let now = WallClock.now()
    // One read of the kept bubbles: what to show, and the bubble it replaces.
    let (notification, entries, replaced) = withBubbles { runs in
      let (notification, entries) = runs.prepare(original, now: now)
      return ((notification, entries, notification.replaces.flatMap { runs.bubbles[$0]?.id }), false)
    }
    let failure: String? = lock.withLock { _ in
      // Markup only for a server that reads it; a plain-text server shows the text as it is.
      let body = caps.markup ? NotificationMarkup.escape(notification.body) : notification.body
      guard let handle = notify_notification_new(notification.summary, body, notification.icon) else {
        return "libnotify could not create a notification"
      }
      var keepUntilClosed = false
      defer { if !keepUntilClosed { g_object_unref(UnsafeMutableRawPointer(handle)) } }
      if let replaced { watcher_notification_set_id(handle, replaced) }
      let buttons =
        caps.actions && clicks != nil ? Self.buttons(notification, defaultIsButton: caps.defaultIsButton) : []
      if let clicks, !buttons.isEmpty {
        _ = Self.mainLoop
        for (id, label) in buttons {
          let box = Unmanaged.passRetained(ClickBox(id: id, notification: notification, clicks: clicks)).toOpaque()
          notify_notification_add_action(handle, id, label, clickAction, box, releaseClick)
        }
        live.withLock { $0 += 1 }
        let counter = Unmanaged.passRetained(ClosedBox(live: live, notifier: self, name: notification.replaces))
          .toOpaque()
        // Released when the server says the notification closed (clicked, expired or dismissed).
        g_signal_connect_data(
          UnsafeMutableRawPointer(handle), "closed", unsafeBitCast(notificationClosed, to: GCallback.self), counter,
          releaseClosed, GConnectFlags(rawValue: 0))
        keepUntilClosed = true
      }
      let urgency: NotifyUrgency =
        switch notification.urgency {
        case .low: NOTIFY_URGENCY_LOW
        case .normal: NOTIFY_URGENCY_NORMAL
        case .critical: NOTIFY_URGENCY_CRITICAL
        }
      notify_notification_set_urgency(handle, urgency)
      // A critical notification stays until it is dismissed.
      if notification.urgency == .critical {
        notify_notification_set_timeout(handle, NOTIFY_EXPIRES_NEVER)
      } else if let expire = notification.expire {
        notify_notification_set_timeout(handle, Int32(min(expire, 86_400) * 1_000))
      }
      notify_notification_set_app_name(handle, "watcher")
      notify_notification_set_hint_string(handle, "desktop-entry", "watcher")
      notify_notification_set_category(handle, notification.category.hint)
      if let image = notification.imagePath { notify_notification_set_hint_string(handle, caps.imageHint, image) }
      var error: UnsafeMutablePointer<GError>?
      if notify_notification_show(handle, &error) == 0 {
        let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
        if let error { g_error_free(error) }
        if keepUntilClosed { live.withLock { $0 -= 1 } }
        return message
      }
      if let name = notification.replaces {
        let id = watcher_notification_get_id(handle)
        withBubbles { runs in
          runs.shown(name, id: id, entries: entries, now: now)
          return ((), true)
        }
      }
      return nil
    }
    if let failure { throw .notificationService(Self.explain(failure)) }
  }

  /// The buttons a notification gets, as (action id, label): the default click and "Open" for a link,
  /// "Open all" for a digest's links, "Snooze feed" for an item of a feed, then the rule's own.
  static func buttons(_ notification: DesktopNotification, defaultIsButton: Bool) -> [(String, String)] {
    var buttons: [(String, String)] = []
    if let link = notification.link, LinkOpener.isWebLink(link) {
      // A server that shows the default action as a button (xfce4-notifyd) gets it once, as "Open".
      buttons.append(("default", "Open"))
      if !defaultIsButton { buttons.append(("open", "Open")) }
    }
    if notification.links.contains(where: LinkOpener.isWebLink) { buttons.append(("open-all", "Open all")) }
    if notification.feed != nil, notification.category == .item { buttons.append(("snooze", "Snooze feed")) }
    for label in notification.buttons.prefix(3) where notification.item != nil {
      buttons.append(("button:" + label, label))
    }
    if notification.learn, notification.item != nil, notification.category == .item {
      buttons += [("like", "👍"), ("dislike", "👎")]
    }
    return buttons
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
        guard notify_init("watcher") != 0 else { return Self.startProblem }
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

/// What one button of a notification does, owned by libnotify's action (released through `releaseClick`).
private final class ClickBox {
  let id: String
  let notification: DesktopNotification
  let clicks: any NotificationClicks
  init(id: String, notification: DesktopNotification, clicks: any NotificationClicks) {
    self.id = id
    self.notification = notification
    self.clicks = clicks
  }

  func clicked() {
    switch id {
    case "default", "open": clicks.open([notification.link].compactMap { $0 })
    case "open-all": clicks.open(notification.links)
    case "snooze": if let feed = notification.feed { clicks.snooze(feed: feed) }
    case "like", "dislike": clicks.label(up: id == "like", of: notification)
    default:
      if id.hasPrefix("button:") { clicks.press(String(id.dropFirst("button:".count)), of: notification) }
    }
  }
}

/// Counts a notification with buttons as closed, and forgets its bubble for replacing.
private final class ClosedBox {
  let live: Locked<Int>
  let notifier: LibnotifyNotifier
  let name: String?
  init(live: Locked<Int>, notifier: LibnotifyNotifier, name: String?) {
    self.live = live
    self.notifier = notifier
    self.name = name
  }
}

private let clickAction:
  @convention(c) (UnsafeMutablePointer<NotifyNotification>?, UnsafeMutablePointer<CChar>?, gpointer?) -> Void = {
    _, _, data in
    guard let data else { return }
    Unmanaged<ClickBox>.fromOpaque(data).takeUnretainedValue().clicked()
  }

private let releaseClick: @convention(c) (gpointer?) -> Void = { data in
  guard let data else { return }
  Unmanaged<ClickBox>.fromOpaque(data).release()
}

private let notificationClosed: @convention(c) (gpointer?, gpointer?) -> Void = { notification, data in
  if let data {
    let box = Unmanaged<ClosedBox>.fromOpaque(data).takeUnretainedValue()
    box.live.withLock { $0 -= 1 }
    if let name = box.name { box.notifier.closed(name) }
  }
  if let notification { g_object_unref(notification) }
}

private let releaseClosed: @convention(c) (gpointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
  guard let data else { return }
  Unmanaged<ClosedBox>.fromOpaque(data).release()
}
