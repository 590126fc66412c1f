// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherState
import WatcherSupport
import WatcherTestSupport

@testable import WatcherCLI

#if canImport(Glibc)
  import Glibc
#endif

/// Small things a first week with watcher tripped on, each in its words.
@Suite("The first week's small things")
struct FirstWeekTests {
  static let now = Date(timeIntervalSince1970: 1_796_000_000)

  @Test("log: a feed's own event is not '(untitled: )'; a webhook or Apprise that worked is 'done', not 'exit 0'")
  func logWords() {
    let identity = JournalEntry(
      time: Self.now, feed: "f", title: nil, link: nil, key: "", rule: nil, action: "identity", outcome: .rekeyed,
      detail: "1 item re-keyed")
    #expect(!LogCommand.line(identity).contains("untitled"), "\(LogCommand.line(identity))")
    #expect(LogCommand.line(identity).contains("(the feed)"))
    for action in ["webhook", "apprise"] {
      let sent = JournalEntry(
        time: Self.now, feed: "f", title: "t", link: nil, key: "k", rule: "r", action: action, outcome: .ok,
        exitStatus: nil)
      #expect(LogCommand.line(sent).hasSuffix("\(action) (rule 'r'): done"), "\(LogCommand.line(sent))")
    }
    let hook = JournalEntry(
      time: Self.now, feed: "f", title: "t", link: nil, key: "k", rule: "r", action: "hook", outcome: .ok,
      exitStatus: 0)
    #expect(LogCommand.line(hook).hasSuffix("hook (rule 'r'): exit 0"))
  }

  @Test("a retry 30 s away is 'in under a minute', never 'just now'")
  func soonIsNotNow() {
    #expect(StatusCommand.relative(Self.now.addingTimeInterval(30), now: Self.now) == "in under a minute")
    #expect(StatusCommand.relative(Self.now.addingTimeInterval(-10), now: Self.now) == "just now")
    #expect(StatusCommand.relative(Self.now.addingTimeInterval(120), now: Self.now) == "in 2 min")
  }
}

extension FirstWeekTests {
  /// A socket at `path` that plays a daemon: reads the request line, then does `answer` with the client.
  static func fakeDaemon(at path: String, _ answer: @escaping @Sendable (Int32) -> Void) throws -> Int32 {
    let listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listening, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    try #require(bound == 0 && listen(listening, 4) == 0)
    Thread {
      let client = accept(listening, nil, nil)
      guard client >= 0 else { return }
      var byte: UInt8 = 0
      while read(client, &byte, 1) == 1, byte != 10 {}
      answer(client)
      close(client)
    }.start()
    return listening
  }

  @Test(
    "a poll handed to a daemon that dies says so (exit 75); one that is silent is said to be, once",
    arguments: [false, true])
  func daemonDiesOrHangs(slow: Bool) throws {
    let dir = try TemporaryDirectory()
    chmod(dir.url.path, 0o700)
    let path = dir.url.appendingPathComponent("daemon.sock").path
    let listening = try Self.fakeDaemon(at: path) { client in
      guard slow else { return }
      usleep(1_500_000)
      _ = "x 0\n".withCString { write(client, $0, 4) }
    }
    defer { close(listening) }
    let recording = TerminalRecording()
    let terminal = Terminal(output: { recording.writeOutput($0) }, errors: { recording.writeErrors($0) })
    let answered = DaemonSocket.ask(
      DaemonSocket.Request(.poll(feeds: [])), path: path, terminal: terminal, silence: slow ? 0.5 : 60)
    if slow {
      #expect(answered == .status(0))
      #expect(recording.errors.components(separatedBy: "has said nothing").count == 2, "\(recording.errors)")
    } else {
      #expect(answered == .status(75))
      #expect(recording.errors.contains("the daemon stopped before it finished this poll"), "\(recording.errors)")
    }
  }
}

extension FirstWeekTests {
  @Test("test-rules' summary counts webhooks and Apprise messages too")
  func summaryCountsEveryOutput() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    try HostileReviewTests.rss(["one"]).write(toFile: feed, atomically: true, encoding: .utf8)
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    feeds:
      - { url: \(feed), name: f }
    rules:
      - { name: w, match: { title: '' }, webhook: "http://127.0.0.1:9/hook" }
      - { name: a, match: { title: '' }, apprise: { urls: ["json://127.0.0.1:9/"] } }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let (_, output) = try ActionTests.watcher(["test-rules", "--config", config], environment: ActionTests.noBus)
    #expect(output.contains("1 webhook, 1 Apprise message"), "\(output)")
  }
}

extension FirstWeekTests {
  @Test("poll --all --force does not also say '--force polls it anyway' for a feed its host held in that pass")
  func forceSaysOneThing() throws {
    let server = try LoopbackHTTPServer { request in
      request.path == "/busy"
        ? .init(status: 429, headers: [("Retry-After", "600")], body: Data())
        : .ok(HostileReviewTests.rss(["one"]))
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { concurrency: 1 }
    feeds:
      - { url: "\(server.url("/busy"))", name: busy }
    \((1...4).map { "  - { url: \"\(server.url("/f\($0)"))\", name: f\($0) }" }.joined(separator: "\n"))
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let arguments = ["--config", config, "--state-dir", dir.url.appendingPathComponent("state").path]
    var said = ""
    for _ in 0..<2 {
      said += try ActionTests.watcher(["poll", "--all", "--force"] + arguments, environment: ActionTests.noBus).1
    }
    #expect(!said.contains("--force polls it anyway"), "\(said)")
  }
}

extension FirstWeekTests {
  @Test("a digest's new at: counts at once: the digest goes out at the new time, not after the old one")
  func digestNewTime() throws {
    let dir = try TemporaryDirectory()
    let feed = try ActionTests.feedFile(in: dir, titles: ["one"])
    let config = dir.url.appendingPathComponent("rules.yaml").path
    func write(at time: String) throws {
      try """
      settings: { first_poll: all, max_age: none }
      feeds:
        - { url: \(feed), name: f }
      rules:
        - { name: evening, match: { title: one }, digest: { every: 1d, at: "\(time)" } }
      """.write(toFile: config, atomically: true, encoding: .utf8)
    }
    var environment = ActionTests.noBus
    environment["TZ"] = "UTC"
    let offset = try #require(DateParser.parse("2026-03-10T09:00:00Z")).timeIntervalSinceNow
    environment["WATCHER_CLOCK_OFFSET"] = "\(Int(offset.rounded()))"
    let arguments = ["--config", config, "--state-dir", dir.url.appendingPathComponent("state").path]
    try write(at: "18:00")
    _ = try ActionTests.watcher(["poll"] + arguments, environment: environment)
    func due() throws -> String {
      try ChildProcess.run(
        try #require(BinaryTests.binary), ["pending", "--json"] + arguments, environment: environment
      )
      .output
    }
    let first = try due()
    #expect(first.contains("\"due\":\"2026-03-10T18:00:00Z\""), "\(first)")
    // Moved earlier in the day: today at 12:00; moved to the morning: tomorrow at 08:00.
    try write(at: "12:00")
    let noon = try due()
    #expect(noon.contains("\"due\":\"2026-03-10T12:00:00Z\""), "\(noon)")
    try write(at: "08:00")
    let morning = try due()
    #expect(morning.contains("\"due\":\"2026-03-11T08:00:00Z\""), "\(morning)")
    // The old time passes and nothing goes out; the new one comes and the digest does.
    func poll(at time: String) throws {
      let offset = try #require(DateParser.parse(time)).timeIntervalSinceNow
      environment["WATCHER_CLOCK_OFFSET"] = "\(Int(offset.rounded()))"
      _ = try ActionTests.watcher(["poll"] + arguments, environment: environment)
    }
    try poll(at: "2026-03-10T18:30:00Z")
    let evening = try due()
    #expect(evening.contains("\"due\":\"2026-03-11T08:00:00Z\""), "\(evening)")
    try poll(at: "2026-03-11T08:05:00Z")
    let sent = try due()
    #expect(sent.contains("\"digests\":[]"), "\(sent)")
  }
}

extension FirstWeekTests {
  @Test("on_update added to a rule sees an edit made before its first poll")
  func editBeforeOnUpdate() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    func rules(onUpdate: Bool) throws {
      try """
      settings: { first_poll: all, max_age: none }
      feeds:
        - { url: \(feed), name: f }
      rules:
        - { name: notes, match: { title: notes }, hook: 'true', on_update: \(onUpdate) }
      """.write(toFile: config, atomically: true, encoding: .utf8)
    }
    let arguments = ["--config", config, "--state-dir", dir.url.appendingPathComponent("state").path]
    func write(_ titles: [String]) throws {
      try
        ("<rss version=\"2.0\"><channel><title>F</title>"
        + titles.enumerated().map { "<item><title>\($1)</title><guid>g\($0)</guid></item>" }.joined()
        + "</channel></rss>").write(toFile: feed, atomically: true, encoding: .utf8)
    }
    try rules(onUpdate: false)
    try write(["Notes 1", "Notes 2"])
    _ = try ActionTests.watcher(["poll"] + arguments, environment: ActionTests.noBus)
    // The post is edited; then the user turns on_update on; then the poll.
    try write(["Notes 1", "Notes 2 (fixed)"])
    try rules(onUpdate: true)
    var later = ActionTests.noBus
    later["WATCHER_CLOCK_OFFSET"] = "3600"
    let (status, output) = try ActionTests.watcher(["poll"] + arguments, environment: later)
    #expect(status == 0, "\(output)")
    let log = try ActionTests.watcher(["log"] + arguments, environment: later).1
    #expect(log.contains("\"Notes 2 (fixed)\"  item: updated, not new"), "\(output)\n\(log)")
  }

  @Test("on_update added after a silent first poll takes no unedited item for an edit")
  func noEditAfterSilentFirstPoll() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    func write(rules onUpdate: Bool, items: [String]) throws {
      try """
      settings: { first_poll: silent, max_age: none }
      feeds:
        - { url: \(feed), name: f }
      rules:
        - { name: notes, match: { title: notes }, hook: 'true', on_update: \(onUpdate) }
      """.write(toFile: config, atomically: true, encoding: .utf8)
      try
        ("<rss version=\"2.0\"><channel><title>F</title>"
        + items.map { "<item><title>\($0)</title><guid>\($0)</guid><description>about \($0)</description></item>" }
        .joined() + "</channel></rss>").write(toFile: feed, atomically: true, encoding: .utf8)
    }
    let arguments = ["--config", config, "--state-dir", dir.url.appendingPathComponent("state").path]
    try write(rules: false, items: ["Notes 1", "Notes 2"])
    _ = try ActionTests.watcher(["poll"] + arguments, environment: ActionTests.noBus)
    // A new post, and on_update turned on: the two old posts are unchanged.
    try write(rules: true, items: ["Notes 3", "Notes 1", "Notes 2"])
    var later = ActionTests.noBus
    later["WATCHER_CLOCK_OFFSET"] = "3600"
    let (status, output) = try ActionTests.watcher(["poll"] + arguments, environment: later)
    #expect(status == 0 && output.contains("f: 1 new: 1 hook\n"), "\(output)")
    #expect(!output.contains("updated"), "\(output)")
  }
}

extension FirstWeekTests {
  @Test("a feed whose ids all change on every fetch is told once a day as news of the feed, not once a poll")
  func rekeyToldOnce() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: \(feed), name: f, identity: guid }
    rules:
      - { name: all, match: { title: post }, notify: true }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let arguments = ["--config", config, "--state-dir", dir.url.appendingPathComponent("state").path]
    var told = 0
    for fetch in 0..<4 {
      try
        ("<rss version=\"2.0\"><channel><title>F</title>"
        + (1...8).map {
          "<item><title>Post \($0)</title><guid>\(fetch)-\($0)</guid><link>https://e.org/\($0)</link></item>"
        }
        .joined() + "</channel></rss>").write(toFile: feed, atomically: true, encoding: .utf8)
      var environment = ActionTests.noBus
      // Each poll an hour after the one before; the last a day after the second.
      environment["WATCHER_CLOCK_OFFSET"] = "\([0, 3_600, 7_200, 3_600 + 86_400][fetch])"
      let output = try ActionTests.watcher(["poll"] + arguments, environment: environment).1
      if fetch > 0 { #expect(output.contains("changed its item ids"), "\(output)") }
      let log = try ActionTests.watcher(["log"] + arguments, environment: environment).1
      told = log.components(separatedBy: "\"feed health: rekeyed\"  notify: not shown").count - 1
      #expect(told == [0, 1, 1, 2][fetch], "fetch \(fetch): \(log)")
    }
  }
}
