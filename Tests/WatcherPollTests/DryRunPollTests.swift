// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherFetch
import WatcherPoll
import WatcherState
import WatcherSupport
import WatcherTestSupport

/// `poll --dry-run` lists exactly what the real poll that follows does, and changes nothing.
@Suite("Dry-run poll", .serialized)
struct DryRunPollTests {
  typealias Harness = PollerTests.Harness
  static let now = PollerTests.now

  struct Scenario: Sendable, CustomStringConvertible {
    var name: String
    var settings: String
    /// Items before the pass under test (polled once, for real, first), then the items of the pass.
    var before: [(String, String, String)]?
    var items: [(String, String, String)]
    var description: String { name }
  }

  static let old = "Mon, 01 Jan 2024 10:00:00 GMT"
  static let recent = "Sat, 28 Nov 2026 10:00:00 GMT"

  static let scenarios: [Scenario] = [
    Scenario(name: "first poll, silent", settings: "", before: nil, items: [("a", "A", recent), ("b", "B", recent)]),
    Scenario(
      name: "first poll, all", settings: "  first_poll: all", before: nil,
      items: [("a", "A", recent), ("b", "B", recent)]),
    Scenario(
      name: "first poll, latest 2", settings: "  first_poll: latest 2", before: nil,
      items: [
        ("a", "A", "Sat, 28 Nov 2026 09:00:00 GMT"), ("b", "B", recent), ("c", "C", "Fri, 27 Nov 2026 10:00:00 GMT"),
      ]),
    Scenario(
      name: "older than max_age", settings: "  first_poll: all", before: nil,
      items: [("a", "A", old), ("b", "B", recent)]),
    Scenario(
      name: "already seen, and one new", settings: "", before: [("a", "A", recent)],
      items: [("a", "A", recent), ("b", "B", recent)]),
    Scenario(
      name: "an item that came back", settings: "", before: [("a", "A", recent), ("b", "B", recent)],
      items: [("a", "A", recent)]),
    Scenario(
      name: "muted", settings: "  first_poll: all", before: nil,
      items: [("a", "Sponsored post", recent), ("b", "B", recent)]),
    Scenario(
      name: "batched", settings: "  first_poll: all\n  notify: { max_per_poll: 2 }", before: nil,
      items: (0..<5).map { ("i\($0)", "Item \($0)", recent) }),
  ]

  static func config(_ h: Harness, settings: String) throws -> Config {
    try ConfigLoader.parse(
      """
      settings:
        max_age: 30d
      \(settings)
      feeds:
        - url: \(h.server.url("/feed"))
          name: test
      rules:
        - { name: ads, match: { title: sponsored }, mute: true }
        - { name: everything, match: { title: '' }, notify: { summary: "{title}" } }
        - { name: hooked, match: { title: B }, hook: 'true' }
      """, path: "t.yaml")
  }

  static func files(_ store: StateStore) throws -> [String: Data] {
    var result: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: store.directory) {
      result[name] = try Data(contentsOf: URL(fileURLWithPath: store.directory + "/" + name))
    }
    return result
  }

  @Test("the real poll does exactly the actions the dry run listed", arguments: scenarios)
  func dryRunPredictsPoll(scenario: Scenario) throws {
    var h = try Harness()
    defer { h.server.stop() }
    h.config = try Self.config(h, settings: scenario.settings)
    let poller = Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: h.runner)
    var time = Self.now
    if let before = scenario.before {
      h.source.items.withLock { $0 = before }
      _ = poller.pass(h.config.feeds, force: true, now: time)
      time = time.addingTimeInterval(3_600)
    }
    let done = h.runner.actions.count
    h.source.items.withLock { $0 = scenario.items }
    let stateBefore = try Self.files(h.store)
    let dry = poller.pass(h.config.feeds, force: true, now: time, dryRun: true)
    #expect(try Self.files(h.store) == stateBefore, "the dry run changed the state directory")
    #expect(h.runner.actions.count == done, "the dry run acted")
    let planned = dry.outcomes.flatMap(\.planned).map { "\($0.kind.rawValue) \($0.key) \($0.rule ?? "-")" }
    _ = poller.pass(h.config.feeds, force: true, now: time)
    let real = h.runner.actions.dropFirst(done).map {
      "\($0.action.kind.rawValue) \($0.action.key) \($0.action.rule ?? "-")"
    }
    #expect(planned.sorted() == real.sorted(), "\(scenario.name): planned \(planned), the poll did \(real)")
  }

  @Test("the scenarios cover actions: the dry run is not trivially empty")
  func scenariosAct() throws {
    var h = try Harness()
    defer { h.server.stop() }
    h.config = try Self.config(h, settings: "  first_poll: all")
    h.source.items.withLock { $0 = [("a", "Sponsored", Self.recent), ("b", "B", Self.recent)] }
    let poller = Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: h.runner)
    let dry = poller.pass(h.config.feeds, force: true, now: Self.now, dryRun: true)
    #expect(dry.outcomes[0].planned.map(\.key).sorted() == ["b", "b"])
  }
}
