// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherActions
import WatcherTestSupport

/// Real clicks on real notification servers (dunst, xfce4-notifyd, notification-daemon under Xvfb on a
/// private bus): "Open" opens the link, "Snooze feed" snoozes it, a rule's button runs its hook, from the
/// daemon and from a `watcher poll` that has exited.
@Suite("Clicks on notifications, on three real servers", .serialized)
struct NotificationClickTests {
  static let servers = ["dunst", "xfce4-notifyd", "notification-daemon"]
  static let tools = [
    "/usr/bin/Xvfb", "/usr/bin/dunst", "/usr/bin/xdotool", "/usr/lib/notification-daemon/notification-daemon",
    "/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd",
  ]
  static var available: Bool {
    tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
      && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/pyatspi")
  }

  @Test(
    "Open, Snooze feed and a rule's button work on every server, from the daemon and after the poll exited",
    .enabled(if: available || NotificationTests.inCI, "the notification servers are not installed (CI installs them)"),
    arguments: servers, ["poll", "run"])
  func clicks(server: String, mode: String) throws {
    #expect(Self.available, "CI must have \(Self.tools.joined(separator: ", ")) and python3-pyatspi")
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    try FileManager.default.createDirectory(atPath: path + "/bin", withIntermediateDirectories: true)
    // The browser: records the link it is asked to open.
    try "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(path)/opened'\n".write(
      toFile: path + "/bin/xdg-open", atomically: true, encoding: .utf8)
    chmod(path + "/bin/xdg-open", 0o755)
    let items = ["one", "two", "three"].enumerated().map { index, word in
      "<item><title>Hello \(word)</title><guid>h\(index)</guid><link>http://example.org/\(word)</link></item>"
    }.joined()
    try "<rss version=\"2.0\"><channel><title>t</title>\(items)</channel></rss>".write(
      toFile: path + "/feed.xml", atomically: true, encoding: .utf8)
    try """
    settings: { first_poll: all, max_age: none, notify: { expire: 60s, snooze: 2h } }
    feeds:
      - { url: \(path)/feed.xml, name: t }
    rules:
      - name: all
        match: { title: '' }
        notify: true
        buttons: [{ label: Archive, hook: 'printf "%s\\n" "$WATCHER_LINK" >> \(path)/archived' }]
    """.write(toFile: path + "/rules.yaml", atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    var environment = ProcessInfo.processInfo.environment
    environment["WATCHER"] = binary.path
    environment["DIR"] = path
    environment["MODE"] = mode
    let script = Fixtures.url("notify-click.sh", target: "WatcherCLITests").path
    let scenario = Fixtures.url("click-scenario.sh", target: "WatcherCLITests").path
    let result = HookRunner.run(
      command: "/bin/bash '\(script)' '\(server)' '\(scenario)'", environment: environment, input: Data(), timeout: 90)
    #expect(result.succeeded, "\(result)")
    func read(_ name: String) -> String { (try? String(contentsOfFile: path + "/" + name, encoding: .utf8)) ?? "" }
    let log = read(mode == "run" ? "daemon.log" : "poll.log")
    #expect(read("opened") == "http://example.org/one\n", "Open: \(read("result")) \(log)")
    #expect(read("archived") == "http://example.org/two\n", "Archive: \(read("result")) \(log)")
    let snoozed = read("state/snoozed.json")
    #expect(snoozed.contains("\"t\""), "Snooze feed: \(read("result"))")
    if mode == "poll" { #expect(read("result").contains("helper"), "no helper held the poll's notifications") }
    // The button's hook ran as a hook does: journaled with its rule and button.
    let journal = read("state/journal.jsonl")
    #expect(
      journal.contains("\"key\":\"h1\",\"rule\":\"all (button 'Archive')\",\"action\":\"hook\",\"outcome\":\"ok\""),
      "\(journal)")
  }
}
