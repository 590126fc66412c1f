// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherActions
import WatcherTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `watcher poll` against a real notification server: Xvfb + a private session bus + dunst, checked through `dunstctl history` (docs/design.md, "Platform notes").
///
/// CI installs the tools and never skips these.
@Suite("Notifications on a real server", .serialized)
struct NotificationTests {
  static let tools = ["Xvfb", "dbus-run-session", "dunst", "dunstctl", "gdbus"]
  static var available: Bool {
    tools.allSatisfy { tool in
      (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
      }
    }
  }
  static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

  /// The notifications dunst received: (summary, body, urgency), in the order shown.
  static func history(_ path: String) throws -> [(String, String, String)] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let doc = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let groups = try #require(doc["data"] as? [[[String: Any]]])
    func value(_ entry: [String: Any], _ key: String) -> String {
      ((entry[key] as? [String: Any])?["data"] as? String) ?? ""
    }
    // The urgency is the first field of "message" (the script gives each urgency its own format).
    return (groups.first ?? []).map {
      (value($0, "summary"), value($0, "body"), String(value($0, "message").prefix { $0 != "|" }))
    }.reversed()
  }

  @Test(
    "one notification per item with rendered summary, escaped body and urgency; a batch becomes one summary",
    .enabled(if: available || inCI, "Xvfb, dbus-run-session and dunst are not installed (CI installs them)"))
  func realServer() throws {
    #expect(Self.available, "CI must have \(Self.tools.joined(separator: ", "))")
    let dir = try TemporaryDirectory()
    func feed(_ name: String, _ titles: [String]) throws -> String {
      var xml = "<rss version=\"2.0\"><channel><title>\(name)</title>"
      for (index, title) in titles.enumerated() {
        xml +=
          "<item><title>\(title)</title><guid>\(name)\(index)</guid><description>Text \(index)</description></item>"
      }
      let path = dir.url.appendingPathComponent("\(name).xml").path
      try (xml + "</channel></rss>").write(toFile: path, atomically: true, encoding: .utf8)
      return path
    }
    let a = try feed("a", ["AT&amp;T &lt;3 Unicode é", "Plain"])
    let b = try feed("b", (1...7).map { "Batch \($0)" })
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none, notify: { max_per_poll: 5, expire: 60s } }
    feeds:
      - { url: \(a), name: a }
      - { url: \(b), name: b, notify: true }
    rules:
      - name: loud
        feeds: [a]
        match: { title: '' }
        notify: { summary: "{feed}: {title}", body: "{title} / {text}", urgency: critical }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    let history = dir.url.appendingPathComponent("history.json").path
    let script = Fixtures.url("notify-e2e.sh", target: "WatcherCLITests").path
    // Started through HookRunner: Foundation's Process would pass on the test runner's blocked signals, and
    // then Xvfb, dunst and the bus could not be stopped (docs/design.md, "Platform notes").
    let quoted = [
      script, history, "--", binary.path, "poll", "--config", config, "--state-dir",
      dir.url.appendingPathComponent("state").path,
    ].map { "'\($0)'" }.joined(separator: " ")
    let result = HookRunner.run(
      command: "/bin/bash " + quoted, environment: ProcessInfo.processInfo.environment, input: Data(), timeout: 60)
    let errors = result.stderrTail
    #expect(result.succeeded, "\(result)")
    #expect(try String(contentsOfFile: history + ".status", encoding: .utf8) == "0\n", "watcher poll failed: \(errors)")
    let shown = try Self.history(history)
    #expect(shown.count == 3, "\(shown)")
    // The summary is plain text, sent as is; the body is escaped for the server's markup.
    #expect(shown.contains { $0 == ("a: AT&T <3 Unicode é", "AT&amp;T &lt;3 Unicode é / Text 0", "CRITICAL") })
    #expect(shown.contains { $0 == ("a: Plain", "Plain / Text 1", "CRITICAL") })
    #expect(shown.contains { $0.0 == "7 new items in b: Batch 1, Batch 2, Batch 3, …" && $0.2 == "NORMAL" })
  }

  @Test(
    "notify-test shows one notification on the real server and names the server and its capabilities",
    .enabled(if: available || inCI, "Xvfb, dbus-run-session and dunst are not installed (CI installs them)"))
  func notifyTest() throws {
    let dir = try TemporaryDirectory()
    let binary = try #require(BinaryTests.binary)
    let history = dir.url.appendingPathComponent("history.json").path
    let output = dir.url.appendingPathComponent("out.txt").path
    let script = Fixtures.url("notify-e2e.sh", target: "WatcherCLITests").path
    let command = "'\(binary.path)' notify-test > '\(output)' 2>&1"
    let result = HookRunner.run(
      command: "/bin/bash '\(script)' '\(history)' -- sh -c \"\(command)\"",
      environment: ProcessInfo.processInfo.environment, input: Data(), timeout: 60)
    #expect(result.succeeded, "\(result)")
    let out = try String(contentsOfFile: output, encoding: .utf8)
    #expect(try String(contentsOfFile: history + ".status", encoding: .utf8) == "0\n", "\(out)")
    #expect(out.hasPrefix("notification server: dunst "), "\(out)")
    #expect(out.contains("capabilities: actions, body") && out.contains("shown: \"watcher: test notification\""))
    let shown = try Self.history(history)
    #expect(shown.map(\.0) == ["watcher: test notification"], "\(shown)")

    // A session bus with no notification server on it: said so, exit 1.
    let empty = HookRunner.run(
      command: "env -u DISPLAY dbus-run-session -- '\(binary.path)' notify-test > '\(output)' 2>&1",
      environment: ProcessInfo.processInfo.environment, input: Data(), timeout: 60)
    #expect(empty.exitStatus == 1)
    #expect(try String(contentsOfFile: output, encoding: .utf8).contains("no notification server answers"))
  }

  @Test(
    "in watcher run, clicking a notification opens the item's link with xdg-open",
    .enabled(if: available || inCI, "Xvfb, dbus-run-session and dunst are not installed (CI installs them)"))
  func clickOpensLink() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    let bin = dir.url.appendingPathComponent("bin")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    // A stand-in browser that records what it was asked to open.
    try "#!/bin/sh\necho \"$@\" > \(path)/clicked\n".write(
      toFile: bin.appendingPathComponent("xdg-open").path, atomically: true, encoding: .utf8)
    chmod(bin.appendingPathComponent("xdg-open").path, 0o755)
    try """
    <rss version="2.0"><channel><title>c</title><item><title>Click me</title><guid>c0</guid>
    <link>https://example.org/clicked?a=1&amp;b=$(id)</link></item></channel></rss>
    """.write(toFile: "\(path)/c.xml", atomically: true, encoding: .utf8)
    try """
    settings: { first_poll: all, max_age: none, notify: { expire: 60s } }
    feeds:
      - { url: \(path)/c.xml, name: c }
    rules:
      - { match: { title: '' }, notify: true }
    """.write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    try """
    PATH=\(bin.path):$PATH '\(binary.path)' run --config \(path)/rules.yaml --state-dir \(path)/state 2>\(path)/run.log &
    W=$!
    for i in $(seq 100); do [ "$(dunstctl count displayed)" -gt 0 ] && break; sleep 0.1; done
    dunstctl action 0
    for i in $(seq 50); do [ -s \(path)/clicked ] && break; sleep 0.1; done
    kill -TERM $W; wait $W
    """.write(toFile: "\(path)/click.sh", atomically: true, encoding: .utf8)
    let script = Fixtures.url("notify-e2e.sh", target: "WatcherCLITests").path
    let result = HookRunner.run(
      command: "/bin/bash '\(script)' '\(path)/history.json' -- /bin/bash '\(path)/click.sh'",
      environment: ProcessInfo.processInfo.environment, input: Data(), timeout: 60)
    #expect(result.succeeded, "\(result)")
    #expect(
      try String(contentsOfFile: "\(path)/clicked", encoding: .utf8) == "https://example.org/clicked?a=1&b=$(id)\n")
  }

  @Test(
    "notifications that cannot be shown are kept and shown as one summary when the service is back",
    .enabled(if: available || inCI, "Xvfb, dbus-run-session and dunst are not installed (CI installs them)"))
  func keptUntilServiceIsBack() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    var xml = "<rss version=\"2.0\"><channel><title>k</title>"
    for index in 0..<3 { xml += "<item><title>Kept \(index)</title><guid>k\(index)</guid></item>" }
    try (xml + "</channel></rss>").write(toFile: "\(path)/k.xml", atomically: true, encoding: .utf8)
    try """
    settings: { first_poll: all, max_age: none, notify: { expire: 60s } }
    feeds:
      - { url: \(path)/k.xml, name: k }
    rules:
      - { name: all, match: { title: kept }, notify: { summary: "{title}", urgency: critical } }
    """.write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    let arguments = ["--config", "\(path)/rules.yaml", "--state-dir", "\(path)/state"]
    var away = ProcessInfo.processInfo.environment
    away["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(path)/no-bus"
    away["DISPLAY"] = nil
    let first = try ChildProcess.run(binary, ["poll"] + arguments, environment: away)
    #expect(first.status == 1)
    #expect(first.errors.contains("3 notifications are kept"), "\(first.errors)")
    let status = try ChildProcess.run(binary, ["status"] + arguments, environment: away)
    #expect(status.errors.contains("3 notifications are kept"), "\(status.errors)")

    let history = "\(path)/history.json"
    let script = Fixtures.url("notify-e2e.sh", target: "WatcherCLITests").path
    let quoted = ([script, history, "--", binary.path, "poll"] + arguments).map { "'\($0)'" }.joined(separator: " ")
    let result = HookRunner.run(
      command: "/bin/bash " + quoted, environment: ProcessInfo.processInfo.environment, input: Data(), timeout: 60)
    #expect(result.succeeded, "\(result)")
    #expect(try String(contentsOfFile: history + ".status", encoding: .utf8) == "0\n", "\(result.stderrTail)")
    let shown = try Self.history(history)
    #expect(shown.count == 1, "\(shown)")
    #expect(shown.first?.0 == "While you were away: 3 notifications")
    #expect(shown.first?.1 == "k: Kept 0\nk: Kept 1\nk: Kept 2")
    #expect(shown.first?.2 == "CRITICAL")
    let after = try ChildProcess.run(binary, ["status"] + arguments, environment: away)
    #expect(!after.errors.contains("kept"), "\(after.errors)")
  }
}
