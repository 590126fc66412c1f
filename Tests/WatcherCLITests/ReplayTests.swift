// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport
import WatcherTestSupport

/// Real feeds change their keys: each case replays what one does.
///
/// Several polls of the built binary, from a real HTTP server, with a real `/bin/sh` hook on every item. Every poll after the first adds exactly
/// one genuinely new post, and it, and only it, is acted on.
@Suite("the same story never twice: replayed feeds", .serialized)
struct ReplayTests {
  struct Post {
    var id: String?
    var link: String?
    var title: String
    var date = "Sat, 28 Nov 2026 10:00:00 GMT"
    var permalink = true
  }

  /// One fetch of a feed: its posts, as RSS (or Atom).
  struct Step {
    var posts: [Post]
    var atom = false
    /// The title of the one post this step adds (nil for the first step, which is recorded silently).
    var new: String?
    /// The titles of edited posts acted on (by an `on_update` rule).
    var updated: [String] = []
  }

  static func render(_ step: Step) -> String {
    if step.atom {
      var xml = "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>A</title><id>urn:a</id>"
      for post in step.posts {
        xml += "<entry><title>\(post.title)</title>" + (post.id.map { "<id>\($0)</id>" } ?? "")
        xml += (post.link.map { "<link href=\"\($0)\"/>" } ?? "") + "<updated>2026-11-28T10:00:00Z</updated></entry>"
      }
      return xml + "</feed>"
    }
    var xml = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>R</title>"
    for post in step.posts {
      xml += "<item><title>\(post.title)</title>"
      if let id = post.id { xml += "<guid isPermaLink=\"\(post.permalink)\">\(id)</guid>" }
      if let link = post.link { xml += "<link>\(link.replacingOccurrences(of: "&", with: "&amp;"))</link>" }
      xml += "<pubDate>\(post.date)</pubDate></item>"
    }
    return xml + "</channel></rss>"
  }

  /// Ten posts of a blog, `make` giving each its id and link from its number.
  static func posts(_ count: Int = 10, _ make: (Int) -> Post) -> [Post] { (1...count).map(make) }

  /// Runs `steps` of each feed (feed names → steps, polled together), and checks what each poll acted on.
  func replay(
    _ feeds: [String: [Step]], settings: String = "", onUpdate: Bool = false, file: String = #function,
    then check: (_ arguments: [String]) throws -> Void = { _ in }
  ) throws {
    let dir = try TemporaryDirectory()
    let documents = Locked<[String: String]>([:])
    // The feed named "burner" moves behind a permanent redirect after its first fetch.
    let redirecting = Locked(false)
    let server = try LoopbackHTTPServer { request in
      var name = String(request.path.dropFirst())
      if name == "burner", redirecting.withLock({ $0 }) { return .init(status: 301, headers: [("Location", "/moved")]) }
      if name == "moved" { name = "burner" }
      guard let body = documents.withLock({ $0[name] }) else { return .init(status: 404) }
      return .ok(body)
    }
    defer { server.stop() }
    let out = dir.url.appendingPathComponent("acted").path
    var config = "settings: { first_poll: silent, max_age: none\(settings) }\nfeeds:\n"
    for name in feeds.keys.sorted() { config += "  - { url: \"\(server.url("/" + name))\", name: \(name) }\n" }
    config +=
      "rules:\n  - { name: every, match: { title: \"\" }, on_update: \(onUpdate), "
      + "hook: 'printf \"%s\\n\" \"$WATCHER_TITLE\" >> \(out)' }\n"
    let configPath = dir.url.appendingPathComponent("rules.yaml").path
    try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    let rounds = feeds.values.map(\.count).max() ?? 0
    var seen = 0
    for round in 0..<rounds {
      var expected: [String] = []
      redirecting.withLock { $0 = round > 0 }
      documents.withLock { documents in
        for (name, steps) in feeds where round < steps.count {
          documents[name] = Self.render(steps[round])
          if let new = steps[round].new { expected.append(new) }
          expected += steps[round].updated
        }
      }
      let poll = try ChildProcess.run(
        try #require(BinaryTests.binary), ["poll", "--all", "--config", configPath, "--state-dir", state])
      let acted = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
      let now = Array(acted.dropFirst(seen))
      seen = acted.count
      #expect(
        Set(now) == Set(expected) && now.count == Set(expected).count,
        "\(file), poll \(round + 1): acted on \(now), expected \(expected)\n\(poll.errors)")
    }
    try check(["--config", configPath, "--state-dir", state])
  }

  /// `posts`, each changed by `change`.
  static func changed(_ posts: [Post], _ change: (inout Post) -> Void) -> [Post] {
    posts.map { post in
      var post = post
      change(&post)
      return post
    }
  }

  /// The posts of `old` with one added at the top.
  static func adding(_ post: Post, to old: [Post]) -> [Post] { [post] + old }

  @Test("a blog that moves to https (every guid and link) announces only its new post")
  func httpsMove() throws {
    let old = Self.posts {
      Post(id: "http://blog.example/p/\($0)", link: "http://blog.example/p/\($0)", title: "Post \($0)")
    }
    let moved = Self.changed(old) {
      $0.id = $0.id?.replacingOccurrences(of: "http:", with: "https:")
      $0.link = $0.link?.replacingOccurrences(of: "http:", with: "https:")
    }
    let new = Post(id: "https://blog.example/p/11", link: "https://blog.example/p/11", title: "Post 11")
    let newer = Post(id: "https://blog.example/p/12", link: "https://blog.example/p/12", title: "Post 12")
    try replay([
      "blog": [
        Step(posts: old), Step(posts: Self.adding(new, to: moved), new: "Post 11"),
        Step(posts: Self.adding(newer, to: Self.adding(new, to: moved)), new: "Post 12"),
      ]
    ])
  }

  @Test("links without guids that gain www., tracking parameters, ?amp=1 or a trailing slash announce nothing old")
  func linkSpellings() throws {
    let old = Self.posts { Post(link: "https://news.example/story?id=\($0)&utm_source=rss", title: "Story \($0)") }
    func respelled(_ change: @escaping (String) -> String) -> [Post] {
      old.map { post in
        var post = post
        post.link = post.link.map(change)
        return post
      }
    }
    let www = respelled { $0.replacingOccurrences(of: "https://news.", with: "https://www.news.") }
    let tracking = respelled { $0 + "&utm_campaign=winter&fbclid=IwAR0abc" }
    let amp = respelled { $0 + "&amp=1" }
    var steps = [Step(posts: old)]
    var added: [Post] = []
    for (index, posts) in [www, tracking, amp].enumerated() {
      let post = Post(link: "https://news.example/story?id=\(20 + index)", title: "Story \(20 + index)")
      added.insert(post, at: 0)
      steps.append(Step(posts: added + posts, new: post.title))
    }
    try replay(["news": steps])
    // Trailing slashes on paths.
    let paths = Self.posts { Post(link: "https://site.example/posts/\($0)", title: "Path \($0)") }
    let slashed = Self.changed(paths) {
      $0.link = $0.link.map { $0 + "/" }
    }
    try replay([
      "site": [
        Step(posts: paths),
        Step(posts: [Post(link: "https://site.example/posts/11/", title: "Path 11")] + slashed, new: "Path 11"),
      ]
    ])
  }

  @Test(
    "a feed that writes a new random guid on every fetch announces only its new posts, and is switched to link identity"
  )
  func randomGuids() throws {
    func fetch(_ round: Int, count: Int) -> [Post] {
      (1...count).reversed().map {
        Post(id: "\(UUID().uuidString)", link: "https://random.example/\($0)", title: "Random \($0)", permalink: false)
      }
    }
    try replay([
      "random": [
        Step(posts: fetch(0, count: 10)), Step(posts: fetch(1, count: 11), new: "Random 11"),
        Step(posts: fetch(2, count: 12), new: "Random 12"), Step(posts: fetch(3, count: 13), new: "Random 13"),
        Step(posts: fetch(4, count: 14), new: "Random 14"),
      ]
    ]) { arguments in
      let status = try ChildProcess.run(try #require(BinaryTests.binary), ["status"] + arguments)
      #expect(
        status.errors.contains("feed 'random': identity: link: its ids changed on 2 fetches in a row"),
        "\(status.errors)")
      let json = try ChildProcess.run(try #require(BinaryTests.binary), ["status", "--json"] + arguments)
      #expect(
        json.output.contains("\"identity\": \"link\"") || json.output.contains("\"identity\":\"link\""),
        "\(json.output)")
      let log = try ChildProcess.run(try #require(BinaryTests.binary), ["log"] + arguments)
      #expect(
        log.output.contains("identity: recognised, not announced: changed its item ids (new ids, same links)"),
        "\(log.output)")
    }
  }

  @Test("an Atom feed whose ids move from tag: URIs to URLs, and guids that become permalinks, announce nothing old")
  func idsChange() throws {
    let tags = Self.posts {
      Post(id: "tag:blog.example,2026:post-\($0)", link: "https://blog.example/post-\($0)", title: "Entry \($0)")
    }
    let urls = Self.changed(tags) {
      $0.id = $0.link
    }
    let new = Post(id: "https://blog.example/post-11", link: "https://blog.example/post-11", title: "Entry 11")
    try replay(["atom": [Step(posts: tags, atom: true), Step(posts: [new] + urls, atom: true, new: "Entry 11")]])
    let plain = Self.posts {
      Post(id: "post-\($0)", link: "https://blog.example/post-\($0)", title: "Guid \($0)", permalink: false)
    }
    let permalinks = Self.changed(plain) {
      $0.id = $0.link
      $0.permalink = true
    }
    let added = Post(id: "https://blog.example/post-11", link: "https://blog.example/post-11", title: "Guid 11")
    try replay(["guids": [Step(posts: plain), Step(posts: [added] + permalinks, new: "Guid 11")]])
  }

  @Test("the same post in a planet and in the blog is acted on once; a genuinely new post in each still is")
  func planet() throws {
    let blog = Self.posts {
      Post(id: "https://blog.example/\($0)", link: "https://blog.example/\($0)", title: "Blog \($0)")
    }
    let planet = Self.changed(blog) {
      $0.id = "planet-" + ($0.link ?? "")
      $0.permalink = false
    }
    let shared = Post(id: "https://blog.example/11", link: "https://blog.example/11", title: "Blog 11")
    var sharedInPlanet = shared
    sharedInPlanet.id = "planet-https://blog.example/11"
    sharedInPlanet.link = "http://blog.example/11?utm_source=planet"
    let other = Post(id: "planet-other", link: "https://other.example/1", title: "Other 1", permalink: false)
    try replay([
      "blog": [Step(posts: blog), Step(posts: [shared] + blog, new: "Blog 11"), Step(posts: [shared] + blog)],
      "planet": [
        Step(posts: planet), Step(posts: [sharedInPlanet] + planet),
        Step(posts: [other, sharedInPlanet] + planet, new: "Other 1"),
      ],
    ])
  }

  @Test("an entry twice in one document is one item; a new post with an old post's title, new link and guid is new")
  func repeatsAndTitles() throws {
    let old = Self.posts { Post(id: "https://r.example/\($0)", link: "https://r.example/\($0)", title: "Weekly notes") }
    let copy = old[0]
    let new = Post(id: "https://r.example/11", link: "https://r.example/11", title: "Weekly notes")
    let another = Post(id: "https://r.example/12", link: "https://r.example/12", title: "Another")
    try replay([
      "repeats": [
        Step(posts: old), Step(posts: [new, copy] + old, new: "Weekly notes"),
        Step(posts: [another, another, new, copy] + old, new: "Another"),
      ]
    ])
  }

  @Test(
    "a guid that stays while links change CDN host, a feed moved behind a redirect, and edited titles: only new posts")
  func hostsRedirectsAndEdits() throws {
    let old = Self.posts {
      Post(id: "guid-\($0)", link: "https://cdn1.example/\($0)", title: "Cast \($0)", permalink: false)
    }
    let cdn = Self.changed(old) {
      $0.link = $0.link?.replacingOccurrences(of: "cdn1", with: "cdn2")
      $0.title += " (edited)"
    }
    let new = Post(id: "guid-11", link: "https://cdn2.example/11", title: "Cast 11", permalink: false)
    try replay(["casts": [Step(posts: old), Step(posts: [new] + cdn, new: "Cast 11")]])
    // A feed that moves behind a (feedburner-style) permanent redirect keeps its items.
    let burner = Self.posts {
      Post(id: "https://b.example/\($0)", link: "https://b.example/\($0)", title: "Burn \($0)")
    }
    let fresh = Post(id: "https://b.example/11", link: "https://b.example/11", title: "Burn 11")
    try replay(["burner": [Step(posts: burner), Step(posts: [fresh] + burner, new: "Burn 11")]])
  }

  @Test("an edit is an update, not new; a rule with on_update: true acts on it, and the journal says so")
  func edits() throws {
    let old = Self.posts {
      Post(id: "https://rel.example/\($0)", link: "https://rel.example/\($0)", title: "Notes \($0)")
    }
    var edited = old
    edited[2].title = "Notes 3 (fixed typo)"
    let new = Post(id: "https://rel.example/11", link: "https://rel.example/11", title: "Notes 11")
    // Without on_update, nothing is said for the edit; with it, the edited item is acted on once.
    try replay(["plain": [Step(posts: old), Step(posts: [new] + edited, new: "Notes 11")]])
    try replay(
      [
        "notes": [
          Step(posts: old), Step(posts: [new] + edited, new: "Notes 11", updated: ["Notes 3 (fixed typo)"]),
          Step(posts: [new] + edited),
        ]
      ],
      onUpdate: true
    ) { arguments in
      let log = try ChildProcess.run(try #require(BinaryTests.binary), ["log"] + arguments)
      #expect(log.output.contains("\"Notes 3 (fixed typo)\"  item: updated, not new"), "\(log.output)")
      // test-rules --explain says it of a copy with another edit, before any poll sees it.
      var again = [new] + edited
      again[4].title = "Notes 4 (retitled)"
      let copy = try TemporaryDirectory()
      let file = copy.url.appendingPathComponent("notes.xml").path
      try Self.render(Step(posts: again)).write(toFile: file, atomically: true, encoding: .utf8)
      let explained = try ChildProcess.run(
        try #require(BinaryTests.binary), ["test-rules", "--explain", "--as", "notes", file] + arguments)
      #expect(
        explained.output.contains(
          "Notes 4 (retitled)  [notes]\n  link: https://rel.example/4\n  updated, not new: its title or text changed since it was first seen (the rules with on_update act on it)"
        ), "\(explained.output)")
      #expect(
        explained.output.contains("Notes 11  [notes]\n  link: https://rel.example/11\n  seen before (first seen "))
    }
  }
}
