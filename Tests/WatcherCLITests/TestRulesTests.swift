// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherSupport
import WatcherTestSupport

/// `watcher test-rules` on the fixture config: goldens of its text and JSON output, and proof that it has no
/// side effect.
@Suite("test-rules")
struct TestRulesTests {
  static let directory = Fixtures.url("test-rules", target: "WatcherCLITests")
  static let config = directory.appendingPathComponent("rules.yaml").path

  /// argument list → golden file name.
  static let cases: [([String], String)] = [
    ([], "test-rules.txt"),
    (["--json"], "test-rules.json"),
    (["--all", "--feed", "blog"], "test-rules-feed-all.txt"),
    (["--json", "--all", "--feed", "news"], "test-rules-feed-all.json"),
    (["--title", "Straße ÉCOLE news", "--category", "release", "--text", "for linux"], "test-rules-synthetic.txt"),
  ]

  @Test("output matches the golden", arguments: cases)
  func golden(_ arguments: [String], _ golden: String) throws {
    let (code, out, err) = run(
      ["test-rules", "--config", Self.config, "--now", "2026-11-29T12:00:00Z"] + arguments)
    #expect(code == 0, "stderr: \(err)")
    // Paths differ between checkouts.
    var portable = out.replacingOccurrences(of: Self.directory.path, with: "<fixtures>")
    // Text shows local time; the golden is in UTC, whatever the zone the tests run in.
    let published = try #require(DateParser.parse("2026-11-02T10:00:00Z"))
    portable = portable.replacingOccurrences(of: WallClock.shown(published), with: "2026-11-02 10:00")
    if let failure = Golden.check(portable, against: Self.directory.appendingPathComponent(golden)) {
      Issue.record(Comment(rawValue: failure))
    }
  }

  @Test("the JSON has the documented shape")
  func jsonShape() throws {
    let (_, out, _) = run(["test-rules", "--config", Self.config, "--now", "2026-11-29T12:00:00Z", "--json"])
    let doc = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
    let items = try #require(doc["items"] as? [[String: Any]])
    #expect(
      Set(items[0].keys) == [
        "feed", "key", "title", "link", "muted", "muted_by", "tags", "notify", "hooks", "apprise", "webhooks",
        "matches",
      ])
    let summary = try #require(doc["summary"] as? [String: Any])
    #expect(summary["items"] as? Int == 6)
    #expect(summary["muted"] as? Int == 1)
  }

  @Test("test-rules never runs a hook and never writes state")
  func noSideEffects() throws {
    let binary = try #require(BinaryTests.binary)
    let dir = try TemporaryDirectory()
    let marker = dir.url.appendingPathComponent("hook-ran")
    let state = dir.url.appendingPathComponent("state")
    var environment = ProcessInfo.processInfo.environment
    environment["WATCHER_TEST_MARKER"] = marker.path
    environment["XDG_STATE_HOME"] = state.path
    environment["HOME"] = dir.url.path
    #expect(
      try ChildProcess.run(binary, ["test-rules", "--config", Self.config], environment: environment).status == 0)
    #expect(!FileManager.default.fileExists(atPath: marker.path), "a hook ran")
    let created = try FileManager.default.contentsOfDirectory(atPath: dir.url.path)
    #expect(created.isEmpty, "test-rules wrote \(created)")
  }

  @Test("a synthetic item goes in the named feed, so scoped rules apply; an unknown feed is an error")
  func syntheticInNamedFeed() throws {
    let binary = try #require(BinaryTests.binary)
    let item = [
      "test-rules", "--config", Self.config, "--title", "Patch for CVE-2026-1", "--published", "2026-11-29T10:00:00Z",
    ]
    let inNews = try ChildProcess.run(binary, item + ["--feed", "news"])
    #expect(inNews.status == 0, "\(inNews.errors)")
    #expect(
      inNews.output.contains("[news]") && inNews.output.contains("Security: Patch for CVE-2026-1"), "\(inNews.output)")
    let inBlog = try ChildProcess.run(binary, item + ["--feed", "blog"])
    #expect(!inBlog.output.contains("Security:"), "a rule scoped to news applied to blog: \(inBlog.output)")
    let unknown = try ChildProcess.run(binary, item + ["--feed", "nwes"])
    #expect(unknown.status == 64)
    #expect(unknown.errors.contains("no feed named 'nwes'") && unknown.errors.contains("did you mean 'news'?"))
  }

  @Test("FILE --as NAME reads a local copy as that configured feed; --feed takes a file too")
  func fileAsFeed() throws {
    let binary = try #require(BinaryTests.binary)
    let copy = Self.directory.appendingPathComponent("news.rss").path
    let asBlog = try ChildProcess.run(binary, ["test-rules", "--config", Self.config, copy, "--as", "blog", "--json"])
    #expect(asBlog.status == 0, "\(asBlog.errors)")
    #expect(asBlog.output.contains("\"feed\":\"blog\""), "\(asBlog.output)")
    #expect(!asBlog.output.contains("Security:"), "rules scoped to news applied to the copy read as blog")
    let byFeedOption = try ChildProcess.run(binary, ["test-rules", "--config", Self.config, "--feed", copy])
    #expect(byFeedOption.status == 0, "\(byFeedOption.errors)")
    #expect(byFeedOption.output.contains("Security:"))
    let twoFiles = try ChildProcess.run(binary, ["test-rules", "--config", Self.config, copy, copy, "--as", "blog"])
    #expect(twoFiles.status == 64)
  }

  @Test("--explain: every rule's verdict for every item, each condition with what decided it; scopes named")
  func explain() throws {
    let binary = try #require(BinaryTests.binary)
    let text = try ChildProcess.run(binary, ["test-rules", "--config", Self.config, "--explain", "--feed", "blog"])
    #expect(text.status == 0, "\(text.errors)")
    for expected in [
      "- rule 'security' not looked at: rule 'security' is for feeds [news]",
      "+ rule 'releases' matched", "✓ category equals 'release': category has \"release\"",
      "- rule 'sponsored' did not match", "✗ title contains 'sponsored': title has no 'sponsored'",
      "✓ all: every condition held",
    ] {
      #expect(text.output.contains(expected), "missing '\(expected)' in:\n\(text.output)")
    }
    let json = try ChildProcess.run(
      binary, ["test-rules", "--config", Self.config, "--explain", "--json", "--feed", "blog"])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
    let items = try #require(object["items"] as? [[String: Any]])
    let verdicts = try #require(items.last?["explain"] as? [[String: Any]])
    let security = try #require(verdicts.first { $0["rule"] as? String == "security" })
    #expect(
      security["matched"] as? Bool == false && security["skipped"] as? String == "rule 'security' is for feeds [news]")
    let first = try #require(items.first?["explain"] as? [[String: Any]])
    let releases = try #require(first.first { $0["rule"] as? String == "releases" })
    let condition = try #require(releases["condition"] as? [String: Any])
    #expect(condition["held"] as? Bool == true && condition["detail"] as? String == "category has \"release\"")
    // An earlier rule's stop is named as the reason a later rule was not looked at.
    #expect(first.contains { ($0["skipped"] as? String)?.hasSuffix("stopped evaluation") == true })
    // Without --explain nothing changes: the JSON has no "explain" key.
    let plain = try ChildProcess.run(binary, ["test-rules", "--config", Self.config, "--json", "--feed", "blog"])
    #expect(!plain.output.contains("\"explain\""))
  }

  @Test("check prints a summary, or every error and exit 78")
  func check() throws {
    let (code, out, _) = run(["check", "--config", Self.config])
    #expect(code == 0)
    #expect(out == "\(Self.config): 2 feeds, 8 rules: OK\n")
    let broken = Fixtures.url("Config/errors/many-mistakes.yaml").path
    let (badCode, badOut, err) = run(["check", "--config", broken])
    #expect(badCode == 78)
    #expect(badOut.isEmpty)
    #expect(err.hasSuffix("7 errors in \(broken)\n"))
    let (missing, _, missingErr) = run(["check", "--config", "/nonexistent/rules.yaml"])
    #expect(missing == 78)
    #expect(missingErr.contains("/nonexistent/rules.yaml") && missingErr.contains("watcher init"))
  }

  @Test("the example config and every YAML block of docs/rules.md and the README are valid")
  func documentation() throws {
    let example = Fixtures.repositoryRoot.appendingPathComponent("rules.example.yaml").path
    #expect(run(["check", "--config", example]).0 == 0)
    for (file, minimum) in [("docs/rules.md", 10), ("README.md", 3)] {
      let doc = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent(file), encoding: .utf8)
      var blocks: [String] = []
      var current: [String]?
      for line in doc.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("```yaml") {
          current = []
        } else if line.hasPrefix("```"), let block = current {
          blocks.append(block.joined(separator: "\n"))
          current = nil
        } else if current != nil {
          current?.append(String(line))
        }
      }
      #expect(blocks.count >= minimum, "\(file)")
      for block in blocks {
        do {
          _ = try ConfigLoader.parse(block, path: file)
        } catch {
          Issue.record("a \(file) block is invalid:\n\(block)\n\(error.rendered)")
        }
      }
    }
  }
}
