// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherActions
import WatcherSupport
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
    "one notification per item with rendered summary, body and urgency; a batch is one summary; markup if read",
    .enabled(if: available || inCI, "Xvfb, dbus-run-session and dunst are not installed (CI installs them)"),
    arguments: [false, true])
  func realServer(markup: Bool) throws {
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
        match: { title: unicode }
        notify: { summary: "{feed}: {title}", body: "{title} / {text}", urgency: critical }
      - name: calm
        feeds: [a]
        match: { title: plain }
        notify: { summary: "{feed}: {title}", body: "{title} / {text}" }
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
    var environment = ProcessInfo.processInfo.environment
    environment["MARKUP"] = markup ? "full" : "no"
    let result = HookRunner.run(command: "/bin/bash " + quoted, environment: environment, input: Data(), timeout: 60)
    let errors = result.stderrTail
    #expect(result.succeeded, "\(result)")
    #expect(try String(contentsOfFile: history + ".status", encoding: .utf8) == "0\n", "watcher poll failed: \(errors)")
    let shown = try Self.history(history)
    #expect(shown.count == 3, "\(shown)")
    // The summary is plain text, sent as is; the body is escaped for a server that reads markup (dunst's
    // history keeps what it was sent), and sent as it is to one that shows plain text.
    let body = markup ? "AT&amp;T &lt;3 Unicode é / Text 0" : "AT&T <3 Unicode é / Text 0"
    #expect(shown.contains { $0 == ("a: AT&T <3 Unicode é", body, "CRITICAL") }, "\(shown)")
    #expect(shown.contains { $0 == ("a: Plain", "Plain / Text 1", "NORMAL") })
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
    let json = dir.url.appendingPathComponent("out.json").path
    let command = "'\(binary.path)' notify-test > '\(output)' 2>&1 && '\(binary.path)' notify-test --json > '\(json)'"
    let result = HookRunner.run(
      command: "/bin/bash '\(script)' '\(history)' -- sh -c \"\(command)\"",
      environment: ProcessInfo.processInfo.environment, input: Data(), timeout: 60)
    #expect(result.succeeded, "\(result)")
    let out = try String(contentsOfFile: output, encoding: .utf8)
    #expect(try String(contentsOfFile: history + ".status", encoding: .utf8) == "0\n", "\(out)")
    #expect(out.hasPrefix("notification server: dunst "), "\(out)")
    #expect(out.contains("capabilities: actions, body") && out.contains("shown: \"watcher: test notification\""))
    let shown = try Self.history(history)
    // Both runs showed it (the server's history may keep one of two identical ones).
    #expect(!shown.isEmpty && shown.allSatisfy { $0.0 == "watcher: test notification" }, "\(shown)")
    // The same, as JSON.
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
    #expect((report["server"] as? [String: Any])?["name"] as? String == "dunst", "\(report)")
    #expect(report["version"] as? Int == 1 && report["buttons"] as? Bool == true)

    // A session bus with no notification server on it: said so, exit 1.
    let empty = HookRunner.run(
      command: "env -u DISPLAY dbus-run-session -- '\(binary.path)' notify-test > '\(output)' 2>&1",
      environment: ProcessInfo.processInfo.environment, input: Data(), timeout: 60)
    #expect(empty.exitStatus == 1)
    #expect(try String(contentsOfFile: output, encoding: .utf8).contains("no notification server answers"))
  }

  /// A 16×16 red PNG.
  static let png: Data = {
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
      let body = Array(type.utf8) + data
      var crc: UInt32 = 0xFFFF_FFFF
      for byte in body {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
      }
      func be(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
      return be(UInt32(data.count)) + body + be(~crc)
    }
    // Stored (uncompressed) deflate blocks: zlib header, one final block per image, adler32.
    let raw = [UInt8]((0..<16).flatMap { _ in [0] + (0..<16).flatMap { _ in [UInt8(255), 0, 0] } })
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in raw {
      a = (a + UInt32(byte)) % 65_521
      b = (b + a) % 65_521
    }
    let length = UInt16(raw.count)
    let deflate: [UInt8] =
      [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)] + raw
      + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: (b << 16 | a) >> $0) }
    let header: [UInt8] = [0, 0, 0, 16, 0, 0, 0, 16, 8, 2, 0, 0, 0]
    return Data(
      [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", deflate)
        + chunk("IEND", []))
  }()

  @Test(
    "an item's picture is in its notification; broken, huge and never-ending images only leave it out",
    .enabled(if: available || inCI, "Xvfb, dbus-run-session and dunst are not installed (CI installs them)"))
  func pictures() throws {
    let dir = try TemporaryDirectory()
    // The feed is served beside its pictures: a feed's pictures on this machine come only from its own origin.
    let document = Locked("")
    let server = try LoopbackHTTPServer { request in
      switch request.path {
      case "/f.xml": return .ok(document.withLock { $0 })
      case "/good.png", "/posts/inline.png":
        return .init(status: 200, headers: [("Content-Type", "image/png")], body: Self.png)
      case "/broken.png":
        return .init(status: 200, headers: [("Content-Type", "image/png")], body: Data("not a png".utf8))
      case "/huge.png": return .init(status: 200, body: Self.png + Data(count: 3 << 20))
      case "/slow.png": return .init(status: 200, body: Self.png + Data(count: 100_000), trickle: 10, trickleDelay: 1)
      default: return .init(status: 404)
      }
    }
    defer { server.stop() }
    func item(_ title: String, image: String?, html: String? = nil) -> String {
      "<item><title>\(title)</title><guid>\(title)</guid><link>\(server.url("/posts/\(title)"))</link>"
        + (image.map { "<enclosure url=\"\(server.url($0))\" type=\"image/png\" length=\"1\"/>" } ?? "")
        + (html.map { "<description><![CDATA[\($0)]]></description>" } ?? "") + "</item>"
    }
    let feed = server.url("/f.xml")
    document.withLock {
      $0 =
        "<rss version=\"2.0\"><channel><title>p</title>" + item("Good", image: "/good.png")
        + item("Broken", image: "/broken.png") + item("Huge", image: "/huge.png") + item("Slow", image: "/slow.png")
        + item("Inline", image: nil, html: "<p>text <img src=\"inline.png\"> more</p>") + "</channel></rss>"
    }
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none, notify: { expire: 60s } }
    feeds:
      - { url: \(feed), name: p, notify: true }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    let cache = dir.url.appendingPathComponent("cache").path
    let history = dir.url.appendingPathComponent("history.json").path
    let script = Fixtures.url("notify-e2e.sh", target: "WatcherCLITests").path
    let quoted = [
      script, history, "--", "env", "XDG_CACHE_HOME=\(cache)", binary.path, "poll", "--config", config, "--state-dir",
      dir.url.appendingPathComponent("state").path,
    ].map { "'\($0)'" }.joined(separator: " ")
    let started = Date()
    let result = HookRunner.run(
      command: "/bin/bash " + quoted, environment: ProcessInfo.processInfo.environment, input: Data(), timeout: 60)
    #expect(result.succeeded, "\(result)")
    #expect(Date().timeIntervalSince(started) < 30, "a slow image held the notifications up")
    #expect(try String(contentsOfFile: history + ".status", encoding: .utf8) == "0\n")
    let data = try Data(contentsOf: URL(fileURLWithPath: history))
    let doc = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let entries = try #require((doc["data"] as? [[[String: Any]]])?.first)
    var icons: [String: String] = [:]
    for entry in entries {
      let summary = ((entry["summary"] as? [String: Any])?["data"] as? String) ?? ""
      icons[summary] = ((entry["icon_path"] as? [String: Any])?["data"] as? String) ?? ""
    }
    #expect(icons.count == 5, "every notification went out: \(icons)")
    let images = cache + "/watcher/images/"
    #expect(icons["p: Good"]?.hasPrefix(images) == true, "\(icons)")
    #expect(icons["p: Inline"]?.hasPrefix(images) == true, "the first <img> of the HTML, resolved: \(icons)")
    for name in ["p: Broken", "p: Huge", "p: Slow"] {
      #expect(icons[name]?.hasPrefix(images) == false, "\(name): \(icons)")
    }
    // Cached: one file per good image, the PNG itself.
    let files = try FileManager.default.contentsOfDirectory(atPath: images)
    #expect(files.count == 2 && FileManager.default.contents(atPath: images + files[0]) == Self.png)
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
    #expect(first.status == 0, "kept for later is not a failure")
    #expect(first.output.contains("3 notifications are kept"), "\(first.output)")
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

  @Test(
    "critical items of one rule make one bubble while it is open, not a pile; once it is closed, a new one",
    .enabled(if: available || inCI, "Xvfb, dbus-run-session and dunst are not installed (CI installs them)"))
  func criticalRun() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    func write(_ count: Int) throws {
      var xml = "<rss version=\"2.0\"><channel><title>s</title>"
      for index in 1...count {
        xml += "<item><title>CVE \(index)</title><guid>s\(index)</guid><link>https://example.org/\(index)</link></item>"
      }
      try (xml + "</channel></rss>").write(toFile: "\(path)/s.xml", atomically: true, encoding: .utf8)
    }
    try write(1)
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: \(path)/s.xml, name: s }
    rules:
      - { name: security, match: { title: cve }, notify: { summary: "{title}", body: "{feed}", urgency: critical } }
    """.write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    // Each poll half an hour after the one before (the feed is due again), the clock injected.
    func poll(_ step: Int) -> String {
      "WATCHER_CLOCK_OFFSET=\(step * 1_800) '\(binary.path)' poll --config '\(path)/rules.yaml' --state-dir '\(path)/state'"
    }
    // Three polls, an item each, while the bubble stays open; then it is dismissed, and a fourth comes.
    let feed = "\(path)/s.xml"
    try """
    set -e
    \(poll(0))
    sed -i 's|</channel>|<item><title>CVE 2</title><guid>s2</guid><link>https://example.org/2</link></item></channel>|' '\(feed)'
    \(poll(1))
    sed -i 's|</channel>|<item><title>CVE 3</title><guid>s3</guid><link>https://example.org/3</link></item></channel>|' '\(feed)'
    \(poll(2))
    test "$(dunstctl count displayed)" = 1
    dunstctl close-all
    for i in $(seq 50); do grep -q critical '\(path)/state/bubbles.json' || break; sleep 0.1; done
    sed -i 's|</channel>|<item><title>CVE 4</title><guid>s4</guid><link>https://example.org/4</link></item></channel>|' '\(feed)'
    \(poll(3))
    """.write(toFile: "\(path)/polls.sh", atomically: true, encoding: .utf8)
    let history = "\(path)/history.json"
    let script = Fixtures.url("notify-e2e.sh", target: "WatcherCLITests").path
    let result = HookRunner.run(
      command: "/bin/bash '\(script)' '\(history)' -- /bin/bash '\(path)/polls.sh'",
      environment: ProcessInfo.processInfo.environment, input: Data(), timeout: 60)
    #expect(result.succeeded, "\(result)")
    #expect(try String(contentsOfFile: history + ".status", encoding: .utf8) == "0\n", "\(result.stderrTail)")
    let shown = try Self.history(history)
    #expect(shown.map(\.0) == ["CVE 3 (and 2 more)", "CVE 4"], "\(shown)")
    #expect(shown.first?.1 == "s\n\nEarlier:\n• CVE 2\n• CVE 1", "\(shown)")
    #expect(shown.allSatisfy { $0.2 == "CRITICAL" })
  }
}
