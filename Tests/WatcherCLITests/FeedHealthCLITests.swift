// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherTestSupport

/// What `status`, `check`, `poll` and `add` say about schedules, feed health and private feeds.
@Suite("Schedules, feed health and private feeds on the command line")
struct FeedHealthCLITests {
  static let feed = """
    <?xml version="1.0"?><rss version="2.0"><channel><title>t</title><ttl>240</ttl>
    <item><guid>a</guid><title>A</title><pubDate>Sun, 29 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>
    """

  @Test("status says when each feed is next due and why, and what is wrong with a sick one")
  func statusSaysWhy() throws {
    let server = try LoopbackHTTPServer { request in
      switch request.path {
      case "/feed": return .ok(Self.feed)
      default:
        return .init(
          status: 503, body: Data("<html><head><title>Just a moment...</title></head><body>cf-chl</body></html>".utf8))
      }
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { interval: auto }
    feeds:
      - { url: "\(server.url("/feed"))", name: ttl }
      - { url: "\(server.url("/blocked"))", name: blocked }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    let (_, _, pollErr) = run(["poll", "--config", config, "--state-dir", state])
    #expect(pollErr.contains("answered by a bot check (Cloudflare) instead of the feed"), "\(pollErr)")
    let (code, out, err) = run(["status", "--config", config, "--state-dir", state])
    #expect(code == 0)
    #expect(out.contains("SCHEDULE") && out.contains("the feed asks for 4 h (ttl)"), "\(out)")
    #expect(out.contains("failing: backing off after 1 failure"), "\(out)")
    #expect(
      err.contains("feed 'blocked': answered by a bot check (Cloudflare) instead of the feed; watcher cannot pass it"))
    let json = run(["status", "--json", "--config", config, "--state-dir", state]).1
    #expect(json.contains("\"next_because\"") && json.contains("\"health\""))
    // poll says why a feed that is not due waits.
    let again = run(["poll", "--config", config, "--state-dir", state]).1
    #expect(again.contains("ttl: not due: next poll in ") && again.contains("the feed asks for 4 h (ttl)"), "\(again)")
  }

  @Test("check warns of a credential in the config and a token file others can read; names never values")
  func checkSecrets() throws {
    let dir = try TemporaryDirectory()
    let token = dir.url.appendingPathComponent("token").path
    try "Bearer abc\n".write(toFile: token, atomically: true, encoding: .utf8)
    chmod(token, 0o644)
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    feeds:
      - url: https://example.org/private.xml
        headers: { Authorization: "Bearer s3cr3t", X-Other: { file: "\(token)" } }
      - url: https://example.org/b.xml
        proxy: "http://me:hunter2@proxy.example:3128"
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let (code, out, err) = run(["check", "--config", config])
    #expect(code == 0, "\(err)")
    #expect(out.contains("2 feeds, 0 rules: OK"))
    #expect(err.contains("warning: header 'Authorization' holds a credential written in the config"), "\(err)")
    #expect(err.contains("can be read by other users") && err.contains("chmod 600 \(token)"))
    #expect(err.contains("the proxy URL holds a password"))
    // Only the config's own line is quoted; no value reaches a message of watcher's own.
    let own = err.split(separator: "\n").filter { $0.contains("warning") || $0.contains("note") }
    #expect(!own.contains { $0.contains("s3cr3t") || $0.contains("hunter2") || $0.contains("Bearer abc") })
  }

  @Test("an edited config's .bak has inline credentials redacted")
  func backupRedacted() throws {
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings:
      headers:
        Authorization: "Bearer s3cr3t"
        Accept-Language: en
    feeds:
      - url: https://example.org/a.xml
        name: a
        headers: { X-Api-Key: k3y, X-Mode: { file: ~/t } }
        proxy: http://me:hunter2@proxy.example:3128
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let (code, _, err) = run(["remove", "a", "--config", config])
    #expect(code == 0, "\(err)")
    let backup = try String(contentsOfFile: config + ".bak", encoding: .utf8)
    #expect(!backup.contains("s3cr3t") && !backup.contains("k3y") && !backup.contains("hunter2"), "\(backup)")
    #expect(backup.contains("Accept-Language: en") && backup.contains("X-Mode: { file: ~/t }"))
    #expect(backup.contains("http://me:***@proxy.example:3128"))
    #expect(try String(contentsOfFile: config, encoding: .utf8).contains("Bearer s3cr3t"), "the config keeps it")
  }

  @Test("test-rules requests a private feed as the poll does (its headers)")
  func testRulesSendsHeaders() throws {
    let server = try LoopbackHTTPServer { request in
      request.headers["x-api-key"] == "k1" ? .ok(Self.feed) : .init(status: 401)
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let key = dir.url.appendingPathComponent("key").path
    try "k1\n".write(toFile: key, atomically: true, encoding: .utf8)
    try """
    feeds:
      - { url: "\(server.url("/feed"))", name: private, headers: { X-Api-Key: { file: "\(key)" } } }
    rules:
      - { name: all, match: { title: A }, notify: true }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let (code, out, err) = run(["test-rules", "--config", config])
    #expect(code == 0, "\(err)")
    #expect(out.contains("A") && !err.contains("401"), "\(out)\(err)")
  }

  @Test("snooze stops a feed's notifications (not its hooks) until unsnooze; status shows it; bad input is refused")
  func snooze() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("f.xml").path
    func write(_ items: [String]) throws {
      let xml = items.map { "<item><title>\($0)</title><guid>\($0)</guid></item>" }.joined()
      try "<rss version=\"2.0\"><channel><title>f</title>\(xml)</channel></rss>".write(
        toFile: feed, atomically: true, encoding: .utf8)
    }
    try write(["a"])
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let hooked = dir.url.appendingPathComponent("hooked").path
    try """
    settings: { max_age: none }
    feeds:
      - { url: \(feed), name: news, notify: true, hook: 'printf "%s\\n" "$WATCHER_TITLE" >> \(hooked)' }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    _ = run(["poll", "--config", config, "--state-dir", state])
    let (code, out, err) = run(["snooze", "news", "2h", "--config", config, "--state-dir", state])
    #expect(code == 0 && out.contains("'news' is snoozed until ") && out.contains("unsnooze news"), "\(err)")
    #expect(run(["status", "--config", config, "--state-dir", state]).2.contains("feed 'news' is snoozed until"))
    try write(["a", "b"])
    let snoozed = run(["poll", "--config", config, "--state-dir", state, "--feed", "news"])
    #expect(snoozed.1.contains("1 not notified: the feed is snoozed"), "\(snoozed.1)")
    #expect(try String(contentsOfFile: hooked, encoding: .utf8) == "b\n", "its hooks still run")
    #expect(run(["unsnooze", "news", "--config", config, "--state-dir", state]).1 == "'news' notifies again\n")
    #expect(run(["unsnooze", "news", "--config", config, "--state-dir", state]).1 == "'news' is not snoozed\n")
    let unknown = run(["snooze", "nwes", "--config", config, "--state-dir", state])
    #expect(unknown.0 == 64 && unknown.2.contains("did you mean 'news'?"), "\(unknown.2)")
    #expect(run(["snooze", "news", "soon", "--config", config, "--state-dir", state]).0 == 64)
  }

  @Test("check says once where relative feed paths are read from, not once per feed")
  func relativeNoteOnce() throws {
    let dir = try TemporaryDirectory()
    for name in ["a.xml", "b.xml"] {
      try Self.feed.write(to: dir.url.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try "feeds:\n  - url: a.xml\n  - url: b.xml\n".write(toFile: config, atomically: true, encoding: .utf8)
    let (code, out, err) = run(["check", "--config", config])
    #expect(code == 0 && out.contains("2 feeds, 0 rules: OK"), "\(err)")
    #expect(
      err.components(separatedBy: "relative feed paths are read from the config's directory").count == 2, "\(err)")
    #expect(!err.contains("'b.xml' is"), "\(err)")
  }

  @Test("a rule's feeds naming both a feed and a tag says it covers both")
  func scopeBoth() throws {
    let dir = try TemporaryDirectory()
    for name in ["a.xml", "b.xml"] {
      try Self.feed.write(to: dir.url.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    feeds:
      - { url: a.xml, name: news }
      - { url: b.xml, name: other, tags: [news] }
    rules:
      - { name: r, feeds: [news], match: { title: a }, notify: true }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let (code, _, err) = run(["check", "--config", config])
    #expect(code == 0)
    #expect(err.contains("warning: rule 'r': 'news' in its feeds is both a feed's name and a tag"), "\(err)")
    #expect(err.contains("it covers the feed 'news' and every feed tagged news"))
  }

  @Test("add of a host without a scheme tries https, then http")
  func addWithoutScheme() throws {
    let server = try LoopbackHTTPServer { _ in .ok(Self.feed) }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let bare = "localhost:\(server.port)/feed"
    let (code, out, err) = run(["add", bare, "--config", config])
    #expect(code == 0, "\(err)")
    #expect(err.contains("note: https://\(bare) did not answer; trying http://\(bare)"), "\(err)")
    #expect(out.contains("http://\(bare)"))
    #expect(try ConfigLoader.load(path: config).feeds.map(\.url) == ["http://\(bare)"])
  }
}
