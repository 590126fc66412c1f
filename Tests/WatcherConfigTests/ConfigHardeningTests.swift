// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Configs that used to crash, hang, blow up or pass `check` while being wrong.
@Suite("Config hardening")
struct ConfigHardeningTests {
  static func write(_ data: Data, in dir: TemporaryDirectory, name: String = "rules.yaml") throws -> String {
    let path = dir.url.appendingPathComponent(name).path
    try data.write(to: URL(fileURLWithPath: path))
    return path
  }

  static func diagnostics(_ path: String) -> [Diagnostic] {
    do {
      _ = try ConfigLoader.load(path: path)
      return []
    } catch {
      if case .invalid(_, let diagnostics, _) = error { return diagnostics.filter { $0.severity == .error } }
      return [Diagnostic(message: "\(error)", mark: nil)]
    }
  }

  @Test("40,000 nested brackets are one clear error, not a stack overflow")
  func deepNesting() throws {
    let dir = try TemporaryDirectory()
    let text = "feeds: " + String(repeating: "[", count: 40_000) + String(repeating: "]", count: 40_000)
    let found = Self.diagnostics(try Self.write(Data(text.utf8), in: dir))
    #expect(found.count == 1)
    #expect(found.first?.message == "the config nests deeper than 100 levels")
  }

  @Test("bytes that are not UTF-8 are an error at their line and column")
  func notUTF8() throws {
    let dir = try TemporaryDirectory()
    var bytes = Array("feeds:\n  - { url: https://example.com/f, name: caf".utf8)
    bytes.append(0xE9)
    bytes +=
      Array(" }\nrules:\n  - { name: r, match: { title: \"na".utf8) + [0xEF] + Array("ve\" }, notify: true }\n".utf8)
    let found = Self.diagnostics(try Self.write(Data(bytes), in: dir))
    #expect(found.count == 1)
    #expect(found.first?.mark == Mark(line: 2, column: 44))
    #expect(found.first?.message == "the config is not valid UTF-8: byte 0xE9 here (and 1 more)")
  }

  @Test(
    "a config that is a directory, a FIFO or a device gets a message that says so, and never hangs",
    arguments: ["directory", "fifo", "device"])
  func notARegularFile(kind: String) throws {
    let dir = try TemporaryDirectory()
    var path = dir.url.appendingPathComponent("rules.yaml").path
    switch kind {
    case "directory": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    case "fifo": #expect(mkfifo(path, 0o600) == 0)
    default: path = "/dev/null"
    }
    #expect(throws: ConfigError.self) { try ConfigLoader.load(path: path) }
    do {
      _ = try ConfigLoader.load(path: path)
    } catch {
      let expected = [
        "directory": "it is a directory, not a file", "fifo": "it is a FIFO (named pipe), not a regular file",
        "device": "it is a character device, not a regular file",
      ]
      #expect(error == .unreadable(path: path, reason: expected[kind] ?? ""))
    }
  }

  @Test("a relative path, ./path and the absolute path are one feed")
  func sameFileThreeWays() throws {
    let dir = try TemporaryDirectory()
    let absolute = dir.url.appendingPathComponent("feed.xml").path
    let text =
      "feeds:\n  - { url: feed.xml, name: a }\n  - { url: ./feed.xml, name: b }\n  - { url: '\(absolute)', name: c }\n"
    let found = Self.diagnostics(try Self.write(Data(text.utf8), in: dir))
    #expect(found.map(\.message) == ["duplicate feed URL './feed.xml'", "duplicate feed URL '\(absolute)'"])
  }

  @Test("4,000 feeds with a misspelled key each render fast; 500 errors on one long line stay small")
  func diagnosticsScale() throws {
    let dir = try TemporaryDirectory()
    var text = "feeds:\n"
    for index in 0..<4_000 { text += "  - { url: https://example.com/\(index), name: f\(index), tagz: [a] }\n" }
    let path = try Self.write(Data(text.utf8), in: dir)
    let started = Date()
    var rendered = ""
    do { _ = try ConfigLoader.load(path: path) } catch { rendered = error.rendered }
    #expect(rendered.hasSuffix("4000 errors in \(path)\n"))
    #expect(Date().timeIntervalSince(started) < 10, "rendering is not linear")
    let long =
      "feeds: [" + (0..<500).map { "{ url: https://e.com/\($0), nmae: x }" }.joined(separator: ", ") + "]\n"
    let longPath = try Self.write(Data(long.utf8), in: dir, name: "long.yaml")
    do { _ = try ConfigLoader.load(path: longPath) } catch { rendered = error.rendered }
    #expect(rendered.hasSuffix("500 errors in \(longPath)\n"))
    #expect(rendered.utf8.count < 300_000, "\(rendered.utf8.count) bytes for 500 errors")
    let sourceLines = rendered.split(separator: "\n").filter { $0.contains("nmae: x }") }
    #expect(sourceLines.allSatisfy { $0.unicodeScalars.count <= 122 })
  }

  @Test("aliases that multiply conditions are refused by what they expand to")
  func aliasedConditions() throws {
    var text = "feeds: [{url: /dev/null, name: a}]\nrules:\n"
    text += "  - {name: r0, match: &a {any: [{title: x}, {title: y}]}, notify: true}\n"
    var previous = "a"
    for level in 1...4 {
      let name = "l\(level)"
      text +=
        "  - {name: r\(level), match: &\(name) {any: ["
        + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ")
      text += "]}, notify: true}\n"
      previous = name
    }
    #expect(throws: ConfigError.self) { try ConfigLoader.parse(text, path: "t.yaml") }
    do {
      _ = try ConfigLoader.parse(text, path: "t.yaml")
    } catch {
      #expect(error.rendered.contains("the rules hold more than 10000 conditions"))
    }
  }
}
