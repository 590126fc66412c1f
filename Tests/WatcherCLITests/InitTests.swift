// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherTestSupport

/// `watcher init` and `make install` in a scratch home.
@Suite("init and install")
struct InitTests {
  /// Runs the built binary (or `binary`) with `HOME` set to `home` and nothing else from this machine.
  static func watcher(_ arguments: [String], home: URL, binary: URL? = nil) throws -> ChildResult {
    let binary = try #require(binary ?? BinaryTests.binary)
    return try ChildProcess.run(
      binary, arguments, environment: ["HOME": home.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], in: home)
  }

  @Test("init writes a starter config that passes check, never overwrites, and --force keeps a .bak")
  func initWrites() throws {
    let home = try TemporaryDirectory()
    let path = home.url.appendingPathComponent(".config/watcher/rules.yaml").path
    let first = try Self.watcher(["init"], home: home.url)
    #expect(first.status == 0 && first.output.hasPrefix("wrote \(path)\n"), "\(first.errors)")
    let check = try Self.watcher(["check"], home: home.url)
    #expect(check.status == 0 && check.output.contains("2 feeds, 3 rules: OK"), "\(check.errors)")
    // Every feed it names exists (the samples next to the binary: a checkout's, or the installed ones).
    let config = try ConfigLoader.load(path: path)
    for feed in config.feeds {
      #expect(FileManager.default.fileExists(atPath: HomePathForTest.expand(feed.url, home: home.url.path)))
    }
    try "feeds: []\n# mine\n".write(toFile: path, atomically: true, encoding: .utf8)
    let again = try Self.watcher(["init"], home: home.url)
    #expect(again.status == 1 && again.errors.contains("already exists") && again.errors.contains("--force"))
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "feeds: []\n# mine\n")
    let forced = try Self.watcher(["init", "--force"], home: home.url)
    #expect(forced.status == 0 && forced.output.contains("\(path).bak"))
    #expect(try String(contentsOfFile: path + ".bak", encoding: .utf8) == "feeds: []\n# mine\n")
    #expect(try String(contentsOfFile: path, encoding: .utf8).contains("written by 'watcher init'"))
  }

  @Test("the starter's feeds can each be removed: no rule depends on a sample feed or its tag")
  func starterFeedsRemovable() throws {
    let home = try TemporaryDirectory()
    #expect(try Self.watcher(["init"], home: home.url).status == 0)
    for name in ["swift", "advisories"] {
      let removed = try Self.watcher(["remove", name], home: home.url)
      #expect(removed.status == 0, "remove \(name): \(removed.errors)")
    }
    let check = try Self.watcher(["check"], home: home.url)
    #expect(check.status == 0 && check.output.contains("0 feeds, 3 rules: OK"), "\(check.errors)")
  }

  @Test("init --config FILE writes there; a missing config's note points to init")
  func initElsewhere() throws {
    let home = try TemporaryDirectory()
    let missing = try Self.watcher(["check"], home: home.url)
    #expect(missing.status == 78 && missing.errors.contains("'watcher init' writes a starter config"))
    let other = home.url.appendingPathComponent("deep/er/mine.yaml").path
    #expect(try Self.watcher(["init", "--config", other], home: home.url).status == 0)
    #expect(try Self.watcher(["check", "--config", other], home: home.url).status == 0)
  }
}

/// `~` in a feed path, as watcher reads it, for a test's scratch home.
enum HomePathForTest {
  static func expand(_ path: String, home: String) -> String {
    path.hasPrefix("~/") ? home + path.dropFirst() : path
  }
}
