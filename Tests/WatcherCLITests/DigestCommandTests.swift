// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

/// `watcher digest RULE --preview | --send-now`.
@Suite("digest command")
struct DigestCommandTests {
  @Test("--preview shows what a digest collected and when it goes out; --send-now sends it at once, once")
  func previewAndSend() throws {
    let dir = try TemporaryDirectory()
    let feed = try ActionTests.feedFile(in: dir, titles: ["first story", "second story", "other"])
    let out = dir.url.appendingPathComponent("digest.json").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: \(feed), name: f }
    rules:
      - name: weekly
        match: { title: story }
        digest: { every: 1w }
        digest_hook: 'cat > \(out)'
      - { name: plain, match: { title: other }, tag: [x] }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    let binary = try #require(BinaryTests.binary)
    func watcher(_ arguments: [String]) throws -> ChildResult {
      try ChildProcess.run(
        binary, arguments + ["--config", config, "--state-dir", state], environment: ActionTests.noBus)
    }
    #expect(try watcher(["poll"]).status == 0)
    let preview = try watcher(["digest", "weekly", "--preview"])
    #expect(preview.status == 0, "\(preview.errors)")
    #expect(preview.output.hasPrefix("Digest 'weekly': 2 items, goes out at "), "\(preview.output)")
    #expect(preview.output.contains("  f: first story\n      https://example.org/0\n  f: second story"))
    #expect(!FileManager.default.fileExists(atPath: out), "a preview sends nothing")

    let sent = try watcher(["digest", "weekly", "--send-now"])
    #expect(sent.status == 0, "\(sent.errors)")
    #expect(sent.output.contains("sent the digest of rule 'weekly' (2 items)"), "\(sent.output)\(sent.errors)")
    let items = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [Any])
    #expect(items.count == 2)
    #expect(try watcher(["digest", "weekly", "--preview"]).output.contains("is empty"))
    #expect(try watcher(["digest", "weekly", "--send-now"]).output.contains("is empty: nothing to send"))

    for (arguments, message) in [
      (["digest", "weekly"], "needs one of --preview"),
      (["digest", "plain", "--preview"], "the rule 'plain' has no digest"),
      (["digest", "weekyl", "--preview"], "did you mean 'weekly'?"),
    ] {
      let refused = try watcher(arguments)
      #expect(refused.status == 64 && refused.errors.contains(message), "\(arguments): \(refused.errors)")
    }
  }
}
