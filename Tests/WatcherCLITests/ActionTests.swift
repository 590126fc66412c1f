// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport
import WatcherTestSupport

/// Hooks and the no-D-Bus path, with the built binary and real `/bin/sh` hooks.
@Suite("Actions, end to end", .serialized)
struct ActionTests {
  static func feedFile(in dir: TemporaryDirectory, titles: [String]) throws -> String {
    var xml = "<rss version=\"2.0\"><channel><title>F</title>"
    for (index, title) in titles.enumerated() {
      let escaped = title.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      xml += "<item><title>\(escaped)</title><guid>g\(index)</guid><link>https://example.org/\(index)</link></item>"
    }
    let path = dir.url.appendingPathComponent("feed.xml").path
    try (xml + "</channel></rss>").write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  static func watcher(_ arguments: [String], environment: [String: String]) throws -> (Int32, String) {
    let result = try ChildProcess.run(try #require(BinaryTests.binary), arguments, environment: environment)
    // What the command printed: its results (stdout) and its diagnostics (stderr).
    return (result.status, result.output + result.errors)
  }

  /// The environment with no way to reach a session bus.
  static var noBus: [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["DBUS_SESSION_BUS_ADDRESS"] = nil
    environment["XDG_RUNTIME_DIR"] = nil
    environment["DISPLAY"] = nil
    return environment
  }

  @Test("notify-test without a session bus says so and how to fix it, exit 1")
  func notifyTestNoBus() throws {
    let (code, errors) = try Self.watcher(["notify-test"], environment: Self.noBus)
    #expect(code == 1)
    #expect(
      errors.contains("no session bus: DBUS_SESSION_BUS_ADDRESS is not set") && errors.contains("systemd user unit"))
  }

  @Test("status says a notification is held for quiet hours until they end, not that the service is away")
  func statusHeld() throws {
    let dir = try TemporaryDirectory()
    let feed = try Self.feedFile(in: dir, titles: ["One", "Two"])
    let config = dir.url.appendingPathComponent("rules.yaml").path
    // Quiet all day (a range to noon and one from noon past midnight), so the test holds at any hour.
    try """
    settings: { first_poll: all, max_age: none, notify: { quiet: ["00:00-12:00", "12:00-00:00"] } }
    feeds:
      - { url: \(feed), name: f, notify: true }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    let poll = try Self.watcher(["poll", "--config", config, "--state-dir", state], environment: Self.noBus)
    #expect(poll.0 == 0 && poll.1.contains("2 notifications held for quiet hours"), "\(poll.1)")
    #expect(!poll.1.contains("notified"), "\(poll.1)")
    let status = try ChildProcess.run(
      try #require(BinaryTests.binary), ["status", "--config", config, "--state-dir", state], environment: Self.noBus)
    let text = status.output + status.errors
    #expect(text.contains("2 notifications are held for quiet hours until "), "\(text)")
    #expect(!text.contains("until the notification service can be reached"), "\(text)")
    // pending lists them naming their feed once ("f: One", not "f: f: One").
    let pending = try ChildProcess.run(
      try #require(BinaryTests.binary), ["pending", "--config", config, "--state-dir", state], environment: Self.noBus)
    #expect(pending.output.contains("\n  f: One\n") && !pending.output.contains("f: f:"), "\(pending.output)")
  }

  @Test("no session bus: one clear warning, exit 0, the notifications kept, items recorded, hooks ran with their data")
  func noBusHooksRun() throws {
    let dir = try TemporaryDirectory()
    let hostile = "$(touch \(dir.url.path)/pwned) `id` ; reboot"
    let feed = try Self.feedFile(in: dir, titles: [hostile, "Second <b>item</b> & more"])
    let out = dir.url.appendingPathComponent("hook-out").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: \(feed), name: f, tags: [t] }
    rules:
      - name: everything
        match: { title: '' }
        notify: true
        hook: 'printf "%s|%s|%s|%s\\n" "$WATCHER_TITLE" "$WATCHER_FEED" "$WATCHER_RULE" "$WATCHER_TAGS" >> \(out); cat > "\(out).$WATCHER_ID.json"'
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    let (code, errors) = try Self.watcher(["poll", "--config", config, "--state-dir", state], environment: Self.noBus)
    // Nothing failed: the notifications are kept for when the desktop is there, and the poll says so.
    #expect(code == 0, "\(errors)")
    #expect(errors.contains("2 new: 2 to notify, kept (no session bus), 2 hooks"), "\(errors)")
    #expect(!errors.contains("notified") && !errors.contains("failed"), "\(errors)")
    // status counts no failure for a feed that fetched fine; it tells of the kept notifications apart.
    let status = try ChildProcess.run(
      try #require(BinaryTests.binary), ["status", "--config", config, "--state-dir", state], environment: Self.noBus)
    let row = try #require(status.output.split(separator: "\n").first { $0.hasPrefix("f ") })
    let columns = row.split(separator: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    #expect(columns.count >= 7 && columns[5] == "0", "FAIL: \(status.output)")
    #expect(
      (status.output + status.errors).contains(
        "2 notifications are kept until the notification service can be reached"),
      "\(status.output)\(status.errors)")
    let busErrors = errors.components(separatedBy: "\n").filter {
      $0.contains("cannot reach the desktop notification service")
    }
    #expect(busErrors.count == 1, "\(errors)")
    #expect(busErrors.first?.contains("DBUS_SESSION_BUS_ADDRESS is not set") == true)
    #expect(busErrors.first?.contains("systemd user unit") == true)
    // Hooks run two at a time, so their order varies. (The RSS title's markup is HTML, read as text.)
    let lines = Set(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(String.init))
    #expect(lines == ["\(hostile)|f|everything|t", "Second item & more|f|everything|t"])
    #expect(!FileManager.default.fileExists(atPath: dir.url.path + "/pwned"))
    let stdin = try Data(contentsOf: URL(fileURLWithPath: out + ".g0.json"))
    let first = try #require(try JSONSerialization.jsonObject(with: stdin) as? [String: Any])
    #expect(first["title"] as? String == hostile)
    #expect(first["feed"] as? String == "f" && first["rule"] as? String == "everything")
    #expect(first["tags"] as? [String] == ["t"] && first["link"] as? String == "https://example.org/0")
    // Items were recorded: a second poll finds nothing new and runs nothing.
    let (_, again) = try Self.watcher(
      ["poll", "--config", config, "--state-dir", state, "--feed", "f"], environment: Self.noBus)
    #expect(again.contains("0 new"))
    #expect(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count == 2)
  }

  @Test(
    "a failing hook is retried spaced in time (1 min, doubling), not on every poll, and given up only after hook_retries attempts and a day; status, pending and the journal say so"
  )
  func retriesThenDrops() throws {
    let dir = try TemporaryDirectory()
    let feed = try Self.feedFile(in: dir, titles: ["one"])
    let count = dir.url.appendingPathComponent("count").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none, hook_retries: 3 }
    feeds:
      - { url: \(feed), name: f }
    rules:
      - { name: flaky, match: { title: one }, hook: 'echo run >> \(count); echo "no network" >&2; exit 7' }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    func runs() -> Int { ((try? String(contentsOfFile: count, encoding: .utf8)) ?? "").split(separator: "\n").count }
    // The clock moves (injected): polls 10 s apart do not retry; each wait doubles from a minute.
    func poll(at offset: Int) throws -> (Int32, String) {
      var environment = Self.noBus
      environment["WATCHER_CLOCK_OFFSET"] = "\(offset)"
      return try Self.watcher(
        ["poll", "--config", config, "--state-dir", state, "--feed", "f"], environment: environment)
    }
    let (first, errors) = try poll(at: 0)
    #expect(
      first == 1 && errors.contains("exit 7") && errors.contains("no network") && errors.contains("will retry at"))
    for offset in [10, 20, 30, 45] { _ = try poll(at: offset) }
    #expect(runs() == 1, "retried before its minute was up")
    _ = try poll(at: 61)
    #expect(runs() == 2)
    _ = try poll(at: 61 + 100)
    #expect(runs() == 2, "the second wait is two minutes")
    _ = try poll(at: 61 + 121)
    #expect(runs() == 3)
    // hook_retries attempts are done, but not the day: it is kept (the waits go on doubling).
    var environment = Self.noBus
    environment["WATCHER_CLOCK_OFFSET"] = "200"
    let pending = try ChildProcess.run(
      try #require(BinaryTests.binary), ["pending", "--config", config, "--state-dir", state], environment: environment)
    #expect(pending.output.contains("hook    3         in 3 min"), "\(pending.output)")
    let (_, late) = try poll(at: 86_400 + 300)
    #expect(runs() == 4)
    #expect(late.contains("gave up on hook of rule 'flaky' for \"one\" after 4 attempts over 24 h"), "\(late)")
    _ = try poll(at: 2 * 86_400)
    #expect(runs() == 4, "a hook given up runs no more")
    let (_, status) = try Self.watcher(
      ["status", "--config", config, "--state-dir", state, "--json"], environment: Self.noBus)
    #expect(status.contains("gave up on") && status.contains("exit 7; stderr: no network"))
    let data = Data(
      try ChildProcess.run(
        try #require(BinaryTests.binary), ["status", "--config", config, "--state-dir", state, "--json"]
      ).output.utf8)
    let doc = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let feeds = try #require(doc["feeds"] as? [[String: Any]])
    #expect(feeds[0]["pending_actions"] as? Int == 0)
    #expect(feeds[0]["dropped_actions"] as? Int == 1)
  }

  @Test("a digest at 08:00 is due at 08:00 of the TZ the binary runs in, on the day clocks change too")
  func localTime() throws {
    let dir = try TemporaryDirectory()
    let feed = try Self.feedFile(in: dir, titles: ["one"])
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: \(feed), name: f }
    rules:
      - { name: morning, match: { title: one }, digest: { every: 1d, at: "08:00" } }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    // Now is 00:30 in Berlin on 29 March 2026, when clocks go from 02:00 to 03:00 (CET to CEST), and
    // 00:30 in New York the same night (EDT already).
    for (zone, now, due) in [
      ("Europe/Berlin", "2026-03-28T23:30:00Z", "2026-03-29T06:00:00Z"),
      ("America/New_York", "2026-03-29T04:30:00Z", "2026-03-29T12:00:00Z"),
      ("UTC", "2026-03-29T00:30:00Z", "2026-03-29T08:00:00Z"),
    ] {
      let state = dir.url.appendingPathComponent("state-\(zone.replacingOccurrences(of: "/", with: "-"))").path
      var environment = Self.noBus
      environment["TZ"] = zone
      let offset = try #require(DateParser.parse(now)).timeIntervalSinceNow
      environment["WATCHER_CLOCK_OFFSET"] = "\(Int(offset.rounded()))"
      _ = try Self.watcher(["poll", "--config", config, "--state-dir", state], environment: environment)
      let pending = try ChildProcess.run(
        try #require(BinaryTests.binary), ["pending", "--json", "--config", config, "--state-dir", state],
        environment: environment)
      #expect(pending.output.contains("\"due\":\"\(due)\""), "\(zone): \(pending.output)")
      // Text shows it as every command shows a time: local, to the minute (JSON keeps UTC).
      let text = try ChildProcess.run(
        try #require(BinaryTests.binary), ["pending", "--config", config, "--state-dir", state],
        environment: environment)
      #expect(text.output.contains("goes out at 2026-03-29 08:00"), "\(zone): \(text.output)")
    }
  }
}
