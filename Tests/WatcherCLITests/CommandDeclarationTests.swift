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
