// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherState
import WatcherTestSupport

/// The journal (`watcher log`) and the pending actions (`watcher pending`), with the built binary and real
/// `/bin/sh` hooks.
@Suite("log and pending")
struct JournalTests {
  /// A scratch directory with a feed file of three items and a config whose rules are `rules`.
  final class Setup {
    let dir: TemporaryDirectory
    var config: String { dir.url.appendingPathComponent("rules.yaml").path }
    var state: String { dir.url.appendingPathComponent("state").path }

    init(rules: String) throws {
      dir = try TemporaryDirectory()
      try FileManager.default.copyItem(
        at: Fixtures.repositoryRoot.appendingPathComponent("samples/swift-blog.atom"),
        to: dir.url.appendingPathComponent("f.atom"))
      try write(rules: rules)
    }

    func write(rules: String) throws {
      let text =
        "settings: { first_poll: all, max_age: none }\nfeeds:\n  - url: f.atom\n    name: swift\nrules:\n" + rules
      try text.write(toFile: config, atomically: true, encoding: .utf8)
    }

    /// Starts watcher with the config and state given, its standard output written to `output`.
    func launch(_ arguments: [String], output: String) throws -> Process {
      _ = FileManager.default.createFile(atPath: output, contents: nil)
      let process = Process()
      process.executableURL = BinaryTests.binary
      process.arguments = arguments + ["--config", config, "--state-dir", state]
      process.environment = ["HOME": dir.url.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
      process.currentDirectoryURL = dir.url
      process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
      process.standardError = FileHandle.nullDevice
      try process.run()
      return process
    }

    /// Runs watcher with the config and state given, no session bus, the scratch directory as cwd.
    func watcher(_ arguments: [String]) throws -> ChildResult {
      let binary = try #require(BinaryTests.binary)
      return try ChildProcess.run(
        binary, arguments + ["--config", config, "--state-dir", state],
        environment: ["HOME": dir.url.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], in: dir.url)
    }
  }

  @Test("every action and its outcome goes to the journal; log prints it newest last, filters, and --json is stable")
  func journal() throws {
    let setup = try Setup(
      rules: """
          - name: releases
            match: { title: release }
            hook: 'echo nope >&2; exit 3'
          - name: every
            feeds: [swift]
            hook: { run: [sh, -c, 'exit 0'] }
          - name: shown
            match: { title: workgroup }
            notify: true

        """)
    let poll = try setup.watcher(["poll"])
    #expect(poll.status == 1, "the failing hook and the unreachable notification service fail the poll")
    let log = try setup.watcher(["log"])
    #expect(log.status == 0, "\(log.errors)")
    let lines = log.output.split(separator: "\n")
    #expect(lines.count == 5, "\(log.output)")
    #expect(
      lines.contains {
        $0.contains("\"Swift 6.3 Released\"  hook (rule 'releases'): failed, will retry: exit 3; stderr: nope")
      })
    #expect(
      lines.contains {
        $0.contains("\"Swift Server Workgroup: annual update\"  notify (rule 'shown'): not shown, kept for later")
      })
    #expect(lines.filter { $0.contains("hook (rule 'every'): exit 0") }.count == 3)

    let json = try setup.watcher(["log", "--json"])
    let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
    let entries = try #require(object?["entries"] as? [[String: Any]])
    #expect(entries.count == 5)
    let failed = try #require(entries.first { $0["rule"] as? String == "releases" })
    #expect(
      failed["outcome"] as? String == "retry" && failed["exit_status"] as? Int == 3 && failed["attempt"] as? Int == 1)
    #expect(failed["feed"] as? String == "swift" && failed["title"] as? String == "Swift 6.3 Released")
    #expect((failed["link"] as? String)?.hasPrefix("https://www.swift.org/") == true && failed["time"] is String)
    let kept = try #require(entries.first { $0["rule"] as? String == "shown" })
    #expect(kept["action"] as? String == "notify" && kept["outcome"] as? String == "kept")
    // The keys, in the documented order.
    #expect(json.output.hasPrefix("{\"version\":1,\"entries\":[{\"time\":"))

    #expect(try setup.watcher(["log", "--feed", "swift"]).output == log.output)
    let unknown = try setup.watcher(["log", "--feed", "swfit"])
    #expect(unknown.status == 64 && unknown.errors.contains("did you mean 'swift'?"))
    #expect(try setup.watcher(["log", "--since", "1h"]).output == log.output)
    let future = try setup.watcher(["log", "--since", "2999-01-01"])
    #expect(future.output.isEmpty && future.errors.contains("nothing in the journal"))
    #expect(try setup.watcher(["log", "--since", "soon"]).status == 64)
  }

  @Test(
    "pending lists what waits; a fixed hook fixes its retries; --retry runs now; a gone rule is dropped; --drop forgets"
  )
  func pending() throws {
    let broken = """
        - name: archive
          match: { title: release }
          hook: 'echo broken >&2; exit 3'
        - name: other
          match: { title: workgroup }
          hook: 'exit 4'

      """
    let setup = try Setup(rules: broken)
    _ = try setup.watcher(["poll"])
    let list = try setup.watcher(["pending"])
    #expect(
      list.output.contains("Swift 6.3 Released") && list.output.contains("archive")
        && list.output.contains("exit 3; stderr: broken"))
    #expect(list.output.contains("2 pending"), "\(list.output)")
    let status = try setup.watcher(["status"])
    #expect(status.errors.contains("feed 'swift': 2 pending") && status.errors.contains("failed 1×, last: exit 3"))

    // The config's hook is fixed: the retry runs the new command, not the one saved with the action.
    try setup.write(
      rules: broken.replacingOccurrences(of: "'echo broken >&2; exit 3'", with: "'echo \"$WATCHER_TITLE\" > fixed.txt'")
    )
    let key = "https://www.swift.org/blog/swift-6.3-released/"
    let retried = try setup.watcher(["pending", "--retry", key])
    #expect(retried.status == 0 && retried.output.contains("1 still pending"), "\(retried.errors)")
    #expect(
      try String(contentsOf: setup.dir.url.appendingPathComponent("fixed.txt"), encoding: .utf8)
        == "Swift 6.3 Released\n")
    #expect(try setup.watcher(["log"]).output.contains("hook (rule 'archive'): exit 0 (attempt 2)"))

    // The other rule is removed from the config: its pending action is dropped with a note at the next poll.
    try setup.write(rules: "  - name: archive\n    match: { title: release }\n    hook: 'true'\n")
    let next = try setup.watcher(["poll"])
    #expect(
      next.status == 0
        && next.errors.contains("note: dropped pending actions of rule 'other': it is no longer in the config"),
      "\(next.errors)")
    #expect(try setup.watcher(["pending"]).output.contains("no pending actions"))
    #expect(
      try setup.watcher(["log"]).output.contains("hook (rule 'other'): dropped: its rule is no longer in the config"))

    // --drop forgets (all, or the keys given); an unknown key is an error.
    try setup.write(rules: "  - name: again\n    feeds: [swift]\n    hook: 'exit 5'\n")
    try FileManager.default.removeItem(atPath: setup.state)
    _ = try setup.watcher(["poll"])
    #expect(try setup.watcher(["pending", "--drop", "no-such-key"]).status == 64)
    let dropped = try setup.watcher(["pending", "--drop"])
    #expect(dropped.status == 0 && dropped.output == "dropped 3 pending actions\n", "\(dropped.errors)")
    #expect(try setup.watcher(["pending"]).output.contains("no pending actions"))
    #expect(try setup.watcher(["pending", "--retry", "--drop"]).status == 64)
  }

  @Test("the journal is bounded: it rotates, and reading keeps the newest keep_max within keep_for")
  func bounded() throws {
    let dir = try TemporaryDirectory()
    let store = try StateStore(directory: dir.url.path)
    let limits = JournalLimits(keepFor: 3_600, keepMax: 10)
    let now = Date()
    func entry(_ n: Int, age: TimeInterval = 0) -> JournalEntry {
      JournalEntry(
        time: now.addingTimeInterval(-age), feed: "f", title: "t\(n)", link: nil, key: "k\(n)", rule: "r",
        action: "hook", outcome: .ok, exitStatus: 0)
    }
    try store.appendJournal([entry(0, age: 7_200)], limits: limits, now: now)
    for n in 1...25 { try store.appendJournal([entry(n)], limits: limits, now: now) }
    let (entries, unreadable) = store.journal(limits: limits, now: now)
    #expect(unreadable == 0)
    #expect(entries.map(\.key) == (16...25).map { "k\($0)" })
    let files = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.hasPrefix("journal") }
    #expect(Set(files) == ["journal.jsonl", "journal.1.jsonl"])
    let lines = try files.map { try String(contentsOfFile: dir.url.appendingPathComponent($0).path, encoding: .utf8) }
      .joined().split(separator: "\n")
    #expect(lines.count <= 20, "on disk: \(lines.count) entries")
    // A torn last line (a crash mid-write) is skipped and counted.
    let handle = try #require(FileHandle(forWritingAtPath: store.journalPath))
    handle.seekToEndOfFile()
    handle.write(Data("{\"time\":\"2026-".utf8))
    try handle.close()
    #expect(store.journal(limits: limits, now: now).unreadable == 1)
  }

  @Test("the journal is bounded in bytes too: entries of megabyte titles are cut, and a file rotates before its budget")
  func boundedInBytes() throws {
    let dir = try TemporaryDirectory()
    let store = try StateStore(directory: dir.url.path)
    let limits = JournalLimits(keepFor: 3_600, keepMax: 10_000, maxBytes: 1 << 20)
    let now = Date()
    let huge = String(repeating: "x", count: 1_000_000)
    for n in 0..<200 {
      try store.appendJournal(
        [
          JournalEntry(
            time: now, feed: "f", title: huge, link: "https://x.org/?q=" + huge, key: "k\(n)", rule: "r",
            action: "hook", outcome: .ok, detail: huge)
        ], limits: limits, now: now)
    }
    for path in [store.journalPath, dir.url.appendingPathComponent("journal.1.jsonl").path] {
      let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
      #expect(size <= 1 << 20, "\(path): \(size) bytes")
    }
    let (entries, unreadable) = store.journal(limits: limits, now: now)
    #expect(unreadable == 0 && entries.last?.key == "k199")
    #expect(entries.allSatisfy { ($0.title?.utf8.count ?? 0) <= JournalEntry.maxTitleBytes })
  }

  @Test("log --follow prints each entry as a real poll writes it, as JSON lines or text, until SIGINT")
  func follow() throws {
    let setup = try Setup(rules: "  - { name: all, match: { title: '' }, hook: 'true' }\n")
    try FileManager.default.createDirectory(atPath: setup.state, withIntermediateDirectories: true)
    let jsonOut = setup.dir.url.appendingPathComponent("follow.jsonl").path
    let textOut = setup.dir.url.appendingPathComponent("follow.txt").path
    let json = try setup.launch(["log", "--follow", "--json"], output: jsonOut)
    let text = try setup.launch(["log", "--follow"], output: textOut)
    defer {
      for process in [json, text] where process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    usleep(500_000)
    let poll = try setup.watcher(["poll"])
    #expect(poll.status == 0, "\(poll.errors)")
    let expected = try setup.watcher(["log", "--json"]).output
    let count = try #require(
      (try JSONSerialization.jsonObject(with: Data(expected.utf8)) as? [String: Any])?["entries"] as? [Any]
    ).count
    #expect(count > 0)
    func lines(_ path: String) -> [Substring] {
      ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
    }
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline, lines(jsonOut).count < count || lines(textOut).count < count {
      usleep(100_000)
    }
    // Each line is one entry of `log --json`, complete, in the order written.
    let followed = try lines(jsonOut).map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(followed.count == count, "\(lines(jsonOut))")
    #expect(followed.allSatisfy { $0["outcome"] as? String == "ok" && $0["feed"] as? String == "swift" })
    #expect(lines(textOut).count == count && lines(textOut).allSatisfy { $0.contains("hook (rule 'all'): exit 0") })
    // A second poll finds nothing new: nothing more is printed. SIGINT ends it, exit 0.
    _ = try setup.watcher(["poll"])
    usleep(500_000)
    #expect(lines(jsonOut).count == count)
    for process in [json, text] {
      kill(process.processIdentifier, SIGINT)
      let stopped = DaemonTests.wait(process, seconds: 5)
      #expect(stopped, "log --follow ignored SIGINT")
      if stopped { #expect(process.terminationStatus == 0) }
    }
  }
}
