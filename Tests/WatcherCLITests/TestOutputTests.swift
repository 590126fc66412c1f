// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport
import WatcherTestSupport

/// `watcher test-output RULE` with the built binary, Debian's apprise and a loopback receiver.
@Suite("test-output")
struct TestOutputTests {
  @Test(
    "test-output sends one test item through a rule's apprise: and webhook: and says what happened",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/apprise") || NotificationTests.inCI))
  func sends() throws {
    let status = Locked(200)
    let posts = Locked<[LoopbackHTTPServer.Request]>([])
    let receiver = try LoopbackHTTPServer { request in
      posts.withLock { $0.append(request) }
      return .init(status: status.withLock { $0 }, body: Data("{}".utf8))
    }
    defer { receiver.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    feeds: [{ url: f.xml, name: f }]
    rules:
      - name: out
        match: { title: x }
        apprise: "json://127.0.0.1:\(receiver.port)/apprise"
        webhook: "\(receiver.url("/hook"))"
      - { name: quiet, match: { title: x }, tag: [t] }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    let environment = ["PATH": "/usr/bin:/bin", "HOME": dir.url.path]
    let sent = try ChildProcess.run(binary, ["test-output", "out", "--config", config], environment: environment)
    #expect(sent.status == 0, "\(sent.errors)")
    #expect(sent.output.contains("apprise: sent") && sent.output.contains("webhook \(receiver.url("/hook")): sent"))
    let paths = Set(posts.withLock { $0 }.map(\.path))
    #expect(paths == ["/apprise", "/hook"], "\(paths)")
    status.withLock { $0 = 500 }
    let failing = try ChildProcess.run(binary, ["test-output", "out", "--config", config], environment: environment)
    #expect(failing.status == 1 && failing.errors.contains("HTTP 500"), "\(failing.errors)")
    let none = try ChildProcess.run(binary, ["test-output", "quiet", "--config", config], environment: environment)
    #expect(none.status == 64 && none.errors.contains("no apprise: and no webhook:"), "\(none.errors)")
    let typo = try ChildProcess.run(binary, ["test-output", "otu", "--config", config], environment: environment)
    #expect(typo.errors.contains("did you mean 'out'?"))
  }
}
