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

/// `webhook:`: the item's document POSTed and signed, with the guarantees of a hook.
@Suite("Webhooks", .serialized)
struct WebhookTests {
  typealias Harness = PollerTests.Harness

  @Test("HMAC-SHA256 agrees with RFC 4231 and SHA-256 with FIPS 180-4")
  func vectors() {
    #expect(
      SHA256.hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      SHA256.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    #expect(
      SHA256.hex(SHA256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
        == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    // A key longer than a block is hashed first (RFC 4231 test case 6).
    #expect(
      SHA256.hex(
        SHA256.hmac(
          key: [UInt8](repeating: 0xAA, count: 131),
          message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
        == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
  }

  @Test("a webhook gets the item's document, signed; a refusal is retried like a hook, journaled as webhook")
  func posts() throws {
    let received = Locked<[LoopbackHTTPServer.Request]>([])
    let refuse = Locked(true)
    let receiver = try LoopbackHTTPServer { request in
      received.withLock { $0.append(request) }
      if request.path == "/moved" { return .init(status: 302, headers: [("Location", "/hook")]) }
      return refuse.withLock { $0 } ? .init(status: 503, body: Data("busy\u{1B}[2J".utf8)) : .ok("thanks")
    }
    defer { receiver.stop() }
    var h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    let secret = h.dir.url.appendingPathComponent("webhook.secret").path
    try "s3cret\n".write(toFile: secret, atomically: true, encoding: .utf8)
    h.config.rules = try ConfigLoader.parse(
      """
      feeds: [{ url: x, name: test }]
      rules:
        - name: out
          match: { title: One }
          webhook: { url: "\(receiver.url("/hook"))", secret: { file: "\(secret)" }, timeout: 5s }
      """, path: "r.yaml"
    ).rules
    h.source.items.withLock {
      $0 = [("a", "One", "Sat, 28 Nov 2026 10:00:00 GMT"), ("b", "Two", "Sat, 28 Nov 2026 10:00:00 GMT")]
    }
    func poller() -> Poller {
      let runner = DeliveringActionRunner(
        notifier: KeptNotificationTests.SwitchableNotifier(), settings: h.config.settings, environment: [:],
        log: { _ in })
      return Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: runner)
    }
    let first = poller().poll(h.config.feeds, force: true, now: PollerTests.now)[0]
    #expect(first.webhooks == 1 && first.failures.isEmpty)
    let request = try #require(received.withLock { $0 }.first)
    #expect(request.method == "POST" && request.headers["content-type"] == "application/json")
    let signature = "sha256=" + SHA256.hex(SHA256.hmac(key: Array("s3cret".utf8), message: [UInt8](request.body)))
    #expect(request.headers["x-watcher-signature"] == signature)
    let document = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
    #expect(document["title"] as? String == "One" && document["rule"] as? String == "out")
    #expect(document["feed"] as? String == "test")
    // 503: pending, journaled as a retry of the webhook, with the answer's words (controls cleaned).
    var state = try h.store.load(url: h.config.feeds[0].url).state
    #expect(state.pending.count == 1 && state.pending[0].kind == .webhook)
    #expect(state.pending[0].lastError?.hasPrefix("HTTP 503") == true)
    #expect(state.pending[0].lastError?.contains("\u{1B}") == false)
    let stored = try String(contentsOfFile: h.store.path(for: h.config.feeds[0].url), encoding: .utf8)
    #expect(!stored.contains("s3cret"), "the secret is never stored")
    var journal = h.store.journal(limits: JournalLimits(), now: PollerTests.now).entries
    #expect(journal.map(\.action) == ["webhook"] && journal[0].outcome == .retry)
    // Accepted on the retry.
    refuse.withLock { $0 = false }
    _ = poller().retryPending(h.config.feeds, now: PollerTests.now.addingTimeInterval(3_600))
    state = try h.store.load(url: h.config.feeds[0].url).state
    #expect(state.pending.isEmpty)
    journal = h.store.journal(limits: JournalLimits(), now: PollerTests.now + 3_600).entries
    #expect(journal.last?.outcome == .ok && journal.last?.action == "webhook")
    // A redirect is an answer, never followed.
    let answer = WebhookPoster.post(
      Array("{}".utf8), to: receiver.url("/moved"), secret: nil, timeout: 5, userAgent: "t")
    #expect(answer.status == 302 && !answer.succeeded)
    #expect(received.withLock { $0 }.filter { $0.path == "/hook" }.count == 2)
  }

  @Test("check: a webhook's secret file missing, or readable by other users")
  func lint() throws {
    let dir = try TemporaryDirectory()
    let file = dir.url.appendingPathComponent("webhook.secret").path
    try "s\n".write(toFile: file, atomically: true, encoding: .utf8)
    chmod(file, 0o644)
    let action = WebhookAction(url: "https://x.example/h", secretFile: file)
    #expect(WebhookLint.check(action, environment: [:]).map(\.severity) == [.warning])
    chmod(file, 0o600)
    #expect(WebhookLint.check(action, environment: [:]).isEmpty)
    let missing = WebhookAction(url: "https://x.example/h", secretFile: file + ".gone")
    #expect(WebhookLint.check(missing, environment: [:]).first?.message.contains("does not exist") == true)
  }

  @Test("webhook mistakes in the config are errors")
  func configErrors() {
    for (text, message) in [
      ("webhook: file:///etc/passwd", "needs an http or https URL"),
      ("webhook: { url: https://x.example/h, secret_file: a, secret_env: B }", "both secret_file and secret_env"),
      ("webhook: { url: https://x.example/h, secret: s }", "'secret' of 'webhook' in rule 'r'"),
      ("webhook: { url: https://x.example/h, secret: { file: a }, secret_env: B }", "both secret and secret_env"),
      ("webhook: { url: https://x.example/h, secret: {} }", "has no value"),
    ] {
      do {
        _ = try ConfigLoader.parse(
          "feeds: [{ url: x, name: test }]\nrules:\n  - { name: r, match: { title: a }, \(text) }\n", path: "r.yaml")
        Issue.record("accepted: \(text)")
      } catch {
        #expect(error.rendered.contains(message), "\(error.rendered)")
      }
    }
  }

  @Test("a secret is read one way everywhere, { file: PATH } or { env: NAME }; the old secret_file is read with a hint")
  func secretSpelling() throws {
    func load(_ webhook: String) throws -> Config {
      try ConfigLoader.parse(
        "feeds: [{ url: x, name: test }]\nrules:\n  - { name: r, match: { title: a }, webhook: \(webhook) }\n",
        path: "r.yaml")
    }
    let file = try load("{ url: https://x.example/h, secret: { file: ~/s } }")
    #expect(file.rules[0].actions.webhook?.secretFile == "~/s" && file.notices.isEmpty)
    let environment = try load("{ url: https://x.example/h, secret: { env: S } }")
    #expect(environment.rules[0].actions.webhook?.secretEnv == "S")
    let old = try load("{ url: https://x.example/h, secret_file: ~/s }")
    #expect(old.rules[0].actions.webhook?.secretFile == "~/s")
    #expect(old.notices.map(\.severity) == [.warning])
    #expect(
      old.notices.first?.notes.contains("write secret: { file: ~/s }, as a header read from a file or the environment")
        == true)
  }

  @Test("the webhook example of docs/rules.md loads")
  func documented() throws {
    let text = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/rules.md"), encoding: .utf8)
    let section = try #require(text.components(separatedBy: "### Webhooks").dropFirst().first)
    let block = try #require(
      section.components(separatedBy: "```yaml\n").dropFirst().first?.components(separatedBy: "```").first)
    let config = try ConfigLoader.parse(block, path: "rules.md")
    let webhook = try #require(config.rules.first?.actions.webhook)
    #expect(webhook.url == "https://hooks.example.org/watcher" && webhook.timeout == 10)
    #expect(webhook.secretFile == "~/.config/watcher/webhook.secret")
  }
}
