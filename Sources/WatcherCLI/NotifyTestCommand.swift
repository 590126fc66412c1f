// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
import WatcherSupport

/// `watcher notify-test`: shows one notification, or explains why it cannot.
struct NotifyTestCommand: Command {
  let name = "notify-test"
  let summary = "show one notification; explain what is wrong when it cannot (session bus, server, capabilities)"
  let positionals = Positionals.none()
  let options: [OptionSpec] = []

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let notifier = LibnotifyNotifier(environment: terminal.environment)
    let server: LibnotifyNotifier.ServerInfo
    do {
      server = try notifier.serverInfo()
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    terminal.print(
      "notification server: \(server.name) \(server.version) (\(server.vendor)), specification \(server.specVersion)")
    terminal.print("capabilities: \(server.capabilities.joined(separator: ", "))")
    // What watcher sends it, as its capabilities decide.
    let caps = LibnotifyNotifier.Capabilities(
      capabilities: server.capabilities, server: server.name, specVersion: server.specVersion)
    terminal.print(
      "sends: \(caps.markup ? "markup" : "plain text"), \(caps.actions ? "buttons" : "no buttons"), "
        + "pictures as \(caps.imageHint)")
    do {
      try notifier.show(
        DesktopNotification(
          summary: "watcher: test notification",
          body: "If you can read this, watcher's notifications work.", urgency: .normal, expire: 10,
          icon: NotifySettings.defaultIcon))
    } catch {
      terminal.error("error: the server is there but did not take the notification: \(error)")
      return .failure
    }
    terminal.print("shown: \"watcher: test notification\"")
    if !server.capabilities.contains("body") {
      terminal.print("note: this server shows summaries only: notification bodies (the item's text) are not shown")
    }
    if !server.capabilities.contains("actions") {
      terminal.print(
        "note: this server has no actions: notifications carry no buttons, and clicking one does not open its item's link"
      )
    }
    return .success
  }
}
