// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed
import WatcherSupport
import WatcherTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The built binary: the daemon's signals and lock, and state that survives SIGKILL at any moment.
@Suite("watcher run and poll, end to end", .serialized)
struct DaemonTests {
  /// A temp directory with `count` feed files of `items` items each and a config watching them.
  static func setUp(feeds count: Int, items: Int, firstPoll: String = "all") throws -> (TemporaryDirectory, String) {
    let dir = try TemporaryDirectory()
    var config = "settings:\n  first_poll: \(firstPoll)\n  max_age: none\nfeeds:\n"
    for feed in 0..<count {
      var xml = "<rss version=\"2.0\"><channel><title>Feed \(feed)</title>"
      for item in 0..<items {
        xml += "<item><title>Item \(feed)-\(item) release</title><guid>g\(feed)-\(item)</guid></item>"
      }
      xml += "</channel></rss>"
      let path = dir.url.appendingPathComponent("feed\(feed).xml").path
      try xml.write(toFile: path, atomically: true, encoding: .utf8)
      config += "  - { url: \(path), name: f\(feed) }\n"
    }
    config += "rules:\n  - { name: r, match: { title: release }, hook: 'true' }\n"
    let path = dir.url.appendingPathComponent("rules.yaml").path
    try config.write(toFile: path, atomically: true, encoding: .utf8)
    return (dir, path)
  }

  static func launch(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = BinaryTests.binary
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
  }

  static func wait(_ process: Process, seconds: Double) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
    while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
    return !process.isRunning
  }

  /// Item keys per state file, and the pending count.
  static func snapshot(_ directory: String) throws -> [String: [String]] {
    var result: [String: [String]] = [:]
    guard FileManager.default.fileExists(atPath: directory) else { return result }
    // Each feed's state file (not the files all feeds share, such as the stories across feeds).
    for name in try FileManager.default.contentsOfDirectory(atPath: directory)
    where name.hasSuffix(".json") && name != "story-groups.json" {
      let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
      let object = try #require(
        try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(name) is not valid JSON")
      let items = (object["items"] as? [String: Any])?.keys.sorted() ?? []
      let pending = (object["pending"] as? [Any])?.count ?? -1
      result[name] = items + ["pending=\(pending)"]
    }
    return result
  }

  @Test("the daemon holds the lock, reloads on SIGHUP, and stops on SIGTERM with exit 0")
  func daemon() throws {
    let (dir, config) = try Self.setUp(feeds: 3, items: 2)
    let state = dir.url.appendingPathComponent("state").path
    let logPath = dir.url.appendingPathComponent("daemon.log").path
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    let daemon = Process()
    daemon.executableURL = BinaryTests.binary
    daemon.arguments = ["run", "--config", config, "--state-dir", state]
    daemon.standardOutput = FileHandle.nullDevice
    daemon.standardError = FileHandle(forWritingAtPath: logPath)
    try daemon.run()
    defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
    var polled = false
    for _ in 0..<200 where !polled {
      usleep(20_000)
      polled =
        ((try? FileManager.default.contentsOfDirectory(atPath: state)) ?? []).filter {
          $0.hasSuffix(".json") && $0 != "story-groups.json"
        }.count == 3
    }
    #expect(polled, "the daemon did not poll")
    // A poll while the daemon runs asks it, over its socket, and prints what the daemon's pass did.
    let asked = try ChildProcess.run(
      try #require(BinaryTests.binary), ["poll", "--config", config, "--state-dir", state, "--feed", "f1"])
    #expect(asked.status == 0, "\(asked.errors)")
    #expect(asked.output.contains("f1: 2 items, nothing new") && asked.output.contains("poll: 1 of 1 feeds polled"))
    let caught = try ChildProcess.run(
      try #require(BinaryTests.binary), ["catch-up", "--config", config, "--state-dir", state])
    #expect(caught.status == 0 && caught.output.contains("catch-up: 3 of 3 feeds polled"), "\(caught.output)")
    let unknown = try ChildProcess.run(
      try #require(BinaryTests.binary), ["poll", "--config", config, "--state-dir", state, "--feed", "nope"])
    #expect(unknown.status == 64 && unknown.errors.contains("no feed named 'nope'"))
    let twice = try Self.launch(["run", "--config", config, "--state-dir", state])
    #expect(Self.wait(twice, seconds: 10))
    #expect(twice.terminationStatus == 75)
    kill(daemon.processIdentifier, SIGHUP)
    usleep(200_000)
    #expect(daemon.isRunning, "SIGHUP stopped the daemon")
    // A broken config on reload: every error logged, the old config kept, the daemon still running.
    let original = try String(contentsOfFile: config, encoding: .utf8)
    try (original + "  - { bogus: 1 }\n").write(toFile: config, atomically: true, encoding: .utf8)
    kill(daemon.processIdentifier, SIGHUP)
    usleep(300_000)
    #expect(daemon.isRunning, "a broken config stopped the daemon")
    let log = try String(contentsOfFile: logPath, encoding: .utf8)
    // What it watches and when, each item acted on, and what asked it for a pass.
    #expect(log.contains("watching 3 feeds; next poll: f0 now, f1 now, f2 now"), "\(log)")
    #expect(log.contains("f0  \"Item 0-0 release\"  hook (rule 'r'): exit 0"), "\(log)")
    #expect(log.contains("f0: 2 new: 2 hooks"))
    #expect(
      log.contains("'watcher poll' asked for a pass of f1") && log.contains("'watcher catch-up' asked for a pass"))
    #expect(log.contains("reloaded"))
    #expect(log.contains("the new config is invalid; still running the previous one"))
    #expect(log.contains("unknown key 'bogus'"))
    kill(daemon.processIdentifier, SIGTERM)
    #expect(Self.wait(daemon, seconds: 5), "the daemon did not stop within 5 s of SIGTERM")
    #expect(daemon.terminationStatus == 0)
  }

  @Test("the daemon logs a feed's parser warnings once, not on every poll")
  func warningsOnce() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("amp.xml").path
    try "<rss version=\"2.0\"><channel><title>A & B</title><item><title>x</title><guid>x</guid></item></channel></rss>"
      .write(toFile: feed, atomically: true, encoding: .utf8)
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try "feeds:\n  - { url: \(feed), name: amp, interval: 1s }\n".write(
      toFile: config, atomically: true, encoding: .utf8)
    let logPath = dir.url.appendingPathComponent("daemon.log").path
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    let daemon = Process()
    daemon.executableURL = BinaryTests.binary
    daemon.arguments = ["run", "--config", config, "--state-dir", dir.url.appendingPathComponent("state").path]
    daemon.standardOutput = FileHandle.nullDevice
    daemon.standardError = FileHandle(forWritingAtPath: logPath)
    try daemon.run()
    defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
    // Several passes (the feed is due every second): wait until the state says it was polled 2 s after the first.
    let state = dir.url.appendingPathComponent("state").path
    func lastAttempt() -> String? {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: state)) ?? []
      guard let name = names.first(where: { $0.hasPrefix("feed-") }),
        let data = FileManager.default.contents(atPath: state + "/" + name),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
      else { return nil }
      return object["last_attempt"] as? String
    }
    var first: String?
    var later = false
    for _ in 0..<100 where !later {
      usleep(100_000)
      guard let attempt = lastAttempt() else { continue }
      if first == nil { first = attempt }
      later =
        attempt > (first ?? "")
        && (DateParser.parse(attempt) ?? .distantPast).timeIntervalSince(
          DateParser.parse(first ?? "") ?? .distantFuture) >= 2
    }
    kill(daemon.processIdentifier, SIGTERM)
    #expect(Self.wait(daemon, seconds: 5))
    let log = try String(contentsOfFile: logPath, encoding: .utf8)
    #expect(later, "the daemon did not poll again: \(log)")
    #expect(log.components(separatedBy: "warning: feed 'amp'").count - 1 == 1, "\(log)")
  }

  @Test(
    "state stays valid through 50 SIGKILLs at random moments, and a final poll ends where an uninterrupted one does")
  func crashConsistency() throws {
    let (dir, config) = try Self.setUp(feeds: 30, items: 20)
    let reference = dir.url.appendingPathComponent("reference").path
    let once = try Self.launch(["poll", "--config", config, "--state-dir", reference])
    #expect(Self.wait(once, seconds: 60))
    #expect(once.terminationStatus == 0)
    let expected = try Self.snapshot(reference)
    #expect(expected.count == 30)

    let state = dir.url.appendingPathComponent("state").path
    var random = SystemRandomNumberGenerator()
    for round in 0..<50 {
      let process = try Self.launch(["poll", "--config", config, "--state-dir", state])
      usleep(UInt32.random(in: 0...40_000, using: &random))
      kill(process.processIdentifier, SIGKILL)
      #expect(Self.wait(process, seconds: 10))
      // Every state file present is whole, valid JSON.
      _ = try Self.snapshot(state)
      if round % 10 == 9 { usleep(1_000) }
    }
    let final = try Self.launch(["poll", "--config", config, "--state-dir", state])
    #expect(Self.wait(final, seconds: 60))
    #expect(final.terminationStatus == 0)
    #expect(try Self.snapshot(state) == expected)
  }
}
