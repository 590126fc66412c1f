// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherPoll
import WatcherState
import WatcherSupport

/// What makes an item new: the compared form of ids and links, and state written by the release before.
@Suite("Story identity", .serialized)
struct IdentityTests {
  @Test("an item's title and date hash as the state has kept them: \"title\", title and ISO date joined by 0x1F")
  func titleAndDateHash() throws {
    let date = try #require(DateParser.parse("Sun, 29 Nov 2026 10:00:00 GMT"))
    let kept = StableHash.value(of: "title\u{1F}Café 3\u{1F}2026-11-29T10:00:00Z".utf8)
    #expect(StoryIdentity.fingerprint(title: "Café 3", published: date) == kept)
    #expect(StoryIdentity.fingerprint(title: "", published: date) == 0)
    #expect(StoryIdentity.fingerprint(title: "Café 3", published: nil) == 0)
    #expect(StoryIdentity.digest(title: "a", text: "b") == StableHash.value(of: "a\u{1F}b".utf8))
  }

  @Test(
    "the compared form ignores scheme, www., default ports, host case, fragment, trailing slash and tracking parameters, not the rest",
    arguments: [
      ("http://Example.org:80/post/1/", "https://www.example.org/post/1#comments", true),
      ("https://example.org/a?utm_source=rss", "https://example.org/a?utm_source=rss&utm_campaign=w&fbclid=x", true),
      ("https://example.org/?p=123&amp=1", "https://example.org/?p=123", true),
      ("https://example.org/?p=123", "https://example.org/?p=124", false),
      ("https://example.org/a?b=2&a=1", "https://example.org/a?a=1&b=2", true),
      ("https://example.org:8080/a", "https://example.org/a", false),
      ("https://a.example.org/x", "https://b.example.org/x", false),
      ("tag:example.org,2026:1", "tag:example.org,2026:1", true),
      ("urn:1", "URN:1", false),
      // Escapes of what needs none, and internationalized hosts, either way; `&amp;` for `&`.
      ("https://example.org/caf%C3%A9-3", "https://EXAMPLE.org/café-3", true),
      ("https://example.org/%7euser/a%2db", "https://example.org/~user/a-b", true),
      ("https://example.org/a%2fb", "https://example.org/a%2Fb", true),
      ("https://example.org/a%2Fb", "https://example.org/a/b", false),
      ("https://example.org/a%20b", "https://example.org/a b", false),
      ("https://xn--caf-dma.example/post", "https://café.example/post", true),
      ("https://XN--Caf-dma.example/post", "https://CAFÉ.example/post", true),
      ("https://xn--mnchen-3ya.de/x", "https://münchen.de/x", true),
      ("https://xn--caf-dma.example/post", "https://cafe.example/post", false),
      ("https://xn--zzzz-!!.example/p", "https://xn--zzzz-!!.example/p", true),
      ("https://example.org/?p=1&amp;lang=de", "https://example.org/?lang=de&p=1", true),
      ("https://example.org/?q=%C3%A9&p=1", "https://example.org/?p=1&q=é", true),
    ])
  func normalized(_ a: String, _ b: String, _ same: Bool) {
    let identity = StoryIdentity()
    #expect(
      (identity.normalized(a) == identity.normalized(b)) == same,
      "\(identity.normalized(a)) vs \(identity.normalized(b))")
    // The story kept for a link is the hash of its compared form, made without making the form; 0 when the
    // key, compared, is the same.
    #expect(identity.story(a, key: "key") == StableHash.value(of: identity.normalized(a).utf8))
    #expect((identity.story(a, key: b) == 0) == same)
  }

  @Test("settings.ignore_parameters extends the list (a name, or a prefix with *)")
  func extraParameters() throws {
    let config = try ConfigLoader.parse(
      "settings: { ignore_parameters: [source, \"ref_*\"] }\nfeeds: []\n", path: "r.yaml")
    let identity = StoryIdentity(extra: config.settings.ignoreParameters)
    #expect(identity.normalized("https://x.org/a?source=tw&ref_id=3&id=9") == "x.org/a?id=9")
    #expect(StoryIdentity().normalized("https://x.org/a?source=tw") == "x.org/a?source=tw")
  }

  @Test(
    "state written by the release before: its items are not new again, their links are learnt, and a later id change is recognised"
  )
  func upgrade() throws {
    let (dir, state) = try PendingRecordTests.releaseState()
    _ = dir
    // The release's state is for the feed at this path.
    try FileManager.default.createDirectory(atPath: "/tmp/up", withIntermediateDirectories: true)
    func write(_ items: [(id: String, title: String)]) throws {
      var xml = "<rss version=\"2.0\"><channel><title>T</title>"
      for item in items {
        let link = "https://example.org/r" + item.title.filter(\.isNumber)
        xml += "<item><title>\(item.title)</title><guid>\(item.id)</guid><link>\(link)</link></item>"
      }
      try (xml + "</channel></rss>").write(toFile: "/tmp/up/feed.xml", atomically: true, encoding: .utf8)
    }
    let config = try ConfigLoader.parse(
      """
      settings: { first_poll: all, max_age: none }
      feeds: [{ url: /tmp/up/feed.xml, name: news }]
      rules: [{ name: every, match: { title: "" }, hook: 'true' }]
      """, path: "r.yaml")
    let store = try StateStore(directory: state)
    let runner = RecordingActionRunner()
    func poll(at offset: TimeInterval) -> Poller.Outcome {
      Poller(config: config, store: store, transport: CurlTransport(userAgent: "t"), runner: runner)
        .poll(config.feeds, force: true, now: Date().addingTimeInterval(offset))[0]
    }
    try write([("urn:r63", "Release 6.3")])
    let first = poll(at: 0)
    #expect(first.newItems == 0 && first.rekeyed == 0)
    #expect(
      try store.load(url: "/tmp/up/feed.xml").state.items["urn:r63"]?.story
        == StableHash.value(of: "example.org/r63".utf8))
    // The feed's ids become its links, and a genuinely new post comes: only it is new.
    try write([("https://example.org/r64", "Release 6.4"), ("https://example.org/r63", "Release 6.3")])
    let second = poll(at: 60)
    #expect(second.newItems == 1 && second.rekeyed == 1, "\(second.rekeyNote ?? "")")
    #expect(
      runner.actions.filter { $0.action.kind == .hook && $0.action.rule == "every" }.map(\.action.title) == [
        "Release 6.4"
      ])
  }
}
