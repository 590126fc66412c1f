// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

/// On a shared machine, a config or state directory another user can change is refused (issue #7):
/// either holds hook commands that watcher would run as its user.
@Suite("Shared-machine safety")
struct FileSafetyTests {
  static func setUp() throws -> (TemporaryDirectory, config: String, state: String) {
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let feed = Fixtures.url("Feeds/rss/rss20-namespaces.xml").path
    try "feeds:\n  - url: \(feed)\nrules:\n  - { match: { title: x }, hook: 'true' }\n".write(
      toFile: config, atomically: true, encoding: .utf8)
    chmod(config, 0o644)
    let state = dir.url.appendingPathComponent("state").path
    return (dir, config, state)
  }

  @Test("a config writable by every user is refused with the fix; group-writable is accepted")
  func worldWritableConfig() throws {
    let (dir, config, state) = try Self.setUp()
    _ = dir
    chmod(config, 0o666)
    let (status, _, errors) = run(["check", "--config", config])
    #expect(status != 0)
    #expect(errors.contains("refusing to use this config: it is writable by every user of this machine (mode 666)"))
    #expect(errors.contains("chmod go-w"))
    chmod(config, 0o664)
    #expect(run(["check", "--config", config]).0 == 0)
    #expect(run(["poll", "--config", config, "--state-dir", state]).0 == 0)
  }

  @Test("a state directory others can write is refused; watcher creates its own as 0700")
  func sharedStateDirectory() throws {
    let (dir, config, state) = try Self.setUp()
    _ = dir
    #expect(run(["poll", "--config", config, "--state-dir", state]).0 == 0)
    var info = stat()
    stat(state, &info)
    #expect(info.st_mode & 0o777 == 0o700)
    chmod(state, 0o775)
    let (status, _, errors) = run(["poll", "--config", config, "--state-dir", state])
    #expect(status != 0)
    #expect(errors.contains("it is writable by its group (mode 775)"), "\(errors)")
  }

  @Test("a config that belongs to another user is refused", .enabled(if: geteuid() == 0, "needs root to chown"))
  func foreignConfig() throws {
    let (dir, config, _) = try Self.setUp()
    _ = dir
    #expect(chown(config, 65_534, 65_534) == 0)
    let (status, _, errors) = run(["check", "--config", config])
    #expect(status != 0)
    #expect(errors.contains("it belongs to another user (uid 65534)"), "\(errors)")
  }
}
