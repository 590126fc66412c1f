// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

/// The documentation's runnable examples: every ```console block of docs/rules.md, and every `$` example of
/// watcher-rules(5), is run with the built binary, and what it prints must be what the document says.
@Suite("documentation examples")
struct DocExampleTests {
  /// One console block: its commands, each with the output the document promises, and the config before it.
  struct Example: CustomStringConvertible {
    var config: String
    var steps: [(command: String, output: String)]
    var line: Int
    var description: String { "the example at line \(line)" }
  }

  /// The console blocks of `text`, each paired with the last ```yaml block before it.
  static func examples(in text: String) -> [Example] {
    var examples: [Example] = []
    var config = ""
    var block: [String]?
    var kind = ""
    var start = 0
    for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      if block == nil, line.hasPrefix("```") {
        kind = String(line.dropFirst(3))
        block = []
        start = number + 1
      } else if let lines = block, line == "```" {
        if kind == "yaml" { config = lines.joined(separator: "\n") + "\n" }
        if kind == "console" {
          var steps: [(command: String, output: String)] = []
          for line in lines {
            if line.hasPrefix("$ ") {
              steps.append((String(line.dropFirst(2)), ""))
            } else if !steps.isEmpty {
              steps[steps.count - 1].output += line + "\n"
            }
          }
          examples.append(Example(config: config, steps: steps, line: start))
        }
        block = nil
      } else if block != nil {
        block?.append(String(line))
      }
    }
    return examples
  }

  static let rulesDoc: String =
    (try? String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/rules.md"), encoding: .utf8)) ?? ""

  /// watcher-rules(5)'s `.EX` blocks as Markdown: a block that starts with `$ ` is a console block, any
  /// other one a config.
  static let manPage: String = {
    let roff =
      (try? String(
        contentsOf: Fixtures.repositoryRoot.appendingPathComponent("contrib/man/watcher-rules.5"), encoding: .utf8))
      ?? ""
    var markdown = ""
    var block: [String]?
    for line in roff.split(separator: "\n", omittingEmptySubsequences: false) {
      if line == ".EX" {
        block = []
      } else if line == ".EE", let lines = block {
        markdown += (lines.first?.hasPrefix("$ ") == true ? "```console\n" : "```yaml\n")
        markdown += lines.joined(separator: "\n") + "\n```\n"
        block = nil
      } else if block != nil {
        let text = line.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\(aq", with: "'")
          .replacingOccurrences(of: "\\&", with: "").replacingOccurrences(of: "\\[u2713]", with: "✓")
          .replacingOccurrences(of: "\\[u2717]", with: "✗").replacingOccurrences(of: "\\[u2026]", with: "…")
          .replacingOccurrences(of: "\\e", with: "\\")
        block?.append(text)
      }
    }
    return markdown
  }()

  @Test("docs/rules.md has runnable examples of --explain, poll --dry-run, run: hooks and every-item rules")
  func coverage() {
    let examples = Self.examples(in: Self.rulesDoc)
    let commands = examples.flatMap(\.steps).map(\.command).joined(separator: "\n")
    let configs = examples.map(\.config).joined(separator: "\n")
    #expect(commands.contains("--explain") && commands.contains("poll --dry-run"))
    #expect(configs.contains("run: [") && configs.contains("no match: every item"))
  }

  @Test("watcher-rules(5) has the same runnable examples")
  func manPageCoverage() {
    let commands = Self.examples(in: Self.manPage).flatMap(\.steps).map(\.command)
    #expect(commands == Self.examples(in: Self.rulesDoc).flatMap(\.steps).map(\.command))
  }

  @Test("each example prints what docs/rules.md says", arguments: examples(in: rulesDoc))
  func example(_ example: Example) throws {
    try Self.run(example)
  }

  @Test("each example prints what watcher-rules(5) says", arguments: examples(in: manPage))
  func manExample(_ example: Example) throws {
    try Self.run(example)
  }

  /// Runs the example's commands in a scratch home, one after the other, and compares what they print.
  static func run(_ example: Example) throws {
    let binary = try #require(BinaryTests.binary)
    let home = try TemporaryDirectory()
    let fileManager = FileManager.default
    let share = home.url.appendingPathComponent(".local/share/watcher")
    let configDirectory = home.url.appendingPathComponent(".config/watcher")
    try fileManager.createDirectory(at: share, withIntermediateDirectories: true)
    try fileManager.createDirectory(at: configDirectory, withIntermediateDirectories: true)
    try fileManager.copyItem(
      at: Fixtures.repositoryRoot.appendingPathComponent("samples"), to: share.appendingPathComponent("samples"))
    try example.config.write(
      to: configDirectory.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
    // A scratch home and nothing else: no session bus, no config or state from the machine.
    let environment = [
      "HOME": home.url.path, "PATH": binary.deletingLastPathComponent().path + ":/usr/bin:/bin", "LANG": "C.UTF-8",
      "TZ": "UTC",
    ]
    for step in example.steps {
      let result = try ChildProcess.run(
        URL(fileURLWithPath: "/bin/sh"), ["-c", step.command + " 2>&1"], environment: environment, in: home.url)
      #expect(result.output == step.output, "\(example): $ \(step.command)\n--- printed:\n\(result.output)")
    }
  }
}
