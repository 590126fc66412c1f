// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherActions
import WatcherConfig
import WatcherFetch
import WatcherPoll
import WatcherState
import WatcherSupport
import WatcherTestSupport

/// `apprise:` with the real `apprise` command from Debian, its json:// and ntfy:// URLs sent to a loopback
/// recorder.
@Suite("Apprise", .serialized)
struct AppriseTests {
  typealias Harness = PollerTests.Harness

  static var installed: Bool {
    HookProgram.resolve("apprise", environment: ["PATH": "/usr/local/bin:/usr/bin:/bin"]) != nil
      || ProcessInfo.processInfo.environment["CI"] == "true"
  }

  /// A recorder of POSTed JSON bodies; answers `status`.
  static func recorder(_ status: Locked<Int>) throws -> (LoopbackHTTPServer, Locked<[[String: Any]]>) {
    let bodies = Locked<[[String: Any]]>([])
    let server = try LoopbackHTTPServer { request in
      if request.method == "POST", let object = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any]
      {
        bodies.withLock { $0.append(object) }
      }
      return .init(status: status.withLock { $0 }, body: Data("{}".utf8))
    }
    return (server, bodies)
  }

  func poller(_ h: Harness) -> Poller {
    let runner = DeliveringActionRunner(
      notifier: KeptNotificationTests.SwitchableNotifier(), settings: h.config.settings,
      environment: ["PATH": "/usr/local/bin:/usr/bin:/bin"], log: { _ in })
    return Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: runner)
  }

  /// The command lines of every process of the machine that contain `text`.
  static func commandLines(containing text: String) -> [String] {
    let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return pids.filter { $0.allSatisfy(\.isNumber) }.compactMap { pid in
      guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
      let line = String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
      return line.contains(text) ? line : nil
    }
  }

  @Test(
    "Apprise gets its URLs (tokens) and the item's text on stdin: none of it is on a command line others can read",
    .enabled(if: installed, "the apprise command is not installed (CI installs it)"))
  func nothingOnCommandLines() throws {
    let seen = Locked<[String]>([])
    let received = Locked(0)
    let receiver = try LoopbackHTTPServer { _ in
      received.withLock { $0 += 1 }
      // While Apprise waits for this answer, its process and its command line are there to read.
      seen.withLock {
        $0 += Self.commandLines(containing: "tok3n-s3cret") + Self.commandLines(containing: "Titl3-text")
      }
      return .init(status: 200, body: Data("{}".utf8))
    }
    defer { receiver.stop() }
    var h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    h.config.rules = try ConfigLoader.parse(
      """
      feeds: [{ url: x, name: test }]
      rules:
        - { name: phone, match: { title: "" }, apprise: { urls: ["json://127.0.0.1:\(receiver.port)/tok3n-s3cret"] } }
      """, path: "r.yaml"
    ).rules
    h.source.items.withLock { $0 = [("a", "Titl3-text", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    let outcome = poller(h).poll(h.config.feeds, force: true, now: PollerTests.now)[0]
    #expect(outcome.apprised == 1 && outcome.failures.isEmpty, "\(outcome)")
    #expect(received.withLock { $0 } == 1)
    #expect(seen.withLock { $0 }.isEmpty, "\(seen.withLock { $0 })")
  }

  @Test(
    "items go out through apprise (json:// and ntfy:// to loopback), as arguments, never as code; a failure is retried",
    .enabled(if: installed, "the apprise command is not installed (CI installs it)"))
  func sends() throws {
    let status = Locked(200)
    let (receiver, bodies) = try Self.recorder(status)
    defer { receiver.stop() }
    var h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    let host = "127.0.0.1:\(receiver.port)"
    h.config.rules = try ConfigLoader.parse(
      """
      feeds: [{ url: x, name: test }]
      rules:
        - name: phone
          match: { title: "" }
          apprise:
            urls: ["json://\(host)/notify", "ntfy://\(host)/news"]
            title: "{feed}: {title}"
            body: "{link}"
            urgency: critical
      """, path: "r.yaml"
    ).rules
    let hostile = "$(touch /tmp/watcher-apprise-pwned) -v --help"
    h.source.items.withLock {
      $0 = [("a", hostile, "Sat, 28 Nov 2026 10:00:00 GMT"), ("b", "Two", "Sat, 28 Nov 2026 10:00:00 GMT")]
    }
    let first = poller(h).poll(h.config.feeds, force: true, now: PollerTests.now)[0]
    #expect(first.apprised == 2 && first.failures.isEmpty, "\(first)")
    let sent = bodies.withLock { $0 }
    #expect(sent.count == 4, "two items, two URLs each: \(sent)")
    let json = sent.filter { $0["version"] != nil }
    #expect(Set(json.compactMap { $0["title"] as? String }) == ["test: \(hostile)", "test: Two"])
    #expect(json.allSatisfy { $0["type"] as? String == "warning" }, "critical is Apprise's warning")
    #expect(sent.filter { $0["topic"] as? String == "news" }.count == 2)
    #expect(!FileManager.default.fileExists(atPath: "/tmp/watcher-apprise-pwned"))
    var journal = h.store.journal(limits: JournalLimits(), now: PollerTests.now).entries
    #expect(journal.count == 2 && journal.allSatisfy { $0.action == "apprise" && $0.outcome == .ok })
    // The URLs are never stored in the state.
    let stored = try String(contentsOfFile: h.store.path(for: h.config.feeds[0].url), encoding: .utf8)
    #expect(!stored.contains(host))

    // The service fails: apprise exits non-zero, the message stays pending and is retried.
    status.withLock { $0 = 500 }
    h.source.items.withLock { $0.append(("c", "Three", "Sun, 29 Nov 2026 10:00:00 GMT")) }
    let failing = poller(h).poll(h.config.feeds, force: true, now: PollerTests.now + 60)[0]
    #expect(failing.pendingLeft == 1)
    journal = h.store.journal(limits: JournalLimits(), now: PollerTests.now + 60).entries
    #expect(journal.last?.action == "apprise" && journal.last?.outcome == .retry, "\(journal)")
    status.withLock { $0 = 200 }
    _ = poller(h).retryPending(h.config.feeds, now: PollerTests.now + 7_200)
    #expect(try h.store.load(url: h.config.feeds[0].url).state.pending.isEmpty)
  }

  @Test(
    "quiet hours hold Apprise messages like notifications; they go out when quiet hours end",
    .enabled(if: installed, "the apprise command is not installed (CI installs it)"))
  func quietHours() throws {
    let status = Locked(200)
    let (receiver, bodies) = try Self.recorder(status)
    defer { receiver.stop() }
    var h = try Harness(settings: "  first_poll: all\n  notify: { quiet: \"22:00-07:00\" }")
    defer { h.server.stop() }
    h.config.rules = try ConfigLoader.parse(
      """
      feeds: [{ url: x, name: test }]
      rules:
        - { name: phone, match: { title: "" }, apprise: "json://127.0.0.1:\(receiver.port)/n" }
      """, path: "r.yaml"
    ).rules
    h.source.items.withLock { $0 = [("a", "One", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    let night = QuietHoursTests.local(23)
    _ = poller(h).poll(h.config.feeds, force: true, now: night)
    #expect(bodies.withLock { $0 }.isEmpty, "sent during quiet hours")
    let journal = h.store.journal(limits: JournalLimits(), now: night).entries
    #expect(journal.map(\.outcome) == [.held])
    _ = poller(h).retryPending(h.config.feeds, now: QuietHoursTests.local(7, 1, days: 1))
    #expect(bodies.withLock { $0 }.count == 1)
  }

  @Test(
    "a digest goes to its rule's Apprise URLs (not each item), and a feed's own apprise: sends its items",
    .enabled(if: installed, "the apprise command is not installed (CI installs it)"))
  func digestAndFeed() throws {
    let status = Locked(200)
    let (receiver, bodies) = try Self.recorder(status)
    defer { receiver.stop() }
    var h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    let url = "json://127.0.0.1:\(receiver.port)/n"
    h.config.rules = try ConfigLoader.parse(
      """
      feeds: [{ url: x, name: test }]
      rules:
        - name: morning
          match: { title: item }
          digest: { every: 1d, at: "08:00" }
          apprise: "\(url)"
      """, path: "r.yaml"
    ).rules
    h.source.items.withLock {
      $0 = [("a", "Item one", "Sat, 28 Nov 2026 10:00:00 GMT"), ("b", "Item two", "Sat, 28 Nov 2026 10:00:00 GMT")]
    }
    func pass(_ at: Date) -> Poller.Pass {
      let runner = DeliveringActionRunner(
        notifier: KeptNotificationTests.SwitchableNotifier(), settings: h.config.settings,
        environment: ["PATH": "/usr/local/bin:/usr/bin:/bin"], log: { _ in })
      return Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: runner)
        .pass(h.config.feeds, force: true, now: at)
    }
    _ = pass(QuietHoursTests.local(10))
    #expect(bodies.withLock { $0 }.isEmpty, "a digest rule's items wait for the digest")
    let morning = pass(QuietHoursTests.local(8, 1, days: 1))
    #expect(morning.digestsShown.map(\.1) == [2], "\(morning.digestProblems)")
    let sent = bodies.withLock { $0 }
    #expect(sent.count == 1 && sent.first?["title"] as? String == "Digest 'morning': 2 items", "\(sent)")
    #expect((sent.first?["message"] as? String)?.contains("test: Item two") == true)

    // A feed's own apprise: every new item of it.
    h.config.rules = []
    h.config.feeds[0].apprise = AppriseAction(urls: [url])
    h.source.items.withLock { $0.append(("c", "Three", "Sun, 29 Nov 2026 10:00:00 GMT")) }
    _ = pass(QuietHoursTests.local(9, days: 1))
    #expect(bodies.withLock { $0 }.last?["title"] as? String == "test: Three")
  }

  /// Whether Python's smtpd (a local SMTP server that prints what it gets) is there: Python 3.11 and before.
  static var smtpd: Bool {
    installed
      && (try? ChildProcess.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-W", "ignore", "-c", "import smtpd"]))?
        .status == 0
  }

  @Test(
    "mail through apprise's mailto:// reaches a local SMTP server",
    .enabled(if: smtpd, "apprise or Python's smtpd (3.11 and before) is not installed"))
  func mail() throws {
    let dir = try TemporaryDirectory()
    let received = dir.url.appendingPathComponent("mail.txt").path
    _ = FileManager.default.createFile(atPath: received, contents: nil)
    let server = Process()
    server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    server.arguments = [
      "-W", "ignore", "-u", "-c",
      "import smtpd, asyncore, sys; s = smtpd.DebuggingServer(('127.0.0.1', 0), None); "
        + "print(s.socket.getsockname()[1], flush=True); asyncore.loop()",
    ]
    let output = Pipe()
    server.standardOutput = output
    server.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: received))
    try server.run()
    defer { server.terminate() }
    let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
    let port = try #require(Int(line.trimmingCharacters(in: .whitespacesAndNewlines)))
    // What the server prints goes to the pipe from now on: read it in the background into the file.
    let reader = Thread {
      while case let data = output.fileHandleForReading.availableData, !data.isEmpty {
        if let handle = FileHandle(forWritingAtPath: received) {
          handle.seekToEndOfFile()
          handle.write(data)
          handle.closeFile()
        }
      }
    }
    reader.start()
    var h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    h.config.rules = try ConfigLoader.parse(
      """
      feeds: [{ url: x, name: test }]
      rules:
        - name: mail
          match: { title: "" }
          apprise: "mailto://127.0.0.1:\(port)?from=watcher@example.org&to=me@example.org"
      """, path: "r.yaml"
    ).rules
    h.source.items.withLock { $0 = [("a", "One", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    let outcome = poller(h).poll(h.config.feeds, force: true, now: PollerTests.now)[0]
    #expect(outcome.apprised == 1 && outcome.pendingLeft == 0, "\(outcome)")
    let deadline = ContinuousClock.now + .seconds(10)
    var mail = ""
    while ContinuousClock.now < deadline, !mail.contains("END MESSAGE") {
      usleep(100_000)
      mail = (try? String(contentsOfFile: received, encoding: .utf8)) ?? ""
    }
    #expect(mail.contains("Subject: test: One") && mail.contains("To: me@example.org"), "\(mail)")
  }

  @Test("check: apprise missing, a token in the config, a URL file others can read")
  func lint() throws {
    let dir = try TemporaryDirectory()
    let file = dir.url.appendingPathComponent("apprise.txt").path
    try "tgram://123456789:AAAAbbbbCCCCddddEEEE/42\n".write(toFile: file, atomically: true, encoding: .utf8)
    chmod(file, 0o644)
    let inline = AppriseAction(urls: ["tgram://123456789:AAAAbbbbCCCCddddEEEE/42", "json://localhost/n"])
    let noPath = AppriseLint.check(inline, environment: ["PATH": dir.url.path])
    #expect(noPath.contains { $0.severity == .error && $0.message.contains("not installed") })
    #expect(noPath.filter { $0.severity == .warning && $0.message.contains("carries its token") }.count == 1)
    let readable = AppriseLint.check(AppriseAction(urls: [], file: file), environment: [:])
    #expect(readable.contains { $0.message.contains("can be read by other users") })
    chmod(file, 0o600)
    #expect(
      !AppriseLint.check(AppriseAction(urls: [], file: file), environment: [:]).contains { $0.severity == .warning })
    #expect(
      AppriseLint.check(AppriseAction(urls: [], file: file + ".missing"), environment: [:]).contains {
        $0.message.contains("does not exist")
      })
    do {
      _ = try ConfigLoader.parse(
        "feeds: [{ url: x, name: t }]\nrules:\n  - { name: r, match: { title: a }, apprise: { title: x } }\n", path: "r"
      )
      Issue.record("an apprise action without URLs was accepted")
    } catch {
      #expect(error.rendered.contains("names no URL"))
    }
  }

  @Test("the Apprise example of docs/rules.md loads")
  func documented() throws {
    let text = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/rules.md"), encoding: .utf8)
    let section = try #require(text.components(separatedBy: "### Apprise").dropFirst().first)
    let block = try #require(
      section.components(separatedBy: "```yaml\n").dropFirst().first?.components(separatedBy: "```").first)
    let apprise = try #require(try ConfigLoader.parse(block, path: "rules.md").rules.first?.actions.apprise)
    #expect(apprise.file == "~/.config/watcher/apprise.txt" && apprise.message.urgency == .critical)
  }

  @Test("the commented Apprise and webhook examples of rules.example.yaml load once uncommented")
  func exampleFile() throws {
    let text = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("rules.example.yaml"), encoding: .utf8)
    let start = try #require(text.range(of: "  # - name: to-my-phone"))
    let rules = text[start.lowerBound...].split(separator: "\n").filter {
      $0.hasPrefix("  #   ") || $0.hasPrefix("  # -")
    }
    .map { "  " + $0.dropFirst(4) }.joined(separator: "\n")
    let config = try ConfigLoader.parse("feeds: [{ url: f.xml, name: f }]\nrules:\n" + rules + "\n", path: "example")
    #expect(config.rules.map(\.name) == ["to-my-phone", "to-my-server"])
    #expect(config.rules[0].actions.apprise?.file == "~/.config/watcher/apprise.txt")
    #expect(config.rules[1].actions.webhook?.secretFile == "~/.config/watcher/webhook.secret")
  }
}
