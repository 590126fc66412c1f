// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The built binary against the cases a hostile review found.
///
/// watcher must never hang, repeat an action or lose one; each test reproduces one finding.
@Suite("never hang, never repeat, never lose", .serialized)
struct NeverHangTests {
  /// A directory with one feed file of `items` items and a config with `rules` (YAML lines) and `settings`.
  struct Setup {
    let dir: TemporaryDirectory
    let config: String
    let state: String
    let feed: String

    init(items: Int = 1, settings: String = "", rules: String, extraFeeds: String = "") throws {
      dir = try TemporaryDirectory()
      feed = dir.url.appendingPathComponent("feed.xml").path
      var xml = "<rss version=\"2.0\"><channel><title>F</title>"
      for item in 0..<items { xml += "<item><title>Item \(item)</title><guid>g\(item)</guid></item>" }
      try (xml + "</channel></rss>").write(toFile: feed, atomically: true, encoding: .utf8)
      config = dir.url.appendingPathComponent("rules.yaml").path
      state = dir.url.appendingPathComponent("state").path
      let text =
        "settings:\n  first_poll: all\n  max_age: none\n\(settings)feeds:\n  - { url: \(feed), name: f }\n\(extraFeeds)rules:\n\(rules)"
      try text.write(toFile: config, atomically: true, encoding: .utf8)
    }

    func path(_ name: String) -> String { dir.url.appendingPathComponent(name).path }

    func watcher(_ arguments: [String], environment: [String: String]? = nil) throws -> ChildResult {
      try ChildProcess.run(
        try #require(BinaryTests.binary), arguments + ["--config", config, "--state-dir", state],
        environment: environment)
    }

    func launch(_ arguments: [String]) throws -> Process {
      try DaemonTests.launch(arguments + ["--config", config, "--state-dir", state])
    }

    /// The pending actions of the feed's state.
    func pending() throws -> Int {
      let names = try FileManager.default.contentsOfDirectory(atPath: state).filter {
        $0.hasPrefix("feed-") && $0.hasSuffix(".json")
      }
      let data = try Data(contentsOf: URL(fileURLWithPath: state + "/" + (try #require(names.first))))
      let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      return (object["pending"] as? [Any])?.count ?? 0
    }
  }

  static func lines(_ path: String) -> [String] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  static func waitFor(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
    while !condition() {
      if ContinuousClock.now > deadline { return false }
      usleep(20_000)
    }
    return true
  }

  @Test("a hook that closes its output is still held to its timeout; poll does not wait for it")
  func hookTimeoutWithClosedOutput() throws {
    let setup = try Setup(
      rules:
        "  - { name: r, match: { title: item }, hook: { command: 'exec >/dev/null 2>&1; sleep 8', timeout: 1s } }\n")
    let started = Date()
    let result = try setup.watcher(["poll"])
    #expect(Date().timeIntervalSince(started) < 5, "poll waited for the hook past its timeout")
    #expect(result.status == 1)
    #expect(result.errors.contains("timed out after 1 s"), "\(result.errors)")
  }

  @Test("a hook that exits 0 leaving a background child succeeds once and is not run again")
  func backgroundChildDoesNotRepeat() throws {
    let setup = try Setup(
      rules: "  - { name: r, match: { title: item }, hook: 'echo run >> \"$LOG\"; sleep 8 & exit 0' }\n")
    let log = setup.path("log")
    let environment = ProcessInfo.processInfo.environment.merging(["LOG": log]) { $1 }
    let started = Date()
    let first = try setup.watcher(["poll"], environment: environment)
    #expect(first.status == 0, "\(first.errors)")
    #expect(Date().timeIntervalSince(started) < 4)
    let second = try setup.watcher(["poll", "--feed", "f"], environment: environment)
    #expect(second.status == 0, "\(second.errors)")
    #expect(Self.lines(log) == ["run"], "the hook ran again")
    #expect(try setup.pending() == 0)
  }

  @Test(
    "SIGTERM: no new hook starts, the running one gets a short grace and then dies, the rest stay pending",
    arguments: ["poll", "run"])
  func stopOnSignal(command: String) throws {
    let setup = try Setup(
      items: 3, settings: "  hook_concurrency: 1\n",
      rules:
        "  - { name: r, match: { title: item }, hook: 'echo $$ >> \"$PIDS\"; echo start >> \"$LOG\"; sleep 4; echo end >> \"$LOG\"' }\n"
    )
    let log = setup.path("log")
    let pids = setup.path("pids")
    setenv("LOG", log, 1)
    setenv("PIDS", pids, 1)
    defer {
      unsetenv("LOG")
      unsetenv("PIDS")
    }
    let process = try setup.launch([command])
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    #expect(Self.waitFor(seconds: 20) { Self.lines(log).count == 1 }, "no hook started")
    kill(process.processIdentifier, SIGTERM)
    let signalled = Date()
    #expect(DaemonTests.wait(process, seconds: 10))
    let took = Date().timeIntervalSince(signalled)
    #expect(took < 3.5, "stopping took \(took) s")
    usleep(200_000)
    #expect(Self.lines(log) == ["start"], "a hook started after the signal, or the killed one finished")
    let pid = try #require(Self.lines(pids).first.flatMap { Int32($0) })
    #expect(kill(pid, 0) != 0, "the running hook was left behind")
    #expect(try setup.pending() == 3, "the unfinished hooks are not all pending")
    // The log tells the killed hook from the ones never started.
    let journal = try setup.watcher(["log"]).output
    let interrupted = journal.split(separator: "\n").filter { $0.contains("started, then stopped with watcher") }
    #expect(interrupted.count == 1 && interrupted[0].contains("killed after "), "\(journal)")
    #expect(journal.components(separatedBy: "not run, watcher was stopping").count - 1 == 2, "\(journal)")
  }

  @Test("SIGTERM ends a webhook in flight after the short grace, not at its timeout; it stays pending")
  func stopDuringWebhook() throws {
    let receiver = try LoopbackHTTPServer { _ in .init(status: 200, headers: [], body: Data(), silent: true) }
    defer { receiver.stop() }
    let setup = try Setup(
      rules: "  - { name: r, match: { title: item }, webhook: { url: \"\(receiver.url("/hook"))\", timeout: 120s } }\n")
    let process = try setup.launch(["poll"])
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    #expect(Self.waitFor(seconds: 20) { !receiver.requests.isEmpty }, "the webhook was not sent")
    kill(process.processIdentifier, SIGTERM)
    let signalled = Date()
    #expect(DaemonTests.wait(process, seconds: 30))
    let took = Date().timeIntervalSince(signalled)
    #expect(took < 5, "stopping took \(took) s")
    #expect(try setup.pending() == 1, "the interrupted webhook is not pending")
  }

  @Test("when watcher itself is killed, its running hook and everything the hook started die too")
  func watcherKilled() throws {
    let setup = try Setup(
      rules:
        "  - { name: r, match: { title: item }, hook: 'setsid sh -c \"echo \\$\\$ > $PIDS; exec sleep 600\" & echo $$ >> \"$PIDS.hook\"; sleep 600' }\n"
    )
    let pids = setup.path("pids")
    setenv("PIDS", pids, 1)
    defer { unsetenv("PIDS") }
    let process = try setup.launch(["poll"])
    #expect(Self.waitFor(seconds: 20) { Self.lines(pids).count == 1 && Self.lines(pids + ".hook").count == 1 })
    kill(process.processIdentifier, SIGKILL)
    #expect(DaemonTests.wait(process, seconds: 10))
    let all = (Self.lines(pids) + Self.lines(pids + ".hook")).compactMap { Int32($0) }
    #expect(all.count == 2)
    #expect(Self.waitFor(seconds: 5) { all.allSatisfy { kill($0, 0) != 0 } }, "processes \(all) outlived watcher")
  }

  @Test("behind an HTTP proxy, a redirect to a more private address is still refused; others are followed")
  func redirectBehindProxy() throws {
    let feed = "<rss version=\"2.0\"><channel><title>T</title><item><title>A</title></item></channel></rss>"
    let proxy = try LoopbackHTTPServer { request in
      switch request.path {
      case "http://93.184.216.34/feed":
        return .init(status: 302, headers: [("Location", "http://169.254.169.254/latest/")])
      case "http://93.184.216.34/moved": return .init(status: 302, headers: [("Location", "http://93.184.216.35/feed")])
      case "http://93.184.216.35/feed": return .ok(feed)
      default: return .init(status: 404)
      }
    }
    defer { proxy.stop() }
    let binary = try #require(BinaryTests.binary)
    var environment = ProcessInfo.processInfo.environment
    environment["http_proxy"] = "http://127.0.0.1:\(proxy.port)"
    environment["no_proxy"] = nil
    environment["NO_PROXY"] = nil
    let refused = try ChildProcess.run(binary, ["parse", "http://93.184.216.34/feed"], environment: environment)
    #expect(refused.status == 1)
    #expect(refused.errors.contains("redirected to 169.254.169.254"), "\(refused.errors)")
    #expect(!proxy.requests.contains { $0.path.contains("169.254") }, "the inward hop reached the proxy")
    let followed = try ChildProcess.run(binary, ["parse", "http://93.184.216.34/moved"], environment: environment)
    #expect(followed.status == 0, "\(followed.errors)")
    #expect(followed.output.contains("A"))
  }

  /// Runs the built binary as an unprivileged user.
  ///
  /// That is `nobody` through setpriv when the tests run as root (root reads and writes everything), else
  /// the current user. The setup's files are handed to that user.
  static func unprivileged(_ setup: Setup) throws -> ([String], [String: String]) throws -> ChildResult {
    let binary = try #require(BinaryTests.binary)
    if getuid() == 0 {
      _ = try ChildProcess.run("/bin/chown", ["-R", "65534:65534", setup.dir.url.path])
      return { arguments, environment in
        try ChildProcess.run(
          "/usr/bin/setpriv",
          ["--reuid=65534", "--regid=65534", "--clear-groups", "--", binary.path] + arguments
            + ["--config", setup.config, "--state-dir", setup.state],
          environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
      }
    }
    return { arguments, environment in
      try ChildProcess.run(
        binary, arguments + ["--config", setup.config, "--state-dir", setup.state],
        environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
    }
  }

  @Test("a state file that cannot be read is an error: never replaced, and old items are not acted on again")
  func unreadableStateFile() throws {
    let setup = try Setup(rules: "  - { name: r, match: { title: item }, hook: 'echo run >> \"$LOG\"' }\n")
    let log = setup.path("log")
    let watcher = try Self.unprivileged(setup)
    let first = try watcher(["poll"], ["LOG": log])
    #expect(first.status == 0, "\(first.errors)")
    let file = try #require(
      try FileManager.default.contentsOfDirectory(atPath: setup.state).first { $0.hasPrefix("feed-") })
    let path = setup.state + "/" + file
    if getuid() == 0 { #expect(chown(path, 0, 0) == 0) }
    #expect(chmod(path, getuid() == 0 ? 0o600 : 0o000) == 0)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let second = try watcher(["poll", "--feed", "f"], ["LOG": log])
    #expect(second.status == 1)
    #expect(second.errors.contains("cannot read the state file"), "\(second.errors)")
    #expect(Self.lines(log) == ["run"], "the hook ran again for an old item")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the unreadable state file was replaced")
    let status = try watcher(["status"], [:])
    #expect(status.errors.contains("cannot read the state file"), "\(status.errors)")
  }

  @Test("with a state directory that cannot be written, nothing is acted on, every poll, and status says why")
  func readOnlyStateDirectory() throws {
    let setup = try Setup(rules: "  - { name: r, match: { title: item }, hook: 'echo run >> \"$LOG\"' }\n")
    let log = setup.path("log")
    let watcher = try Self.unprivileged(setup)
    #expect(try watcher(["poll"], ["LOG": log]).status == 0)
    #expect(Self.lines(log) == ["run"])
    let xml =
      "<rss version=\"2.0\"><channel><title>F</title><item><title>Item 0</title><guid>g0</guid></item>"
      + "<item><title>Item new</title><guid>new</guid></item></channel></rss>"
    try xml.write(toFile: setup.feed, atomically: true, encoding: .utf8)
    if getuid() == 0 { _ = try ChildProcess.run("/bin/chown", ["65534:65534", setup.feed]) }
    #expect(chmod(setup.state, 0o500) == 0)
    for _ in 0..<2 {
      let poll = try watcher(["poll", "--feed", "f"], ["LOG": log])
      #expect(poll.status == 1)
      #expect(poll.errors.contains("cannot write"), "\(poll.errors)")
    }
    #expect(Self.lines(log) == ["run"], "a hook ran although its item could not be recorded")
    let status = try watcher(["status"], [:])
    #expect(status.errors.contains("cannot write the state directory"), "\(status.errors)")
    #expect(chmod(setup.state, 0o700) == 0)
    #expect(try watcher(["poll", "--feed", "f"], ["LOG": log]).status == 0)
    #expect(Self.lines(log) == ["run", "run"])
  }

  @Test("status changes nothing: a corrupt state file stays where it is")
  func statusIsReadOnly() throws {
    let setup = try Setup(rules: "  - { name: r, match: { title: item }, notify: true }\n")
    _ = try setup.watcher(["catch-up"])
    let names = try FileManager.default.contentsOfDirectory(atPath: setup.state).filter { $0.hasPrefix("feed-") }
    let path = setup.state + "/" + (try #require(names.first))
    try "{ corrupt".write(toFile: path, atomically: true, encoding: .utf8)
    let before = try FileManager.default.contentsOfDirectory(atPath: setup.state).sorted()
    let status = try setup.watcher(["status"])
    #expect(status.status == 0)
    #expect(status.errors.contains("unreadable"), "\(status.errors)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: setup.state).sorted() == before)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "{ corrupt")
  }

  @Test("a feed that is a FIFO is an error that names it; poll does not hang and the other feeds are polled")
  func fifoFeed() throws {
    let dir = try TemporaryDirectory()
    let fifo = dir.url.appendingPathComponent("fifo.xml").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let setup = try Setup(
      rules: "  - { name: r, match: { title: item }, notify: true }\n", extraFeeds: "  - { url: \(fifo), name: pipe }\n"
    )
    let started = Date()
    let result = try setup.watcher(["catch-up"])
    #expect(Date().timeIntervalSince(started) < 10)
    #expect(result.status == 1)
    #expect(result.errors.contains("feed 'pipe'") && result.errors.contains("FIFO"), "\(result.errors)")
    #expect(result.output.contains("f: 1 items, all recorded as seen"), "\(result.output)")
  }

  @Test("a feed named on the command line waits out its server's Retry-After; --force polls it and says so")
  func retryAfterWhenNamed() throws {
    let server = try LoopbackHTTPServer { _ in .init(status: 429, headers: [("Retry-After", "3600")]) }
    defer { server.stop() }
    let setup = try Setup(
      rules: "  - { name: r, match: { title: item }, notify: true }\n",
      extraFeeds: "  - { url: '\(server.url("/ratelimited"))', name: limited }\n")
    _ = try setup.watcher(["poll", "--feed", "limited"])
    #expect(server.requests.count == 1)
    let named = try setup.watcher(["poll", "--feed", "limited"])
    #expect(server.requests.count == 1, "the feed was requested again inside its Retry-After")
    #expect(named.errors.contains("not polled: its server asked to wait until"), "\(named.errors)")
    let forced = try setup.watcher(["poll", "--feed", "limited", "--force"])
    #expect(server.requests.count == 2)
    #expect(forced.errors.contains("polling anyway (--force)"), "\(forced.errors)")
  }
}
