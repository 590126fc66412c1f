// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport
import WatcherTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A real `watcher run` with a config edited on disk, real clients beside it, real signals, and systemd's
/// notify socket.
@Suite("the daemon, live", .serialized)
struct LiveDaemonTests {
  /// A daemon over `feeds` feed files of two items each, its log in a file; stopped when the test ends.
  final class Running {
    let dir: TemporaryDirectory
    let config: String
    let state: String
    let logPath: String
    let process: Process
    let environment: [String: String]

    init(
      rules: String = "  - { name: r, match: { title: release }, hook: 'true' }\n",
      environment extra: [String: String] = [:]
    )
      throws
    {
      (dir, config) = try DaemonTests.setUp(feeds: 2, items: 2)
      let text = try String(contentsOfFile: config, encoding: .utf8)
      try text.replacingOccurrences(
        of: "rules:\n  - { name: r, match: { title: release }, hook: 'true' }\n", with: "rules:\n" + rules
      ).write(toFile: config, atomically: true, encoding: .utf8)
      state = dir.url.appendingPathComponent("state").path
      logPath = dir.url.appendingPathComponent("daemon.log").path
      _ = FileManager.default.createFile(atPath: logPath, contents: nil)
      var environment = ProcessInfo.processInfo.environment
      environment["XDG_RUNTIME_DIR"] = dir.url.appendingPathComponent("run").path
      mkdir(dir.url.appendingPathComponent("run").path, 0o700)
      environment["DBUS_SESSION_BUS_ADDRESS"] = nil
      for (name, value) in extra { environment[name] = value }
      self.environment = environment
      process = Process()
      process.executableURL = BinaryTests.binary
      process.arguments = ["run", "--config", config, "--state-dir", state]
      process.environment = environment
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle(forWritingAtPath: logPath)
      try process.run()
      #expect(waitFor("watching 2 feeds") && waitFor("f1: 2 new"), "the daemon did not start: \(log)")
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Waits (up to 10 s) until the log contains `text`.
    func waitFor(_ text: String, count: Int = 1) -> Bool {
      let deadline = ContinuousClock.now + .seconds(10)
      while ContinuousClock.now < deadline {
        if log.components(separatedBy: text).count - 1 >= count { return true }
        usleep(20_000)
      }
      return false
    }

    func watcher(_ arguments: [String], config: String? = nil) throws -> ChildResult {
      try ChildProcess.run(
        try #require(BinaryTests.binary),
        arguments + ["--config", config ?? self.config, "--state-dir", state], environment: environment)
    }

    /// Rewrites the config as an editor does: a new file renamed over the old one.
    func edit(_ change: (String) -> String) throws {
      let text = try String(contentsOfFile: config, encoding: .utf8)
      try change(text).write(toFile: config, atomically: true, encoding: .utf8)
    }

    func stop() -> Int32 {
      kill(process.processIdentifier, SIGTERM)
      _ = DaemonTests.wait(process, seconds: 10)
      return process.isRunning ? -1 : process.terminationStatus
    }
  }

  @Test(
    "an edit on disk is live: a poll handed to the daemon runs the new hook, as poll --dry-run says; a broken edit keeps the old config, logged once and said by status and every handed-over command"
  )
  func liveConfig() throws {
    let daemon = try Running()
    let out = daemon.dir.url.appendingPathComponent("new-hook.txt").path
    try daemon.edit {
      $0 + "  - { name: added, match: { title: release }, hook: 'echo \"$WATCHER_TITLE\" >> \(out)' }\n"
    }
    #expect(daemon.waitFor("(the file changed): 2 feeds, 2 rules"), "\(daemon.log)")
    // New items in f0: the dry run and the pass handed to the daemon agree.
    let feed = daemon.dir.url.appendingPathComponent("feed0.xml").path
    try String(contentsOfFile: feed, encoding: .utf8).replacingOccurrences(
      of: "</channel>", with: "<item><title>Item 0-9 release</title><guid>g0-9</guid></item></channel>"
    ).write(toFile: feed, atomically: true, encoding: .utf8)
    let dry = try daemon.watcher(["poll", "--dry-run", "--feed", "f0"])
    #expect(dry.output.contains("would run the hook of rule 'added' for \"Item 0-9 release\""), "\(dry.output)")
    let poll = try daemon.watcher(["poll", "--feed", "f0"])
    #expect(poll.status == 0 && poll.output.contains("1 new item, 2 actions"), "\(poll.output)")
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "Item 0-9 release\n")
    // The daemon's log tells the story of the handed-over pass too.
    #expect(daemon.waitFor("f0  \"Item 0-9 release\"  hook (rule 'added'): exit 0"), "\(daemon.log)")

    // A broken edit: the old config keeps running; its errors are logged once, however often the file is touched.
    try daemon.edit { $0 + "  - { bogus: 1 }\n" }
    #expect(daemon.waitFor("unknown key 'bogus'"), "\(daemon.log)")
    kill(daemon.process.processIdentifier, SIGHUP)
    try daemon.edit { $0 }
    // Every command that reads the file says what is wrong with it, and what the daemon runs meanwhile.
    let pid = daemon.process.processIdentifier
    for command in [["poll"], ["pending", "--retry"]] {
      let said = try daemon.watcher(command)
      #expect(said.status == 78, "\(command)")
      #expect(
        said.errors.contains("unknown key 'bogus'")
          && said.errors.contains("note: the daemon (pid \(pid)) runs the config loaded at "),
        "\(command): \(said.errors)")
    }
    // A command that only reads goes on, with the config the daemon runs, and says so.
    let status = try daemon.watcher(["status"])
    #expect(status.status == 0, "\(status.errors)")
    #expect(
      status.errors.contains("unknown key 'bogus'")
        && status.errors.contains("uses the config the daemon (pid \(pid)) runs"), "\(status.errors)")
    #expect(
      daemon.log.components(separatedBy: "unknown key 'bogus'").count == 2, "logged more than once: \(daemon.log)")
    let reload = try daemon.watcher(["reload"])
    #expect(reload.status == 78 && reload.errors.contains("the file has errors"), "\(reload.errors)")
    // Fixed: reloaded, and `watcher reload` says what runs.
    try daemon.edit { $0.replacingOccurrences(of: "  - { bogus: 1 }\n", with: "") }
    #expect(daemon.waitFor("(the file changed): 2 feeds, 2 rules", count: 2), "\(daemon.log)")
    let fixed = try daemon.watcher(["reload"])
    #expect(fixed.status == 0 && fixed.output.contains("2 feeds, 2 rules"), "\(fixed.errors)")
    #expect(daemon.stop() == 0)
  }

  @Test("a daemon whose state directory is removed says so and stops with 75, instead of polling in a loop")
  func stateDirectoryRemoved() throws {
    let daemon = try Running()
    try FileManager.default.removeItem(atPath: daemon.state)
    // Any turn of its loop notices (here a SIGHUP's reload).
    kill(daemon.process.processIdentifier, SIGHUP)
    // Its exit first, then what it said: on a loaded machine the two can come more than ten seconds late.
    #expect(DaemonTests.wait(daemon.process, seconds: 30) && daemon.process.terminationStatus == 75, "\(daemon.log)")
    #expect(daemon.waitFor("error: the state directory \(daemon.state): it was removed while the daemon ran; stopping"))
  }

  @Test("digest --send-now beside the daemon is done by the daemon; --preview reads the state itself")
  func digestBesideTheDaemon() throws {
    let daemon = try Running(
      rules: "  - { name: d, match: { title: release }, digest: { every: 1w }, digest_hook: 'cat > /dev/null' }\n")
    let preview = try daemon.watcher(["digest", "d", "--preview"])
    #expect(preview.status == 0 && preview.output.hasPrefix("Digest 'd': "), "\(preview.output)\(preview.errors)")
    let sent = try daemon.watcher(["digest", "d", "--send-now"])
    #expect(sent.status == 0 && sent.output.contains("sent the digest of rule 'd'"), "\(sent.output)\(sent.errors)")
    #expect(daemon.waitFor("'watcher digest --send-now' asked to send the digest of rule 'd'"), "\(daemon.log)")
    // The log says what the digest's actions did, as it does for items.
    #expect(daemon.waitFor("\"digest of rule 'd'\"  notify (rule 'd'): "), "\(daemon.log)")
    #expect(try daemon.watcher(["digest", "d", "--preview"]).output.contains("is empty"))
    #expect(daemon.stop() == 0)
  }

  @Test(
    "every command works beside the daemon: another config is refused, pending --retry/--drop, poll --all, add and remove reload it, a second run names it"
  )
  func besideTheDaemon() throws {
    let daemon = try Running(rules: "  - { name: r, match: { title: release }, hook: 'exit 3' }\n")
    let other = daemon.dir.url.appendingPathComponent("other.yaml").path
    try "feeds: []\n".write(toFile: other, atomically: true, encoding: .utf8)
    let refused = try daemon.watcher(["catch-up"], config: other)
    #expect(
      refused.status == 64 && refused.errors.contains("runs the config") && refused.errors.contains("not \(other)"),
      "\(refused.errors)")
    #expect(try daemon.watcher(["pending"]).output.contains("4 pending"))
    let retried = try daemon.watcher(["pending", "--retry", "g0-0"])
    #expect(retried.output.contains("retried the pending actions of 1 feed: 2 still pending"), "\(retried.errors)")
    // The daemon's log says what each retry did, as it does for a pass's own actions.
    #expect(daemon.waitFor("hook (rule 'r'): failed, will retry (attempt 2)"), "\(daemon.log)")
    let dropped = try daemon.watcher(["pending", "--drop"])
    #expect(dropped.status == 0 && dropped.output.contains("dropped 4 pending actions"), "\(dropped.errors)")
    #expect(try daemon.watcher(["pending"]).output.contains("no pending actions"))
    let all = try daemon.watcher(["poll", "--all"])
    #expect(all.status == 0 && all.output.contains("poll: 2 of 2 feeds polled"), "\(all.output)")
    #expect(daemon.waitFor("'watcher poll' asked for a pass of every feed"))
    let second = try daemon.watcher(["run"])
    #expect(second.status == 75)
    #expect(
      second.errors.contains("a watcher daemon already runs (pid \(daemon.process.processIdentifier), config "),
      "\(second.errors)")
    // add and remove: the daemon reloads at once and watches (or stops watching) the feed.
    let feed = daemon.dir.url.appendingPathComponent("feed1.xml").path
    let copy = daemon.dir.url.appendingPathComponent("feed9.xml").path
    try FileManager.default.copyItem(atPath: feed, toPath: copy)
    let added = try ChildProcess.run(
      try #require(BinaryTests.binary), ["add", copy, "--name", "f9", "--config", daemon.config],
      environment: daemon.environment.merging(["XDG_STATE_HOME": daemon.dir.url.path]) { $1 })
    #expect(added.status == 0, "\(added.errors)")
    #expect(daemon.waitFor("3 feeds, 1 rules"), "\(daemon.log)")
    let removed = try daemon.watcher(["remove", "f9", "--purge"])
    #expect(removed.status == 0 && removed.output.contains("deleted its state"), "\(removed.errors) \(removed.output)")
    #expect(daemon.waitFor("'watcher remove --purge' asked to delete the state"), "\(daemon.log)")
    #expect(daemon.stop() == 0)
  }

  @Test("suggest --apply writes a rule the running daemon picks up at once")
  func suggestionReachesTheDaemon() throws {
    let daemon = try Running()
    var lines: [String] = []
    for n in 0..<10 {
      let (category, label) = n < 4 ? ("liked", 1) : ("other", 0)
      lines.append(
        #"{"id":"s\#(n)","title":"Story \#(n)","text":"","author":"","link":"","feed":"f0","categories":["\#(category)"],"label":\#(label)}"#
      )
    }
    _ = try ChildProcess.run(
      try #require(BinaryTests.binary), ["score", "--jsonl", "--state-dir", daemon.state],
      stdin: Data(lines.joined(separator: "\n").utf8))
    let listed = try daemon.watcher(["suggest"])
    #expect(listed.output.contains("notify on category 'liked': 4 of 4 liked"), "\(listed.output)")
    let number = try #require(
      listed.output.split(separator: "\n").first { $0.contains("category 'liked'") }?.split(separator: ".").first)
    let applied = try daemon.watcher(["suggest", "--apply", String(number)])
    #expect(applied.status == 0, "\(applied.errors)")
    #expect(daemon.waitFor("2 feeds, 2 rules"), "\(daemon.log)")
    #expect(daemon.stop() == 0)
  }

  @Test(
    "the socket never blocks the daemon: a silent client and one that never reads are dropped, others are served, SIGTERM is honoured; a waiting client honours SIGINT"
  )
  func socketNeverBlocks() throws {
    let daemon = try Running(rules: "  - { name: slow, match: { title: slow }, hook: 'sleep 3' }\n")
    let socket = try DaemonSocketPath.of(daemon)
    // A client that connects and says nothing, and one that asks for a pass and never reads its answer.
    let silent = try Self.connect(socket)
    defer { close(silent) }
    let greedy = try Self.connect(socket)
    defer { close(greedy) }
    var small: Int32 = 1
    setsockopt(greedy, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
    let request = Array("{\"command\":\"poll\",\"feeds\":[],\"force\":false}\n".utf8)
    _ = request.withUnsafeBytes { send(greedy, $0.baseAddress, $0.count, 0) }
    let started = Date()
    let served = try daemon.watcher(["poll", "--feed", "f0"])
    #expect(served.status == 0 && served.output.contains("poll: 1 of 1 feeds polled"), "\(served.output)")
    #expect(Date().timeIntervalSince(started) < 4, "another client held this one (a serial accept loop holds it 5 s)")

    // A waiting client (its pass runs a hook of 3 s) stops at SIGINT, and says the daemon goes on.
    let feed = daemon.dir.url.appendingPathComponent("feed1.xml").path
    try String(contentsOfFile: feed, encoding: .utf8).replacingOccurrences(
      of: "</channel>", with: "<item><title>slow one</title><guid>s1</guid></item></channel>"
    ).write(toFile: feed, atomically: true, encoding: .utf8)
    let client = Process()
    client.executableURL = BinaryTests.binary
    client.arguments = ["poll", "--feed", "f1", "--config", daemon.config, "--state-dir", daemon.state]
    client.environment = daemon.environment
    let errors = Pipe()
    client.standardError = errors
    client.standardOutput = FileHandle.nullDevice
    try client.run()
    #expect(daemon.waitFor("'watcher poll' asked for a pass of f1"))
    usleep(200_000)
    kill(client.processIdentifier, SIGINT)
    #expect(DaemonTests.wait(client, seconds: 2), "the waiting client ignored SIGINT")
    #expect(client.terminationStatus == 130)
    let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(said.contains("poll: interrupted; the daemon finishes the pass"), "\(said)")
    #expect(daemon.waitFor("hook (rule 'slow'): exit 0"), "\(daemon.log)")
    #expect(daemon.stop() == 0, "SIGTERM was not honoured with a client that does not read")
  }

  @Test("the socket's name is the same however the state directory is spelled (a trailing slash, a symlink)")
  func socketName() throws {
    let daemon = try Running()
    let link = daemon.dir.url.appendingPathComponent("link").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: daemon.state)
    for spelling in [daemon.state + "/", link, link + "/./"] {
      let asked = try ChildProcess.run(
        try #require(BinaryTests.binary), ["poll", "--config", daemon.config, "--state-dir", spelling],
        environment: daemon.environment)
      #expect(asked.status == 0 && asked.output.contains("poll: 0 of 2 feeds polled"), "\(spelling): \(asked.output)")
    }
    #expect(daemon.log.components(separatedBy: "'watcher poll' asked for a pass").count == 4, "\(daemon.log)")
    #expect(daemon.stop() == 0)
  }

  @Test(
    "systemd's notify protocol: READY=1 once scheduled, STATUS= with feeds, failing and next poll, WATCHDOG=1 from the loop, RELOADING=1 then READY=1 around a reload"
  )
  func notifyProtocol() throws {
    let listener = try NotifyListener()
    let received = listener.received
    let daemon = try Running(environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "400000"])
    func eventually(_ condition: () -> Bool) -> Bool {
      let deadline = ContinuousClock.now + .seconds(10)
      while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(20_000)
      }
      return false
    }
    func saw(_ test: @escaping (String) -> Bool) -> Bool {
      eventually { received.withLock { $0.contains(where: test) } }
    }
    #expect(saw { $0.hasPrefix("READY=1\nSTATUS=2 feeds, 0 failing, next poll ") }, "\(received.withLock { $0 })")
    #expect(saw { $0.hasPrefix("STATUS=2 feeds, 0 failing, next poll ") })
    // The watchdog is pinged at least every half WATCHDOG_USEC, with nothing to do.
    let pings = received.withLock { $0.filter { $0 == "WATCHDOG=1" }.count }
    usleep(1_000_000)
    #expect(received.withLock { $0.filter { $0 == "WATCHDOG=1" }.count } >= pings + 3)
    let before = received.withLock { $0.count }
    kill(daemon.process.processIdentifier, SIGHUP)
    #expect(saw { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") })
    #expect(daemon.waitFor("reloaded"))
    // READY=1 follows the reload's log line (and the datagram takes its time): waited for, in order.
    func readyAfterReloading() -> Bool {
      let after = received.withLock { Array($0.dropFirst(before)) }
      guard let reloading = after.firstIndex(where: { $0.hasPrefix("RELOADING=1") }),
        let ready = after.lastIndex(of: "READY=1")
      else { return false }
      return reloading < ready
    }
    #expect(eventually(readyAfterReloading), "\(received.withLock { Array($0.dropFirst(before)) })")
    #expect(daemon.stop() == 0)
    #expect(saw { $0 == "STOPPING=1" })
  }

  @Test("the watchdog is fed while hooks run: a batch of hooks longer than WatchdogSec is not taken for a hang")
  func watchdogDuringHooks() throws {
    let listener = try NotifyListener()
    // Four hooks of 1.5 s each against a watchdog of 0.4 s (pinged every 0.2 s).
    let daemon = try Running(
      rules: "  - { name: r, match: { title: release }, hook: 'sleep 1.5' }\n",
      environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "400000"])
    #expect(listener.received.withLock { $0.filter { $0 == "WATCHDOG=1" }.count } >= 5)
    #expect(listener.longestWatchdogGap < 1.0, "\(listener.longestWatchdogGap) s without a ping")
    #expect(daemon.stop() == 0)
  }

  static func connect(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    try #require(connected == 0, "cannot connect to \(path)")
    return fd
  }
}

/// The daemon's socket: the one socket in `$XDG_RUNTIME_DIR/watcher/`.
enum DaemonSocketPath {
  static func of(_ daemon: LiveDaemonTests.Running) throws -> String {
    let directory = (daemon.environment["XDG_RUNTIME_DIR"] ?? "") + "/watcher"
    let sockets = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".sock") }
    try #require(sockets.count == 1, "\(sockets)")
    return directory + "/" + sockets[0]
  }
}

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`: what it receives, and when.
final class NotifyListener {
  let dir: TemporaryDirectory
  let path: String
  let fd: Int32
  let received = Locked<[String]>([])
  let times = Locked<[(String, Date)]>([])
  private let reading = Locked(true)

  init() throws {
    dir = try TemporaryDirectory()
    path = dir.url.appendingPathComponent("notify.sock").path
    fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    try #require(bound == 0)
    var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let (socketFD, received, times, reading) = (fd, received, times, reading)
    let reader = Thread {
      var buffer = [UInt8](repeating: 0, count: 4_096)
      while reading.withLock({ $0 }) {
        let count = buffer.withUnsafeMutableBytes { recv(socketFD, $0.baseAddress, $0.count, 0) }
        if count > 0 {
          let message = String(decoding: buffer[..<count], as: UTF8.self)
          received.withLock { $0.append(message) }
          times.withLock { $0.append((message, Date())) }
        }
      }
    }
    reader.start()
  }

  deinit {
    reading.withLock { $0 = false }
    usleep(250_000)
    close(fd)
  }

  /// The longest time between two `WATCHDOG=1` received so far.
  var longestWatchdogGap: TimeInterval {
    let pings = times.withLock { $0.filter { $0.0 == "WATCHDOG=1" }.map(\.1) }
    return zip(pings, pings.dropFirst()).map { $1.timeIntervalSince($0) }.max() ?? 0
  }
}
