// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

/// Every command that takes `--json`, run by the built binary on a polled state: standard output is one
/// JSON document of the documented schema (its `version`, and no field the doc does not name), and every
/// line on standard error is a JSON object.
@Suite("JSON from every command", .serialized)
struct JSONSchemaTests {
  static func doc(_ name: String) throws -> String {
    try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/" + name), encoding: .utf8)
  }

  @Test("each --json command prints its documented schema, and its diagnostics as JSON lines")
  func everyCommand() throws {
    let dir = try TemporaryDirectory()
    let feed = try ActionTests.feedFile(in: dir, titles: ["Swift 6.3 released", "Weekly notes"])
    let page = dir.url.appendingPathComponent("page.html").path
    try
      "<html><head><title>T</title></head><body><article><p>\(String(repeating: "Words, more words. ", count: 40))</p></article></body></html>"
      .write(toFile: page, atomically: true, encoding: .utf8)
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: \(feed), name: news }
    rules:
      - name: swift
        match: { title: swift }
        hook: "true"
      - name: daily
        match: { title: weekly }
        digest: { every: 1d, at: "08:00" }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    let place = ["--config", config, "--state-dir", state]
    let binary = try #require(BinaryTests.binary)
    _ = try ChildProcess.run(binary, ["poll"] + place, environment: ActionTests.noBus)
    _ = try ChildProcess.run(binary, ["snooze", "news", "2h"] + place, environment: ActionTests.noBus)

    let runs: [(arguments: [String], doc: String)] = [
      (["status", "--json"] + place, "status-json.md"), (["log", "--json"] + place, "log-json.md"),
      (["pending", "--json"] + place, "log-json.md"), (["items", "news", "--json"] + place, "json.md"),
      (["check", "--json", "--config", config], "check-json.md"), (["test-rules", "--json"] + place, "rules.md"),
      (["test-rules", "--json", "--explain"] + place, "rules.md"),
      (["poll", "--dry-run", "--json"] + place, "rules.md"),
      (["poll", "--json", "--all"] + place, "json.md"), (["catch-up", "--json"] + place, "json.md"),
      (["digest", "daily", "--preview", "--json"] + place, "json.md"), (["snooze", "--json"] + place, "json.md"),
      (["extract", "--json", page], "json.md"), (["parse", "--json", feed], "parse-json.md"),
    ]
    for run in runs {
      let result = try ChildProcess.run(binary, run.arguments, environment: ActionTests.noBus)
      let what = run.arguments.prefix(3).joined(separator: " ")
      #expect(result.status == 0, "\(what): \(result.errors)")
      let document = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
      let object = try #require(document, "\(what): \(result.output)")
      if run.doc != "parse-json.md" { #expect(object["version"] as? Int == 1, "\(what)") }
      let text = try Self.doc(run.doc)
      for key in object.keys {
        #expect(text.contains("\"\(key)\"") || text.contains("`\(key)`"), "\(what): '\(key)' is not in docs/\(run.doc)")
      }
      for line in result.errors.split(separator: "\n") {
        let diagnostic = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(diagnostic?["level"] != nil && diagnostic?["message"] != nil, "\(what): \(line)")
      }
    }

    // An error in JSON mode: JSON on stderr, nothing on stdout, the usual status.
    let missing = try ChildProcess.run(
      binary, ["items", "nosuch", "--json"] + place, environment: ActionTests.noBus)
    #expect(missing.status != 0 && missing.output.isEmpty)
    let error = try JSONSerialization.jsonObject(with: Data(missing.errors.utf8)) as? [String: Any]
    #expect(error?["level"] as? String == "error" && (error?["message"] as? String)?.contains("nosuch") == true)
    let noBus = try ChildProcess.run(binary, ["notify-test", "--json"], environment: ActionTests.noBus)
    #expect(noBus.status == 1 && noBus.output.isEmpty)
    #expect(
      (try JSONSerialization.jsonObject(with: Data(noBus.errors.utf8)) as? [String: Any])?["level"] as? String
        == "error")
  }
}
