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

  /// A browser for `dir/bin`: records in `dir/opened` each link it is asked to open.
  static func browser(in dir: String) throws {
    try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
    try "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(dir)/opened'\n".write(
      toFile: dir + "/bin/xdg-open", atomically: true, encoding: .utf8)
    chmod(dir + "/bin/xdg-open", 0o755)
  }

  /// Runs the fixture `scenario` in notify-click.sh's session on `server`, with the binary as WATCHER and
  /// `dir` as DIR.
  static func session(
    _ server: String, _ scenario: String, dir: String, extra: [String: String] = [:], timeout: Int = 60
  ) throws -> HookResult {
    var environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
    environment["WATCHER"] = try #require(BinaryTests.binary).path
    environment["DIR"] = dir
    let script = Fixtures.url("notify-click.sh", target: "WatcherCLITests").path
    let path = Fixtures.url(scenario, target: "WatcherCLITests").path
    // The user's home as the session finds it: the servers leave nothing in it (no ~/.config/xfce4, no
    // ~/.cache/dconf, no AT-SPI sockets).
    let home = try TemporaryDirectory()
    environment["HOME"] = home.url.path
    let result = HookRunner.run(
      command: "/bin/bash '\(script)' '\(server)' '\(path)'", environment: environment, input: Data(),
      timeout: timeout)
    let left = try FileManager.default.contentsOfDirectory(atPath: home.url.path)
    #expect(left.isEmpty, "\(server) left \(left) in the user's home")
    return result
  }

  @Test(
    "Open, Snooze feed and a rule's button work on every server, from the daemon and after the poll exited",
    .enabled(if: available || NotificationTests.inCI, "the notification servers are not installed (CI installs them)"),
    arguments: servers, ["poll", "run"])
  func clicks(server: String, mode: String) throws {
    #expect(Self.available, "CI must have \(Self.tools.joined(separator: ", ")) and python3-pyatspi")
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    try Self.browser(in: path)
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
    let result = try Self.session(server, "click-scenario.sh", dir: path, extra: ["MODE": mode], timeout: 90)
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

  @Test(
    "👍 and 👎 on an item's notification label it for the learner, on every server, after the poll exited",
    .enabled(if: available || NotificationTests.inCI, "the notification servers are not installed (CI installs them)"),
    arguments: servers)
  func labels(server: String) throws {
    #expect(Self.available, "CI must have \(Self.tools.joined(separator: ", ")) and python3-pyatspi")
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    try Self.browser(in: path)
    let items = ["one", "two", "three"].enumerated().map { index, word in
      "<item><title>Hello \(word)</title><guid>h\(index)</guid><category>c\(index)</category>"
        + "<description>About \(word).</description></item>"
    }.joined()
    try "<rss version=\"2.0\"><channel><title>t</title>\(items)</channel></rss>".write(
      toFile: path + "/feed.xml", atomically: true, encoding: .utf8)
    try """
    settings: { first_poll: all, max_age: none, notify: { expire: 60s, learn: true } }
    feeds:
      - { url: \(path)/feed.xml, name: t }
    rules:
      - { name: all, match: { title: '' }, notify: true }
    """.write(toFile: path + "/rules.yaml", atomically: true, encoding: .utf8)
    let result = try Self.session(server, "learn-scenario.sh", dir: path, timeout: 90)
    #expect(result.succeeded, "\(result)")
    func read(_ name: String) -> String { (try? String(contentsOfFile: path + "/" + name, encoding: .utf8)) ?? "" }
    let labels = read("state/labels.json")
    // Each label with what the item said, for the learner.
    #expect(
      labels.contains("\"key\": \"h0\"") && labels.contains("\"title\": \"Hello one\"")
        && labels.contains("\"text\": \"About one.\"") && labels.contains("\"c0\""),
      "\(read("result")) \(read("poll.log")) \(labels)")
    #expect(labels.contains("\"key\": \"h1\"") && labels.contains("\"up\": false"), "\(labels)")
  }

  @Test(
    "each server gets what it can show: markup or plain, buttons, the picture, desktop-entry and category hints",
    .enabled(if: available || NotificationTests.inCI, "the notification servers are not installed (CI installs them)"),
    arguments: servers)
  func hints(serverName: String) throws {
    // A PNG of one pixel, served with the feed that names it as the item's picture.
    let png = Data(
      base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAgH/eL9GtQAAAABJRU5ErkJggg==")!
    let server = try LoopbackHTTPServer { request in
      request.path == "/p.png"
        ? .init(status: 200, headers: [("Content-Type", "image/png")], body: png)
        : .ok(
          "<rss version=\"2.0\"><channel><title>t</title><item><title>A &amp;amp; B</title><guid>a</guid>"
            + "<link>http://example.org/a</link><description>x &amp;lt; y</description>"
            + "<enclosure url=\"/p.png\" type=\"image/png\" length=\"70\"/></item></channel></rss>")
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: "\(server.url("/feed"))", name: t }
    rules:
      - { name: all, match: { title: '' }, notify: { body: "{text}", urgency: critical } }
    """.write(toFile: path + "/rules.yaml", atomically: true, encoding: .utf8)
    let result = try Self.session(
      serverName, "hints-scenario.sh", dir: path, extra: ["XDG_CACHE_HOME": path + "/cache"])
    #expect(result.succeeded, "\(result)")
    let calls = (try? String(contentsOfFile: path + "/calls.txt", encoding: .utf8)) ?? ""
    let item = try #require(calls.components(separatedBy: "member=Notify").dropFirst().first, "\(calls)")
    #expect(item.contains("string \"t: A & B\""), "\(item)")
    // Every server here reads markup (dunst as notify-click.sh sets it up): the body is escaped.
    #expect(item.contains("string \"x &lt; y\""), "\(item)")
    for hint in ["desktop-entry", "category", "image-path", "urgency"] {
      #expect(item.contains("string \"\(hint)\""), "\(hint)")
    }
    #expect(item.contains("variant             string \"watcher\""))
    #expect(item.contains("variant             string \"x-watcher.item\""))
    // Buttons: the default click and Open (xfce4-notifyd shows the default as the Open button), Snooze feed.
    #expect(item.contains("string \"default\"") && item.contains("string \"snooze\""), "\(item)")
    #expect(item.contains("string \"open\"") == (serverName != "xfce4-notifyd"), "\(item)")
    // Critical: never expires.
    #expect(item.contains("int32 0\n"), "\(item)")
    let test = (try? String(contentsOfFile: path + "/notify-test.txt", encoding: .utf8)) ?? ""
    #expect(test.contains("sends: markup, buttons, pictures as image-path"), "\(test)")
  }

  @Test(
    "a digest replaces its previous bubble instead of stacking, from one poll to the next, and opens all its items",
    .enabled(if: available || NotificationTests.inCI, "the notification servers are not installed (CI installs them)"))
  func digestReplaces() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    try Self.browser(in: path)
    try """
    settings: { first_poll: all, max_age: none, notify: { expire: 60s } }
    feeds:
      - { url: \(path)/feed.xml, name: t }
    rules:
      - { name: d, match: { title: '' }, digest: { every: 1s } }
    """.write(toFile: path + "/rules.yaml", atomically: true, encoding: .utf8)
    let result = try Self.session("dunst", "digest-scenario.sh", dir: path)
    #expect(result.succeeded, "\(result)")
    func read(_ name: String) -> String { (try? String(contentsOfFile: path + "/" + name, encoding: .utf8)) ?? "" }
    #expect(
      read("count1") == "1\n" && read("count2") == "1\n", "\(read("count1")) \(read("count2")) \(read("poll.log"))")
    #expect(read("opened") == "http://example.org/two\n", "\(read("opened"))")
  }
}
