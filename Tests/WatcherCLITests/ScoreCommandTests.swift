// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport
import WatcherTestSupport

/// `watcher score --jsonl`, through the built binary: labels in the lines are kept in the state directory,
/// every unlabelled item gets a score, and too few labels give none.
@Suite("watcher score")
struct ScoreCommandTests {
  static func line(_ id: String, _ title: String, category: String, label: Int?) -> String {
    let label = label.map(String.init) ?? "null"
    return
      #"{"id":"\#(id)","title":"\#(title)","text":"","author":"","link":"https://n.example/\#(id)","feed":"news","categories":["\#(category)"],"label":\#(label)}"#
  }

  /// The `{"id", "score"}` lines of `watcher score`, by id.
  static func scores(_ output: String) throws -> [String: Double] {
    var scores: [String: Double] = [:]
    for line in output.split(separator: "\n") {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      scores[object?["id"] as? String ?? ""] = object?["score"] as? Double
    }
    return scores
  }

  @Test("labels are kept, scores printed; a second run learns from the kept labels alone")
  func scores() throws {
    let dir = try TemporaryDirectory()
    let state = dir.url.appendingPathComponent("state").path
    let binary = try #require(BinaryTests.binary)
    var lines = (0..<3).map { Self.line("up\($0)", "Funny sketch \($0)", category: "comedy", label: 1) }
    lines += (0..<4).map { Self.line("down\($0)", "Budget vote \($0)", category: "politics", label: 0) }
    lines += [
      Self.line("new-comedy", "Another funny sketch", category: "comedy", label: nil),
      Self.line("new-politics", "Another budget vote", category: "politics", label: nil),
    ]
    let run = try ChildProcess.run(
      binary, ["score", "--jsonl", "--state-dir", state], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
    #expect(run.status == 0, "\(run.errors)")
    let scores = try Self.scores(run.output)
    #expect(scores.count == 2 && (scores["new-comedy"] ?? 0) > (scores["new-politics"] ?? 1), "\(run.output)")
    let kept = try String(contentsOfFile: state + "/labels.json", encoding: .utf8)
    #expect(kept.contains("\"key\": \"up0\"") && kept.contains("\"up\": false"))
    // The labels are the model: a run with no labels in it scores from the kept ones.
    let again = try ChildProcess.run(
      binary, ["score", "--jsonl", "--state-dir", state], stdin: Data((lines.suffix(2).joined(separator: "\n")).utf8))
    #expect(again.output.split(separator: "\n").count == 2)
  }

  @Test("with fewer labels than the learner needs, nothing is scored and standard error says so")
  func tooFew() throws {
    let dir = try TemporaryDirectory()
    let binary = try #require(BinaryTests.binary)
    let input = [Self.line("a", "One", category: "x", label: 1), Self.line("b", "Two", category: "x", label: nil)]
    let run = try ChildProcess.run(
      binary, ["score", "--jsonl", "--state-dir", dir.url.path], stdin: Data(input.joined(separator: "\n").utf8))
    #expect(run.status == 0 && run.output.isEmpty)
    #expect(run.errors.contains("1 label kept; the learner needs 5 before it scores anything"), "\(run.errors)")
  }

  @Test(
    "like and dislike label a feed's items by key or title words, labels lists and takes back, score learns from them")
  func likeAndDislike() throws {
    var feed = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>n</title>"
    let titles = [
      "Funny sketch one", "Funny sketch two", "Funny sketch three", "Budget vote one", "Budget vote two",
      "Budget vote three",
    ]
    for (n, title) in titles.enumerated() {
      feed +=
        "<item><guid>g\(n)</guid><title>\(title)</title><category>\(n < 3 ? "comedy" : "politics")</category></item>"
    }
    let document = feed + "</channel></rss>"
    let server = try LoopbackHTTPServer { _ in .ok(document) }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try "feeds:\n  - { url: \"\(server.url("/feed"))\", name: news }\n".write(
      toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    let binary = try #require(BinaryTests.binary)
    func run(_ arguments: [String], stdin: Data? = nil) throws -> ChildResult {
      try ChildProcess.run(binary, arguments + ["--config", config, "--state-dir", state], stdin: stdin)
    }
    let liked = try run(["like", "news", "sketch one", "g1", "Funny sketch three"])
    #expect(liked.status == 0 && liked.output.contains("👍 Funny sketch two  [news]"), "\(liked.errors)")
    #expect(try run(["dislike", "news", "vote one", "vote two", "g5"]).status == 0)
    let ambiguous = try run(["like", "news", "sketch"])
    #expect(ambiguous.status != 0 && ambiguous.errors.contains("3 items of the feed match 'sketch'"))
    let listed = try run(["labels"]).output
    #expect(listed.contains("6 labels: 3 👍, 3 👎") && listed.contains("news: Budget vote three"), "\(listed)")
    let undone = try run(["labels", "--undo", "news", "vote three"])
    #expect(undone.output.contains("took back 👎 Budget vote three"), "\(undone.errors)")
    #expect(try run(["labels"]).output.contains("5 labels: 3 👍, 2 👎"))
    // Many at once from items.
    let many = try run(["items", "news", "--like", "vote three", "--dislike", "sketch one", "--dislike", "g1"])
    #expect(many.status == 0 && many.output.contains("👍 Budget vote three  [news]"), "\(many.errors)")
    #expect(try run(["labels"]).output.contains("6 labels: 2 👍, 4 👎"))
    // The kept labels are what score learns from.
    let lines = [
      Self.line("c", "Funny sketch four", category: "comedy", label: nil),
      Self.line("p", "Budget vote four", category: "politics", label: nil),
    ]
    let scored = try ChildProcess.run(
      binary, ["score", "--jsonl", "--state-dir", state], stdin: Data(lines.joined(separator: "\n").utf8))
    let scores = try Self.scores(scored.output)
    #expect((scores["c"] ?? 0) > (scores["p"] ?? 1), "\(scored.output) \(scored.errors)")
  }

  @Test("score rules: labels given with like/dislike route new items, high scores to a hook, low ones to a digest")
  func scoreRules() throws {
    let items = Locked([
      "Funny sketch one", "Funny sketch two", "Funny sketch three", "Budget vote one",
      "Budget vote two", "Budget vote three",
    ])
    let server = try LoopbackHTTPServer { _ in
      var feed = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>n</title>"
      for title in items.withLock({ $0 }) {
        let category = title.hasPrefix("Funny") ? "comedy" : "politics"
        feed += "<item><guid>\(title)</guid><title>\(title)</title><category>\(category)</category></item>"
      }
      return .ok(feed + "</channel></rss>")
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let out = dir.url.appendingPathComponent("acted").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { max_age: none }
    feeds:
      - { url: "\(server.url("/feed"))", name: news }
    rules:
      - { name: high, match: { score: { above: 0.5 } }, hook: 'printf "%s\\n" "$WATCHER_TITLE" >> \(out)' }
      - { name: low, match: { score: { below: 0.5 } }, digest: { every: 1d } }
      - { name: shown, match: { title: "Funny sketch four" }, notify: { body: "score {score}" } }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    let binary = try #require(BinaryTests.binary)
    func run(_ arguments: [String]) throws -> ChildResult {
      try ChildProcess.run(binary, arguments + ["--config", config, "--state-dir", state])
    }
    #expect(try ChildProcess.run(binary, ["check", "--config", config]).status == 0)
    _ = try run(["poll", "--all"])
    #expect(try run(["like", "news", "sketch one", "sketch two", "sketch three"]).status == 0)
    #expect(try run(["dislike", "news", "vote one", "vote two", "vote three"]).status == 0)
    items.withLock { $0 = ["Funny sketch four", "Budget vote four"] + $0 }
    let explained = try run(["test-rules", "--explain"]).output
    #expect(explained.contains("learned score: ") && explained.contains("most moved by"), "\(explained)")
    #expect(explained.contains("'funny' +") && explained.contains("'budget' −"), "\(explained)")
    #expect(explained.contains("score 0.") || explained.contains("score 1."), "\(explained)")
    let listed = try run(["items", "news"]).output
    #expect(listed.contains("learned score: "), "\(listed)")
    let poll = try run(["poll", "--all"])
    let acted = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
    #expect(acted == "Funny sketch four\n", "\(acted)\n\(poll.errors)")
    let digest = try run(["digest", "low", "--preview"]).output
    #expect(digest.contains("Budget vote four") && !digest.contains("Funny sketch four"), "\(digest)")
  }

  @Test("suggest proposes plain rules from the labels with their evidence; --apply writes one that check accepts")
  func suggest() throws {
    let dir = try TemporaryDirectory()
    let state = dir.url.appendingPathComponent("state").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try "# my feeds\nfeeds:\n  - { url: https://n.example/feed, name: news }\nrules: []\n".write(
      toFile: config, atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    var lines = (0..<4).map { Self.line("up\($0)", "Sketch number \($0)", category: "comedy", label: 1) }
    lines += (0..<6).map { Self.line("down\($0)", "Vote number \($0)", category: "politics", label: 0) }
    _ = try ChildProcess.run(
      binary, ["score", "--jsonl", "--state-dir", state], stdin: Data(lines.joined(separator: "\n").utf8))
    let listed = try ChildProcess.run(binary, ["suggest", "--config", config, "--state-dir", state])
    #expect(listed.output.contains("mute category 'politics': 0 of 6 liked"), "\(listed.output)\(listed.errors)")
    #expect(listed.output.contains("notify on category 'comedy': 4 of 4 liked"), "\(listed.output)")
    let number = try #require(
      listed.output.split(separator: "\n").first { $0.contains("notify on category 'comedy'") }?.split(separator: ".")
        .first)
    let applied = try ChildProcess.run(
      binary, ["suggest", "--apply", String(number), "--config", config, "--state-dir", state])
    #expect(applied.status == 0, "\(applied.errors)")
    let written = try String(contentsOfFile: config, encoding: .utf8)
    #expect(
      written.hasPrefix("# my feeds") && written.contains("category: \"comedy\"") && written.contains("notify: true"))
    #expect(try ChildProcess.run(binary, ["check", "--config", config]).status == 0, "\(written)")
  }

  @Test("score_scope: tag learns each feed tag's taste from its own feeds' labels")
  func scopeByTag() throws {
    let feeds = ["tech": ["Swift tip", "Java news"], "news": ["Swift tip", "Java news"]]
    let server = try LoopbackHTTPServer { request in
      let name = String(request.path.dropFirst())
      var feed = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(name)</title>"
      for title in feeds[name] ?? [] { feed += "<item><guid>\(title)</guid><title>\(title) today</title></item>" }
      return .ok(feed + "</channel></rss>")
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let state = dir.url.appendingPathComponent("state").path
    let binary = try #require(BinaryTests.binary)
    // In tech, Swift is liked and Java not; in news, the other way round.
    var lines: [String] = []
    for n in 0..<4 {
      for (feed, liked) in [("tech", "Swift"), ("news", "Java")] {
        for topic in ["Swift", "Java"] {
          let label = topic == liked ? 1 : 0
          lines.append(
            #"{"id":"\#(feed)\#(topic)\#(n)","title":"\#(topic) tip \#(n)","text":"","author":"","link":"","feed":"\#(feed)","categories":[],"label":\#(label)}"#
          )
        }
      }
    }
    _ = try ChildProcess.run(
      binary, ["score", "--jsonl", "--state-dir", state], stdin: Data(lines.joined(separator: "\n").utf8))
    func scores(_ scope: String) throws -> [String] {
      let config = dir.url.appendingPathComponent("\(scope).yaml").path
      try """
      settings: { score_scope: \(scope) }
      feeds:
        - { url: "\(server.url("/tech"))", name: tech, tags: [tech] }
        - { url: "\(server.url("/news"))", name: news, tags: [news] }
      rules:
        - { name: high, match: { score: { above: 0.5 } }, tag: [high] }
      """.write(toFile: config, atomically: true, encoding: .utf8)
      let out = try ChildProcess.run(binary, ["test-rules", "--explain", "--config", config, "--state-dir", state])
      return out.output.split(separator: "\n").filter { $0.contains("learned score") }.map(String.init)
    }
    let byTag = try scores("tag")
    // tech: Swift high, Java low; news: Swift low, Java high (in feed order: tech's two, then news's two).
    let values = byTag.compactMap { line in Double(line.split(separator: " ").dropFirst(2).first?.dropLast() ?? "") }
    #expect(values.count == 4, "\(byTag)")
    if values.count == 4 {
      #expect(values[0] > 0.5 && values[1] < 0.5 && values[2] < 0.5 && values[3] > 0.5, "\(byTag)")
    }
    #expect(try scores("all").count == 4)
  }
}
