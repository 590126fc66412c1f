// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherState
import WatcherTestSupport

/// The files commands and the daemon change beside a poll (labels, snoozes): changed at once by several
/// writers, none loses another's change.
@Suite("Shared state files")
struct SharedFileTests {
  @Test("labels given at once by several writers are all kept")
  func labelsAtOnce() throws {
    let directory = try TemporaryDirectory()
    let path = directory.url.path
    let writers = 6
    let each = 15
    DispatchQueue.concurrentPerform(iterations: writers) { writer in
      // A store each, as each command or the daemon has its own.
      guard let store = try? StateStore(directory: path) else { return }
      for index in 0..<each {
        let label = Label(
          key: "item-\(writer)-\(index)", feed: "blog", up: index % 2 == 0, time: Date(timeIntervalSince1970: 0),
          title: "Post \(writer) \(index)")
        try? store.updateLabels { $0.append(label) }
      }
    }
    let labels = try StateStore(directory: path).labels()
    #expect(labels.count == writers * each)
    #expect(Set(labels.map(\.key)).count == writers * each)
  }

  @Test("snoozes set at once by several writers are all kept")
  func snoozesAtOnce() throws {
    let directory = try TemporaryDirectory()
    let path = directory.url.path
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    DispatchQueue.concurrentPerform(iterations: 6) { writer in
      guard let store = try? StateStore(directory: path) else { return }
      for index in 0..<25 {
        try? store.snooze("feed-\(writer)-\(index)", until: now.addingTimeInterval(3_600), now: now)
      }
    }
    #expect(try StateStore(directory: path).snoozes(now: now).count == 150)
  }
}
