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
  let options = [
    Options.json.described("print the server, what watcher sends it and the outcome as JSON (docs/json.md)")
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let json = arguments.has(Options.json)
    let notifier = LibnotifyNotifier(environment: terminal.environment)
    let server: LibnotifyNotifier.ServerInfo
    do {
      server = try notifier.serverInfo()
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    // What watcher sends it, as its capabilities decide.
    let caps = LibnotifyNotifier.Capabilities(
      capabilities: server.capabilities, server: server.name, specVersion: server.specVersion)
    var notes: [String] = []
    if !server.capabilities.contains("body") {
      notes.append("this server shows summaries only: notification bodies (the item's text) are not shown")
    }
    if !server.capabilities.contains("actions") {
      notes.append(
        "this server has no actions: notifications carry no buttons, and clicking one does not open its item's link")
    }
    if !json {
      terminal.print(
        "notification server: \(server.name) \(server.version) (\(server.vendor)), specification \(server.specVersion)")
      terminal.print("capabilities: \(server.capabilities.joined(separator: ", "))")
      terminal.print(
        "sends: \(caps.markup ? "markup" : "plain text"), \(caps.actions ? "buttons" : "no buttons"), "
          + "pictures as \(caps.imageHint)")
    }
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
    if json {
      terminal.print(
        JSONOutput.document([
          (
            "server",
            .object([
              ("name", .string(server.name)), ("version", .string(server.version)), ("vendor", .string(server.vendor)),
              ("spec_version", .string(server.specVersion)),
              ("capabilities", .array(server.capabilities.map { .string($0) })),
            ])
          ),
          ("markup", .bool(caps.markup)), ("buttons", .bool(caps.actions)), ("pictures", .string("\(caps.imageHint)")),
          ("shown", .string("watcher: test notification")), ("notes", .array(notes.map { .string($0) })),
        ]).text)
      return .success
    }
    terminal.print("shown: \"watcher: test notification\"")
    for note in notes { terminal.print("note: " + note) }
    return .success
  }
}
