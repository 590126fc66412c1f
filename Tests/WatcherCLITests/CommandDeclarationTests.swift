// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherCLI
import WatcherTestSupport

/// Commands declare their options and positional arguments once; the help's synopsis, `--help` and the
/// errors for a wrong number of arguments are made from that declaration.
@Suite("Command declarations")
struct CommandDeclarationTests {
  /// The command names `watcher --help` lists.
  static var commands: [String] {
    let overview = run(["--help"]).1
    guard let start = overview.range(of: "commands:\n") else { return [] }
    return overview[start.upperBound...].split(separator: "\n").prefix {
      $0.hasPrefix("  ") && !$0.hasPrefix("  help ")
    }
    .compactMap { $0.split(separator: " ").first.map(String.init) }
  }

  @Test("every command's help: a synopsis with each of its options, and --help once, added by the parser")
  func help() throws {
    let names = Self.commands
    #expect(names.count >= 17, "\(names)")
    for name in names {
      let (code, text, _) = run(["help", name])
      #expect(code == 0, "\(name)")
      #expect(text.hasPrefix("usage: watcher \(name)"), "\(name): \(text)")
      #expect(run([name, "--help"]).1 == text && run([name, "-h"]).1 == text, "\(name)")
      let parts = text.components(separatedBy: "\n\n")
      let synopsis = parts.first ?? ""
      let options = text.components(separatedBy: "options:\n").last?.split(separator: "\n") ?? []
      #expect(options.filter { $0.contains("--help") }.count == 1, "\(name): --help listed once")
      for line in options where !line.contains("--help") {
        let option = line.split(separator: " ").first { $0.hasPrefix("--") }.map(String.init) ?? "?"
        #expect(synopsis.contains("[\(option)"), "\(name): \(option) is not in the synopsis \(synopsis)")
      }
    }
  }

  @Test("a wrong number of positional arguments is a usage error made from the declaration")
  func positionals() {
    for name in ["poll", "catch-up", "log", "run", "status", "check", "init", "export-opml", "notify-test"] {
      let (code, out, err) = run([name, "stray"])
      #expect(code == 64 && out.isEmpty, "\(name)")
      #expect(err.hasPrefix("error: 'watcher \(name)' takes no arguments"), "\(name): \(err)")
    }
    #expect(run(["log", "x"]).2.contains("name feeds with --feed"))
    for name in ["parse", "extract", "add", "remove", "import-opml", "completions"] {
      for argv in [[name], [name, "a", "b"]] {
        let (code, _, err) = run(argv)
        #expect(code == 64, "\(argv)")
        #expect(err.hasPrefix("error: 'watcher \(name)' needs exactly one "), "\(argv): \(err)")
      }
    }
  }
}

extension CommandDeclarationTests {
  @Test("--feed keeps its meaning: a named feed is polled now, due or not; without it only due feeds are")
  func feedNamesWhatToPoll() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    try #"<rss version="2.0"><channel><title>T</title><item><title>A</title><guid>a</guid></item></channel></rss>"#
      .write(toFile: feed, atomically: true, encoding: .utf8)
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try "feeds:\n  - { url: \(feed), name: local }\nrules:\n  - { name: all, match: { title: \"\" }, notify: true }\n"
      .write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    let first = run(["poll", "--config", config, "--state-dir", state])
    // Results on stdout (so `watcher poll > out` keeps them); stderr stays for diagnostics, and this poll has none.
    #expect(first.0 == 0 && first.1.contains("poll: 1 of 1 feeds polled") && first.2.isEmpty, "\(first)")
    try
      #"<rss version="2.0"><channel><title>T</title><item><title>A</title><guid>a</guid></item><item><title>B</title><guid>b</guid></item></channel></rss>"#
      .write(toFile: feed, atomically: true, encoding: .utf8)
    // Not due: neither the dry run nor the poll reads the feed again.
    let dry = run(["poll", "--config", config, "--state-dir", state, "--dry-run"])
    #expect(
      dry.0 == 0 && dry.1.hasSuffix("\npoll --dry-run: 0 actions; nothing was done or saved\n") && dry.2.isEmpty,
      "\(dry)")
    let again = run(["poll", "--config", config, "--state-dir", state])
    #expect(again.0 == 0 && again.1.contains("local: not due"), "\(again.1)")
    // Named: read now.
    let namedDry = run(["poll", "--config", config, "--state-dir", state, "--dry-run", "--feed", "local"])
    #expect(namedDry.1.contains("local: would notify"), "\(namedDry)")
  }
}

extension CommandDeclarationTests {
  @Test("typed option values are checked by the parser, with one wording per kind, before the command runs")
  func typedValues() {
    let cases: [([String], String)] = [
      (["parse", "--max-items", "-3", "x"], "--max-items takes a whole number of items above 0; '-3' is not one"),
      (["log", "--since", "soon"], "--since takes a duration back from now (30m, 2d, 1w) or a date (2026-11-30)"),
      (["items", "f", "--since", "yesterday"], "--since takes a duration back from now"),
      (
        ["test-rules", "--now", "noon"],
        "--now takes a date such as 2026-11-29T12:00:00Z or 2026-11-29; 'noon' is not one"
      ),
      (["test-rules", "--title", "t", "--published", "x"], "--published takes a date such as"),
      (
        ["add", "https://example.org/f", "--interval", "0m"],
        "--interval takes a duration such as 30m, 2h or 1d, or auto"
      ),
    ]
    for (argv, message) in cases {
      let (code, out, err) = run(argv)
      #expect(code == 64 && out.isEmpty, "\(argv)")
      #expect(err.hasPrefix("error: " + message), "\(argv): \(err)")
    }
  }
}
