// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

/// docs/design.md walks one feed through the code by name: every type, member and test it cites exists.
@Suite("The design guide")
struct DesignDocTests {
  /// Names the guide cites that are the platform's, not watcher's.
  static let platform: Set<String> = [
    "DispatchSource", "ETag", "FileHandle.standardError", "ProcessInfo.activeProcessorCount", "Sendable",
    "UTF8Span", "XMLParser", "TimeZone.current", "Codable",
  ]

  static func text(under directory: String, extensions: Set<String>) throws -> String {
    let root = Fixtures.repositoryRoot.appendingPathComponent(directory)
    var text = ""
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
    while let file = files?.nextObject() as? URL {
      guard extensions.contains(file.pathExtension) else { continue }
      text += try String(contentsOf: file, encoding: .utf8) + "\n"
    }
    return text
  }

  /// The code-spelled names of the guide: `Type`, `Type.member`, `Type.member(…)`, whose first part is
  /// written like a type (capital, then a lower-case letter somewhere: not an environment variable).
  static func citedNames(in guide: String) throws -> Set<String> {
    let pattern = try Regex(#"`([A-Z][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?:\([^`]*\))?`"#)
    var names = Set<String>()
    for match in guide.matches(of: pattern) {
      guard let name = match.output[1].substring.map(String.init) else { continue }
      let first = name.prefix { $0 != "." }
      guard first.contains(where: \.isLowercase), !name.hasSuffix(".swift") else { continue }
      names.insert(name)
    }
    return names
  }

  /// Every name the code declares: what follows `struct`, `enum`, `class`, `protocol`, `typealias`,
  /// `extension`, `func`, `var`, `let` or `case` (each name of a `case a, b` line), and the targets of
  /// Package.swift.
  static func declared(in code: String) -> Set<String> {
    let keywords: Set<Substring> = [
      "struct", "enum", "class", "protocol", "typealias", "extension", "func", "var", "let", "case", "actor",
    ]
    var names = Set<String>()
    for line in code.split(separator: "\n") {
      let words = line.split { !($0.isLetter || $0.isNumber || $0 == "_") }
      let isCase = line.drop { $0 == " " }.hasPrefix("case ")
      for (index, word) in words.enumerated() where isCase || index > 0 && keywords.contains(words[index - 1]) {
        names.insert(String(word))
      }
      if line.contains("name: \"") { names.formUnion(words.map(String.init)) }
    }
    return names
  }

  @Test("every type, member and test that docs/design.md names is declared in the code")
  func namesExist() throws {
    let guide = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/design.md"), encoding: .utf8)
    let code =
      try Self.text(under: "Sources", extensions: ["swift", "h", "c"])
      + Self.text(under: "Tests", extensions: ["swift"])
      + String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
    let declared = Self.declared(in: code)
    let names = try Self.citedNames(in: guide).subtracting(Self.platform)
    #expect(names.count > 100, "the guide cites \(names.count) names")
    let missing = names.filter { name in
      name.split(separator: ".").contains { $0 != "init" && !declared.contains(String($0)) }
    }
    #expect(missing.isEmpty, "docs/design.md names what the code does not declare: \(missing.sorted())")
  }

  @Test("the check finds a name that is not there")
  func checkCanFail() throws {
    let names = try Self.citedNames(in: "`FeedReader.read` then `Poller.pass`, `HOME`, `Package.swift`")
    #expect(names == ["FeedReader.read", "Poller.pass"])
    let declared = Self.declared(in: "struct Poller {\n  func pass() {}\n}\nenum Mode {\n  case normal, catchUp\n}")
    #expect(declared.isSuperset(of: ["Poller", "pass", "Mode", "normal", "catchUp"]))
    #expect(!declared.contains("FeedReader") && !declared.contains("read"))
  }
}
