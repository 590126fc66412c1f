// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport
import WatcherTestSupport

/// Findings of a hostile review, each through the built binary (SECURITY.md lists them).
@Suite("Hostile review")
struct HostileReviewTests {
  /// An RSS feed of `titles`, each item with its own guid and link.
  static func rss(_ titles: [String]) -> String {
    "<rss version=\"2.0\"><channel><title>F</title>"
      + titles.map { "<item><title>\($0)</title><guid>g-\($0)</guid><link>https://example.org/\($0)</link></item>" }
      .joined() + "</channel></rss>"
  }

  @Test("a clock that was a year ahead and is set right: feeds, host holds and snoozes are not a year away")
  func clockSetRight() throws {
    let dir = try TemporaryDirectory()
    let items = Locked(["one"])
    let busy = Locked(false)
    let server = try LoopbackHTTPServer { _ in
      busy.withLock { $0 }
        ? .init(status: 429, headers: [("Retry-After", "3600")], body: Data())
        : .ok(Self.rss(items.withLock { $0 }))
    }
    defer { server.stop() }
    let out = dir.url.appendingPathComponent("out").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none, interval: 1h }
    feeds:
      - { url: "\(server.url("/feed"))", name: f }
    rules:
      - { name: all, match: { title: '' }, hook: 'printf "%s\\n" "$WATCHER_TITLE" >> \(out)' }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    func watcher(_ arguments: [String], offset: Int) throws -> String {
      var environment = ActionTests.noBus
      environment["WATCHER_CLOCK_OFFSET"] = "\(offset)"
      return try ActionTests.watcher(arguments + ["--config", config, "--state-dir", state], environment: environment)
        .1
    }
    let year = 365 * 86_400
    _ = try watcher(["poll"], offset: year)
    _ = try watcher(["snooze", "f", "1h"], offset: year)
    busy.withLock { $0 = true }
    _ = try watcher(["poll", "--force"], offset: year + 60)
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "one\n")
    // The clock is right again: the feed is due, its host is not held for a year, the snooze is an hour.
    busy.withLock { $0 = false }
    items.withLock { $0.append("two") }
    let status = try watcher(["status"], offset: 0)
    #expect(status.contains("due") && status.contains("recorded in the future (the clock was ahead)"), "\(status)")
    let polled = try watcher(["poll"], offset: 0)
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "one\ntwo\n", "\(polled)")
    #expect(try watcher(["status"], offset: 0).contains("is snoozed until"))
    #expect(!(try watcher(["status"], offset: 3_700).contains("is snoozed until")))
  }
}

extension HostileReviewTests {
  @Test(
    "a feed that publishes another feed's next link first (another title, a tracking parameter) cancels none of its actions"
  )
  func oneFeedCannotCancelAnother() throws {
    let dir = try TemporaryDirectory()
    func write(_ name: String, _ items: [(title: String, link: String)]) throws -> String {
      let path = dir.url.appendingPathComponent(name + ".xml").path
      try
        ("<rss version=\"2.0\"><channel><title>\(name)</title>"
        + items.map { "<item><title>\($0.title)</title><guid>\(name)-\($0.link)</guid><link>\($0.link)</link></item>" }
        .joined() + "</channel></rss>").write(toFile: path, atomically: true, encoding: .utf8)
      return path
    }
    let planet = try write("planet", [("Totally other words", "https://example.org/adv/7?utm_source=planet")])
    let vendor = try write("vendor", [("Advisory 6", "https://example.org/adv/6")])
    let out = dir.url.appendingPathComponent("out").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: \(planet), name: planet }
      - { url: \(vendor), name: vendor }
    rules:
      - { name: any, match: { title: '' }, hook: 'printf "%s %s\\n" "$WATCHER_FEED" "$WATCHER_TITLE" >> \(out)' }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    let arguments = ["poll", "--all", "--config", config, "--state-dir", state]
    _ = try ActionTests.watcher(arguments, environment: ActionTests.noBus)
    _ = try write("vendor", [("Advisory 6", "https://example.org/adv/6"), ("Advisory 7", "https://example.org/adv/7")])
    let (_, output) = try ActionTests.watcher(arguments, environment: ActionTests.noBus)
    let ran = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
    #expect(ran.contains("vendor Advisory 7"), "\(ran)\n\(output)")
    // The same post (same link and title) reported by two feeds still runs the rule's hook once.
    _ = try write(
      "planet",
      [
        ("Totally other words", "https://example.org/adv/7?utm_source=planet"),
        ("Advisory 8", "https://example.org/adv/8?utm_source=planet"),
      ])
    _ = try ActionTests.watcher(arguments, environment: ActionTests.noBus)
    _ = try write("vendor", [("Advisory 7", "https://example.org/adv/7"), ("Advisory 8", "https://example.org/adv/8")])
    _ = try ActionTests.watcher(arguments, environment: ActionTests.noBus)
    let all = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
    #expect(all.filter { $0.hasSuffix("Advisory 8") } == ["planet Advisory 8"], "\(all)")
  }
}

extension HostileReviewTests {
  @Test("a redirect target's 429 holds the target's host, not the host that redirected (and its other feeds)")
  func redirectTargetHoldsOnlyItself() throws {
    let target = try LoopbackHTTPServer { _ in .init(status: 429, headers: [("Retry-After", "604800")], body: Data()) }
    defer { target.stop() }
    let origin = try LoopbackHTTPServer { request in
      request.path == "/moved"
        ? .init(status: 302, headers: [("Location", target.url("/feed"))], body: Data())
        : .ok(Self.rss(["one"]))
    }
    defer { origin.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { interval: 1h }
    feeds:
      - { url: "\(origin.url("/moved"))", name: moved }
      - { url: "\(origin.url("/other"))", name: other }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    for offset in [0, 3_700] {
      var environment = ActionTests.noBus
      environment["WATCHER_CLOCK_OFFSET"] = "\(offset)"
      _ = try ActionTests.watcher(["poll", "--config", config, "--state-dir", state], environment: environment)
    }
    #expect(origin.requests.filter { $0.path == "/other" }.count == 2, "\(origin.requests.map(\.path))")
  }
}

extension HostileReviewTests {
  @Test("URL credentials (user:pass@, ?token=) are used to fetch, and never printed, stored or passed on")
  func urlSecrets() throws {
    let failing = Locked(false)
    let seen = Locked<[LoopbackHTTPServer.Request]>([])
    let server = try LoopbackHTTPServer { request in
      seen.withLock { $0.append(request) }
      if request.path.hasPrefix("/hook") { return .init(status: 500, headers: [], body: Data()) }
      return failing.withLock { $0 } ? .init(status: 500, headers: [], body: Data()) : .ok(Self.rss(["one"]))
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let out = dir.url.appendingPathComponent("out").path
    let feedURL = "http://reader:hunter2pw@127.0.0.1:\(server.port)/feed?token=s3cr3tTok&page=1"
    let hookURL = "http://127.0.0.1:\(server.port)/hook?api_key=k3yS3cret"
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: "\(feedURL)", name: f }
    rules:
      - { name: h, match: { title: '' }, hook: 'printf "%s\\n" "$WATCHER_FEED_URL" >> \(out); cat >> \(out)' }
      - { name: w, match: { title: '' }, webhook: "\(hookURL)" }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    func watcher(_ arguments: [String]) throws -> String {
      try ActionTests.watcher(arguments + ["--config", config, "--state-dir", state], environment: ActionTests.noBus).1
    }
    var printed = try watcher(["poll", "--dry-run"]) + watcher(["test-rules"]) + watcher(["poll"])
    failing.withLock { $0 = true }
    printed +=
      try watcher(["poll", "--all"]) + watcher(["status", "--json"]) + watcher(["status"])
      + watcher(["pending"]) + watcher(["log"])
    // The credentials were used.
    let fetches = seen.withLock { $0 }.filter { $0.path.hasPrefix("/feed") }
    #expect(fetches.first?.path.contains("token=s3cr3tTok") == true)
    #expect(fetches.first?.headers["authorization"]?.hasPrefix("Basic ") == true, "\(fetches.first?.headers ?? [:])")
    #expect(seen.withLock { $0 }.contains { $0.path.contains("api_key=k3yS3cret") }, "the webhook was not posted")
    // ... and are nowhere else.
    var stored = ""
    for name in try FileManager.default.contentsOfDirectory(atPath: state) {
      stored += (try? String(contentsOfFile: state + "/" + name, encoding: .utf8)) ?? ""
    }
    let passedOn = try String(contentsOfFile: out, encoding: .utf8)
    for secret in ["hunter2pw", "s3cr3tTok", "k3yS3cret"] {
      #expect(!printed.contains(secret), "\(secret) printed:\n\(printed)")
      #expect(!stored.contains(secret), "\(secret) stored")
      #expect(!passedOn.contains(secret), "\(secret) passed to a hook:\n\(passedOn)")
    }
    #expect(passedOn.contains("http://***@127.0.0.1:\(server.port)/feed?token=***&page=1"), "\(passedOn)")
  }
}

extension HostileReviewTests {
  /// Whether `text` holds a character that can drive a terminal (C0 but line breaks and tabs, DEL, C1).
  static func drivesTerminal(_ text: String) -> Bool {
    text.unicodeScalars.contains {
      ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value)
    }
  }

  @Test("a hook's stderr and a feed's raw date reach no terminal with their escape sequences")
  func noEscapesToTerminal() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    try
      "<rss version=\"2.0\"><channel><title>x</title><item><title>t</title><guid>g</guid><pubDate>A\u{9B}31mB\u{1B}[2J</pubDate></item></channel></rss>"
      .write(toFile: feed, atomically: true, encoding: .utf8)
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: \(feed), name: f }
    rules:
      - { name: h, match: { title: '' }, hook: 'printf "\\033]0;pwned\\007\\033[2Jbad\\302\\233K\\n" >&2; exit 1' }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    var printed = ""
    for command in [["poll"], ["pending"], ["status"], ["log"], ["status", "--json"]] {
      printed += try ActionTests.watcher(
        command + ["--config", config, "--state-dir", state], environment: ActionTests.noBus
      ).1
    }
    #expect(printed.contains("bad"), "the hook's stderr is not shown: \(printed)")
    #expect(!Self.drivesTerminal(printed), "\(printed.debugDescription)")
    let parsed = try ActionTests.watcher(["parse", feed], environment: ActionTests.noBus).1
    #expect(parsed.contains("unparseable date") && !Self.drivesTerminal(parsed), "\(parsed.debugDescription)")
  }
}

extension HostileReviewTests {
  @Test("run: item text that starts with '-' never becomes an option of the program (until a literal --)")
  func noOptionsFromItems() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    try
      "<rss version=\"2.0\"><channel><title>x</title><item><title>--output=/tmp/x</title><guid>g</guid></item></channel></rss>"
      .write(toFile: feed, atomically: true, encoding: .utf8)
    let out = dir.url.appendingPathComponent("out").path
    let script = dir.url.appendingPathComponent("args").path
    try "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done > \(out)\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o755)
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: \(feed), name: f }
    rules:
      - { name: h, match: { title: '' }, hook: { run: [\(script), "{title}", "-t{title}", "x{title}", "--", "{title}"] } }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    _ = try ActionTests.watcher(
      ["poll", "--config", config, "--state-dir", dir.url.appendingPathComponent("state").path],
      environment: ActionTests.noBus)
    #expect(
      try String(contentsOfFile: out, encoding: .utf8)
        == "[ --output=/tmp/x]\n[-t--output=/tmp/x]\n[x--output=/tmp/x]\n[--]\n[--output=/tmp/x]\n")
  }
}

extension HostileReviewTests {
  @Test("files other users control: a hook script, a secret file or a config directory others can write is refused")
  func othersFiles() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    try Self.rss(["one"]).write(toFile: feed, atomically: true, encoding: .utf8)
    let ran = dir.url.appendingPathComponent("ran").path
    let script = dir.url.appendingPathComponent("hook.sh").path
    try "#!/bin/sh\necho ran >> \(ran)\n".write(toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o757)
    let shScript = dir.url.appendingPathComponent("plain.sh").path
    try "echo ran >> \(ran)\n".write(toFile: shScript, atomically: true, encoding: .utf8)
    chmod(shScript, 0o666)
    let secret = dir.url.appendingPathComponent("secret").path
    try "s3cret\n".write(toFile: secret, atomically: true, encoding: .utf8)
    chmod(secret, 0o622)
    let receiver = try LoopbackHTTPServer { _ in .init(status: 200, body: Data()) }
    defer { receiver.stop() }
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: \(feed), name: f }
    rules:
      - { name: script, match: { title: '' }, hook: { run: [\(script)] } }
      - { name: shell, match: { title: '' }, hook: { run: [sh, \(shScript)] } }
      - { name: hook, match: { title: '' }, webhook: { url: "\(receiver.url("/h"))", secret_file: \(secret) } }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    let (_, output) = try ActionTests.watcher(
      ["poll", "--config", config, "--state-dir", state], environment: ActionTests.noBus)
    #expect(!FileManager.default.fileExists(atPath: ran), "a script others can write ran")
    #expect(receiver.requests.isEmpty, "a webhook was signed with a secret others can write")
    #expect(output.contains("\(script) is writable by every user"), "\(output)")
    #expect(output.contains("\(shScript) is writable by every user"), "\(output)")
    #expect(output.contains("the secret file is not safe to use"), "\(output)")
    // A config in a directory every user can write (without the sticky bit): refused, as the file would be.
    let open = dir.url.appendingPathComponent("open")
    try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true)
    chmod(open.path, 0o777)
    try FileManager.default.copyItem(atPath: config, toPath: open.path + "/rules.yaml")
    let check = try ActionTests.watcher(
      ["check", "--config", open.path + "/rules.yaml"], environment: ActionTests.noBus)
    #expect(check.0 != 0 && check.1.contains("writable by every user"), "\(check.1)")
  }
}

extension HostileReviewTests {
  /// Whether this process may mount a tmpfs: root, outside a container that forbids mounting (tried once).
  static let canMount: Bool = {
    guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount"),
      let dir = try? TemporaryDirectory(),
      let mounted = try? ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir.url.path]),
      mounted.status == 0
    else { return false }
    _ = try? ChildProcess.run("/bin/umount", [dir.url.path])
    return true
  }()

  @Test(
    "status says so when a full disk makes every poll refuse to act",
    .enabled(if: canMount, "needs root, and a machine that lets it mount a tmpfs"))
  func fullDisk() throws {
    let dir = try TemporaryDirectory()
    let state = dir.url.appendingPathComponent("state").path
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    let mounted = try ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", state])
    try #require(mounted.status == 0, "\(mounted.errors)")
    defer { _ = try? ChildProcess.run("/bin/umount", [state]) }
    let feed = dir.url.appendingPathComponent("feed.xml").path
    try Self.rss(["one"]).write(toFile: feed, atomically: true, encoding: .utf8)
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try "feeds:\n  - { url: \(feed), name: f }\n".write(toFile: config, atomically: true, encoding: .utf8)
    let arguments = ["--config", config, "--state-dir", state]
    _ = try ActionTests.watcher(["poll"] + arguments, environment: ActionTests.noBus)
    #expect(!(try ActionTests.watcher(["status"] + arguments, environment: ActionTests.noBus).1.contains("error:")))
    // The disk fills up.
    _ = try ChildProcess.run("/bin/sh", ["-c", "cat /dev/zero > '\(state)/filler' 2>/dev/null; true"])
    let status = try ActionTests.watcher(["status"] + arguments, environment: ActionTests.noBus).1
    #expect(status.contains("error: cannot write the state directory"), "\(status)")
    #expect(status.contains("No space left on device") || status.contains("disk is full"), "\(status)")
  }
}

extension HostileReviewTests {
  @Test("under quiet hours, notifications given up past keep_max are not counted as notified")
  func quietHoursCount() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    try Self.rss((0..<30).map { "T\($0)" }).write(toFile: feed, atomically: true, encoding: .utf8)
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings:
      first_poll: all
      max_age: none
      notify: { quiet: "00:00-23:59", keep_max: 5, max_per_poll: 100 }
    feeds:
      - { url: \(feed), name: f }
    rules:
      - { name: n, match: { title: T }, notify: { summary: "{title}" } }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let (_, output) = try ActionTests.watcher(
      ["poll", "--config", config, "--state-dir", dir.url.appendingPathComponent("state").path],
      environment: ActionTests.noBus)
    #expect(output.contains("f: 30 new: 25 notifications given up"), "\(output)")
    #expect(!output.contains("notified"), "\(output)")
  }
}

extension HostileReviewTests {
  @Test("SIGKILL at random moments of polls loses no action: every item's hook runs, shared stories at least once")
  func killsLoseNothing() throws {
    let dir = try TemporaryDirectory()
    var feeds = ""
    for feed in 0..<8 {
      // Feeds pair up: 2k and 2k+1 carry the same five stories (link and title), and five of their own.
      let shared = (0..<5).map { ("Shared \(feed / 2)-\($0)", "https://example.org/s\(feed / 2)/\($0)") }
      let own = (0..<5).map { ("Own \(feed)-\($0)", "https://example.org/o\(feed)/\($0)") }
      let items = (shared + own).map {
        "<item><title>\($0.0)</title><guid>\(feed)-\($0.1)</guid><link>\($0.1)</link></item>"
      }
      let path = dir.url.appendingPathComponent("f\(feed).xml").path
      try ("<rss version=\"2.0\"><channel><title>F</title>" + items.joined() + "</channel></rss>").write(
        toFile: path, atomically: true, encoding: .utf8)
      feeds += "  - { url: \(path), name: f\(feed) }\n"
    }
    let log = dir.url.appendingPathComponent("ran").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none, dedupe: true }
    feeds:
    \(feeds)rules:
      - { name: r, match: { title: '' }, hook: 'printf "%s %s\\n" "$WATCHER_FEED" "$WATCHER_TITLE" >> \(log)' }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    for _ in 0..<30 {
      let process = try DaemonTests.launch(["poll", "--all", "--config", config, "--state-dir", state])
      usleep(UInt32.random(in: 0...30_000))
      kill(process.processIdentifier, SIGKILL)
      #expect(DaemonTests.wait(process, seconds: 10))
    }
    for _ in 0..<2 {
      let last = try DaemonTests.launch(["poll", "--all", "--config", config, "--state-dir", state])
      #expect(DaemonTests.wait(last, seconds: 60))
    }
    let ran = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
    for feed in 0..<8 {
      for index in 0..<5 {
        #expect(ran.contains("f\(feed) Own \(feed)-\(index)"), "lost: f\(feed) Own \(feed)-\(index)")
        #expect(ran.contains { $0.hasSuffix(" Shared \(feed / 2)-\(index)") }, "lost: Shared \(feed / 2)-\(index)")
      }
    }
  }
}
