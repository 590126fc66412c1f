// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A config with one typo blinds no read-only command.
@Suite("Reads beside a broken config")
struct BrokenConfigTests {
  @Test("status, log, pending, items, test-rules and poll --dry-run work while the config has an error, and say so")
  func readsWork() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    try HostileReviewTests.rss(["one", "two"]).write(toFile: feed, atomically: true, encoding: .utf8)
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let state = dir.url.appendingPathComponent("state").path
    let good = """
      settings: { first_poll: all, max_age: none }
      feeds:
        - { url: \(feed), name: blog }
      rules:
        - { name: all, match: { title: '' }, hook: 'true' }
      """
    try good.write(toFile: config, atomically: true, encoding: .utf8)
    _ = try ActionTests.watcher(["poll", "--config", config, "--state-dir", state], environment: ActionTests.noBus)
    // One typo.
    try good.replacingOccurrences(of: "match:", with: "mtach:").write(
      toFile: config, atomically: true, encoding: .utf8)
    for command in [["status"], ["log"], ["pending"], ["items", "blog"], ["test-rules"], ["poll", "--dry-run"]] {
      let result = try ChildProcess.run(
        try #require(BinaryTests.binary), command + ["--config", config, "--state-dir", state],
        environment: ActionTests.noBus)
      #expect(result.status == 0, "\(command): \(result.errors)")
      #expect(result.errors.contains("mtach"), "\(command) does not say what is wrong: \(result.errors)")
      #expect(result.errors.contains("has errors (above)"), "\(command): \(result.errors)")
      #expect(!result.output.isEmpty, "\(command) printed nothing")
    }
    let status = try ChildProcess.run(
      try #require(BinaryTests.binary), ["status", "--config", config, "--state-dir", state],
      environment: ActionTests.noBus)
    #expect(status.output.contains("blog"), "\(status.output)")
    // A command that changes something still refuses.
    let poll = try ChildProcess.run(
      try #require(BinaryTests.binary), ["poll", "--config", config, "--state-dir", state],
      environment: ActionTests.noBus)
    #expect(poll.status == 78)
  }

  @Test("while the daemon runs the old config, the dry runs use it")
  func dryRunUsesTheDaemonsConfig() throws {
    let daemon = try LiveDaemonTests.Running()
    defer { _ = daemon.stop() }
    let text = try String(contentsOfFile: daemon.config, encoding: .utf8)
    try text.replacingOccurrences(of: "match:", with: "mtach:").write(
      toFile: daemon.config, atomically: true, encoding: .utf8)
    #expect(daemon.waitFor("the new config is invalid"), "\(daemon.log)")
    let result = try ChildProcess.run(
      try #require(BinaryTests.binary), ["test-rules", "--config", daemon.config, "--state-dir", daemon.state],
      environment: daemon.environment)
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errors.contains("uses the config the daemon (pid"), "\(result.errors)")
    #expect(result.output.contains("rule 'r'") || result.output.contains("r:") || !result.output.isEmpty)
  }
}

@Suite("status fits the terminal")
struct StatusWidthTests {
  @Test("status at 80 and 100 columns has no row longer than the terminal; --wide and a pipe keep every column")
  func fits() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    try HostileReviewTests.rss(["one"]).write(toFile: feed, atomically: true, encoding: .utf8)
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { interval: auto }
    feeds:
      - { url: \(feed), name: a-feed-with-a-rather-long-name }
      - { url: \(dir.url.path)/missing/and/a/long/path/to/a/feed/that/is/not/there.xml, name: gone }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    _ = try ActionTests.watcher(["poll", "--config", config, "--state-dir", state], environment: ActionTests.noBus)
    func status(_ extra: [String], columns: String?) throws -> [Substring] {
      var environment = ActionTests.noBus
      environment["COLUMNS"] = columns
      let result = try ChildProcess.run(
        try #require(BinaryTests.binary), ["status", "--config", config, "--state-dir", state] + extra,
        environment: environment)
      return result.output.split(separator: "\n")
    }
    let full = try status([], columns: nil)
    #expect(full.first?.contains("SCHEDULE") == true && full.first?.contains("LAST OK") == true)
    #expect((full.map(\.count).max() ?? 0) > 100, "the test needs a wide table: \(full)")
    for columns in [80, 100] {
      let table = try status([], columns: "\(columns)")
      #expect(table.allSatisfy { $0.count <= columns }, "\(columns): \(table)")
      #expect(table.first?.hasPrefix("FEED") == true && table.contains { $0.contains("gone") })
    }
    #expect(try status(["--wide"], columns: "80") == full)
  }
}
