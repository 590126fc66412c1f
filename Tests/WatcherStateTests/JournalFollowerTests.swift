// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherState
import WatcherSupport
import WatcherTestSupport

/// `watcher log --follow`'s reader: new lines only, whole lines only, across rotation.
@Suite("Journal follower")
struct JournalFollowerTests {
  static func line(_ title: String) -> String {
    var bytes: [UInt8] = []
    JournalEntry(
      time: Date(timeIntervalSince1970: 1_800_000_000), feed: "f", title: title, link: nil, key: "k", rule: nil,
      action: "hook", outcome: .ok
    ).json.write(to: &bytes)
    return String(decoding: bytes, as: UTF8.self) + "\n"
  }

  static func append(_ text: String, to path: String) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
  }

  @Test("only what is written after it starts, a torn line once it is whole, and on across a rotation")
  func follows() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.appendingPathComponent("journal.jsonl").path
    // No journal yet: it follows the file once it is made.
    let follower = JournalFollower(path: path)
    #expect(follower.next().isEmpty)
    try Self.line("before").write(toFile: path, atomically: false, encoding: .utf8)
    #expect(follower.next().map(\.title) == ["before"], "a journal made after it started is read from its start")
    let late = JournalFollower(path: path)
    try Self.append(Self.line("one"), to: path)
    #expect(late.next().map(\.title) == ["one"], "what was there before it started is not repeated")
    // A line written in two pieces comes out once, whole.
    let two = Self.line("two")
    try Self.append(String(two.prefix(20)), to: path)
    #expect(late.next().isEmpty)
    try Self.append(String(two.dropFirst(20)), to: path)
    #expect(late.next().map(\.title) == ["two"])
    // Rotation: the last lines of the old file, then the new file from its start.
    try Self.append(Self.line("three"), to: path)
    #expect(rename(path, path + ".1") == 0)
    try Self.line("four").write(toFile: path, atomically: false, encoding: .utf8)
    #expect(late.next().map(\.title) == ["three", "four"])
    #expect(late.next().isEmpty)
  }
}
