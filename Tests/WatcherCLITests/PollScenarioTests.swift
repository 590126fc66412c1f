// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherCLI
import WatcherTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The built `watcher poll` against a loopback server that misbehaves in every way the spec lists; the
/// requests it received and the state afterwards are checked.
@Suite("watcher poll against a misbehaving server", .serialized)
struct PollScenarioTests {
  static func feed(_ title: String, guids: [String?] = ["1", "2"]) -> String {
    var xml = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(title)</title>"
    for (index, guid) in guids.enumerated() {
      xml += "<item><title>\(title) \(index)</title>" + (guid.map { "<guid>\($0)</guid>" } ?? "") + "</item>"
    }
    return xml + "</channel></rss>"
  }

  static let scenarios: [String: @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response] = [
    "ok": { request in
      request.headers["if-none-match"] == "\"e1\""
        ? .init(status: 304)
        : .ok(feed("ok"), headers: [("ETag", "\"e1\""), ("Last-Modified", "Sat, 28 Nov 2026 10:00:00 GMT")])
    },
    "gzip": { request in
      // Content-Encoding: gzip, which libcurl asks for and decodes.
      let body = (try? Data(contentsOf: Fixtures.url("http/gzipped-feed.xml.gz", target: "WatcherCLITests"))) ?? Data()
      return .init(status: 200, headers: [("Content-Encoding", "gzip")], body: body)
    },
    "moved": { _ in .init(status: 301, headers: [("Location", "/ok-moved")]) },
    "ok-moved": { _ in .ok(feed("moved")) },
    "temporary": { _ in .init(status: 302, headers: [("Location", "/ok-moved")]) },
    "loop": { _ in .init(status: 302, headers: [("Location", "/loop")]) },
    "404": { _ in .init(status: 404) },
    "410": { _ in .init(status: 410) },
    "429": { _ in .init(status: 429, headers: [("Retry-After", "7200")]) },
    "500": { _ in .init(status: 500) },
    "slow": { _ in .init(status: 200, body: Data(feed("slow").utf8), trickle: 4, trickleDelay: 0.6) },
    "silent": { _ in .init(silent: true) },
    "truncated": { _ in .init(status: 200, body: Data(feed("truncated").utf8), truncateAt: 30) },
    "huge": { _ in .init(status: 200, body: Data(repeating: 32, count: 3_000_000)) },
    "html": { _ in .ok("<!DOCTYPE html><html><body>Hello</body></html>") },
    "empty": { _ in .ok("") },
    "noguid": { _ in .ok(feed("noguid", guids: [nil, nil, "x", "x"])) },
  ]

  @Test("every scenario ends with the right state; validators are sent; Retry-After is honoured")
  func scenariosEndToEnd() throws {
    let binary = try #require(BinaryTests.binary)
    let server = try LoopbackHTTPServer { request in
      let name = String(request.path.dropFirst())
      return Self.scenarios[name]?(request) ?? .init(status: 404)
    }
    defer { server.stop() }
    // The server that answers 429 is a server of its own: a 429 holds every feed of its server.
    let throttled = try LoopbackHTTPServer { request in Self.scenarios["429"]?(request) ?? .init(status: 404) }
    defer { throttled.stop() }
    func url(_ name: String) -> String { name == "429" ? throttled.url("/429") : server.url("/" + name) }
    let dir = try TemporaryDirectory()
    var config =
      "settings:\n  timeout: 2s\n  max_size: 1MB\n  interval: 1s\n  first_poll: all\n  max_age: none\nfeeds:\n"
    let names = Self.scenarios.keys.filter { $0 != "ok-moved" }.sorted()
    for name in names { config += "  - { url: '\(url(name))', name: \(name) }\n" }
    config += "rules:\n  - { name: all, match: { title: '' }, notify: true }\n"
    let configPath = dir.url.appendingPathComponent("rules.yaml").path
    try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    let stateDir = dir.url.appendingPathComponent("state").path

    func poll() throws -> (Int32, String) {
      let result = try ChildProcess.run(binary, ["poll", "--config", configPath, "--state-dir", stateDir])
      return (result.status, result.errors)
    }
    func state(_ name: String) throws -> [String: Any] {
      let file = try FileManager.default.contentsOfDirectory(atPath: stateDir).first { candidate in
        guard candidate.hasSuffix(".json"),
          let data = FileManager.default.contents(atPath: stateDir + "/" + candidate),
          let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return false }
        return object["url"] as? String == url(name)
      }
      let name = try #require(file)
      let data = try #require(FileManager.default.contents(atPath: stateDir + "/" + name))
      return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    let (code, errors) = try poll()
    #expect(code == 1, "a poll with failing feeds exits 1")
    for failing in ["404", "410", "429", "500", "loop", "slow", "silent", "truncated", "huge", "html", "empty"] {
      #expect(
        errors.contains("error: feed '\(failing)' (\(url(failing)))"), "no error line for \(failing)")
      #expect(try state(failing)["consecutive_failures"] as? Int == 1, "\(failing)")
    }
    #expect(errors.components(separatedBy: "error: feed 'huge'").count == 2, "each failure is reported once")
    #expect((try state("404")["last_error"] as? String) == "HTTP 404")
    #expect((try state("huge")["last_error"] as? String)?.contains("larger than") == true)
    #expect((try state("html")["last_error"] as? String)?.contains("HTML page") == true)
    #expect((try state("slow")["last_error"] as? String)?.contains("within 2 s") == true)
    #expect((try state("429")["last_error"] as? String)?.contains("7200") == true)
    #expect(try state("moved")["moved_to"] as? String == server.url("/ok-moved"))
    #expect(try state("temporary")["moved_to"] == nil)
    #expect((try state("ok")["items"] as? [String: Any])?.count == 2)
    #expect((try state("gzip")["items"] as? [String: Any])?.keys.sorted() == ["z1"])
    #expect((try state("noguid")["items"] as? [String: Any])?.count == 4)
    #expect(try state("ok")["etag"] as? String == "\"e1\"")

    // Second pass, after the interval: validators sent, 304 handled, no request before Retry-After, no
    // re-alert for items without or with duplicate guids.
    let before = server.requests.count
    sleep(2)
    let (_, secondErrors) = try poll()
    let second = server.requests[before...]
    #expect(second.first { $0.path == "/ok" }?.headers["if-none-match"] == "\"e1\"")
    #expect(second.first { $0.path == "/ok" }?.headers["if-modified-since"] == "Sat, 28 Nov 2026 10:00:00 GMT")
    #expect(!throttled.requests.dropFirst().contains { $0.path == "/429" }, "requested again before Retry-After")
    #expect((try state("noguid")["items"] as? [String: Any])?.count == 4)
    #expect(!secondErrors.contains("feed 'noguid': 4 items, 4 new"))
    let status = try ChildProcess.run(binary, ["status", "--config", configPath, "--state-dir", stateDir]).errors
    #expect(
      status.contains("feed 'moved' moved permanently to \(server.url("/ok-moved")): change its url in the config"))
  }
}

@Suite("progress line")
struct ProgressTests {
  /// Runs `catch-up` in-process over three loopback feeds (one 404) with stderr a terminal or not.
  func catchUp(errorsIsTerminal: Bool, status: [String: String]? = nil) throws -> (Int32, String) {
    let server = try LoopbackHTTPServer { request in
      request.path == "/missing" ? .init(status: 404) : .ok(PollScenarioTests.feed(request.path))
    }
    let dir = try TemporaryDirectory()
    var config = "feeds:\n"
    for path in ["/a", "/missing", "/b"] { config += "  - url: '\(server.url(path))'\n" }
    let configPath = dir.url.appendingPathComponent("rules.yaml").path
    try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    let recording = TerminalRecording()
    let terminal = Terminal(
      output: { recording.writeOutput($0) }, errors: { recording.writeErrors($0) }, errorsIsTerminal: errorsIsTerminal)
    let arguments = ["catch-up", "--config", configPath, "--state-dir", dir.url.appendingPathComponent("s").path]
    let code = WatcherCLI.run(arguments, terminal: terminal)
    guard let status else { return (code, recording.errors + recording.output) }
    // Then `status` with standard output a terminal and `status` as the environment.
    let table = TerminalRecording()
    let statusTerminal = Terminal(
      output: { table.writeOutput($0) }, errors: { table.writeErrors($0) }, environment: status,
      outputIsTerminal: true)
    let statusArguments = ["status", "--config", configPath, "--state-dir", dir.url.appendingPathComponent("s").path]
    #expect(WatcherCLI.run(statusArguments, terminal: statusTerminal) == 0)
    return (code, table.output)
  }

  @Test("status on a terminal: bold header, failing feeds in red, aligned; NO_COLOR turns color off")
  func statusColors() throws {
    let (_, colored) = try catchUp(errorsIsTerminal: false, status: [:])
    let lines = colored.split(separator: "\n").map(String.init)
    #expect(lines.count == 4)
    #expect(lines[0].hasPrefix("\u{1B}[1mFEED"))
    #expect(lines.filter { $0.hasPrefix("\u{1B}[31m") }.count == 1)
    #expect(lines.first { $0.hasPrefix("\u{1B}[31m") }?.contains("missing") == true, "\(lines)")
    let (_, plain) = try catchUp(errorsIsTerminal: false, status: ["NO_COLOR": "1"])
    #expect(!plain.contains("\u{1B}"))
    // Aligned: every column starts at the same offset on every line.
    let plainLines = plain.split(separator: "\n").map(String.init)
    let column = try #require(plainLines[0].range(of: "LAST POLL")).lowerBound.utf16Offset(in: plainLines[0])
    for line in plainLines.dropFirst() {
      #expect(Array(line)[column - 2] == " " && Array(line)[column] != " ", "\(line)")
    }
    #expect(plainLines.dropFirst().allSatisfy { $0.contains("just now") })
  }

  @Test("a terminal gets one self-overwriting line (done of total, failures); a pipe gets none")
  func progress() throws {
    let (code, shown) = try catchUp(errorsIsTerminal: true)
    #expect(code == 1)
    #expect(shown.contains("\r\u{1B}[Kcatch-up: 1/3 feeds fetched"), "\(shown)")
    #expect(shown.contains("\r\u{1B}[Kcatch-up: 3/3 feeds fetched, 1 failed"), "\(shown)")
    // The line is cleared before the report, so the report starts on a clean line.
    #expect(shown.contains("1 failed\r\u{1B}[K"))
    let (pipedCode, piped) = try catchUp(errorsIsTerminal: false)
    #expect(pipedCode == 1)
    #expect(!piped.contains("\r") && !piped.contains("\u{1B}") && piped.contains("feeds polled"), "\(piped)")
  }
}
