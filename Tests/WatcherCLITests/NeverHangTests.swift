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
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
      if Date() > deadline { return false }
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
  }
}
