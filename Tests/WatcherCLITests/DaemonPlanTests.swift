// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing

@testable import WatcherCLI

/// The daemon's decisions, in process: when it polls, reloads, backs off and how long it sleeps, at
/// instants the test chooses (no clock read, nothing slept through).
@Suite("The daemon's plan")
struct DaemonPlanTests {
  static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

  @Test("a changed config file is read once it has been quiet for the debounce; every change restarts the wait")
  func debounce() {
    var plan = DaemonPlan()
    plan.schedule(at: Self.t0, wake: 600, jitter: 0)
    do {
      let reload = plan.takeReload(at: Self.t0)
      #expect(!reload)
    }
    plan.configFileChanged(at: Self.t0)
    do {
      let reload = plan.takeReload(at: Self.t0.addingTimeInterval(0.1))
      #expect(!reload)
    }
    #expect(abs(plan.sleep(at: Self.t0.addingTimeInterval(0.1), watchdog: nil) - 0.2) < 1e-6)
    // A save is several events: the last one counts, and one reported late does not move it back.
    plan.configFileChanged(at: Self.t0.addingTimeInterval(0.25))
    plan.configFileChanged(at: Self.t0.addingTimeInterval(0.2))
    do {
      let reload = plan.takeReload(at: Self.t0.addingTimeInterval(0.5))
      #expect(!reload)
    }
    do {
      let reload = plan.takeReload(at: Self.t0.addingTimeInterval(0.6))
      #expect(reload)
    }
    // Taken: not read twice.
    do {
      let reload = plan.takeReload(at: Self.t0.addingTimeInterval(10))
      #expect(!reload)
    }
  }

  @Test("the next pass is the schedule's wake plus the jitter; a click or a reload brings it to now")
  func nextPass() {
    var plan = DaemonPlan()
    #expect(plan.passDue(at: Self.t0))
    plan.schedule(at: Self.t0, wake: 600, jitter: 2)
    #expect(!plan.passDue(at: Self.t0.addingTimeInterval(601)))
    #expect(plan.passDue(at: Self.t0.addingTimeInterval(602)))
    #expect(plan.sleep(at: Self.t0, watchdog: nil) == 602)
    plan.passSoon(at: Self.t0.addingTimeInterval(5))
    #expect(plan.passDue(at: Self.t0.addingTimeInterval(5)))
    // Never later than it was.
    plan.passSoon(at: Self.t0.addingTimeInterval(900))
    #expect(plan.passDue(at: Self.t0.addingTimeInterval(5)))
    plan.schedule(at: Self.t0, wake: 600, jitter: 0)
    plan.reloaded()
    #expect(plan.passDue(at: Self.t0))
  }

  @Test("the jitter is at most 5% of the wait and at most 5 seconds")
  func jitter() {
    #expect(DaemonPlan.jitter(wake: 60, unit: 1) == 3)
    #expect(DaemonPlan.jitter(wake: 3_600, unit: 1) == 5)
    #expect(DaemonPlan.jitter(wake: 3_600, unit: 0.5) == 2.5)
    #expect(DaemonPlan.jitter(wake: -5, unit: 1) == 0)
  }

  @Test("it sleeps until the first thing due: the pass, the debounce, the watchdog; never under 50 ms or over an hour")
  func sleep() {
    var plan = DaemonPlan()
    #expect(plan.sleep(at: Self.t0, watchdog: nil) == DaemonPlan.shortestSleep)
    plan.schedule(at: Self.t0, wake: 86_400, jitter: 0)
    #expect(plan.sleep(at: Self.t0, watchdog: nil) == DaemonPlan.longestSleep)
    #expect(plan.sleep(at: Self.t0, watchdog: 15) == 15)
    plan.configFileChanged(at: Self.t0)
    #expect(abs(plan.sleep(at: Self.t0.addingTimeInterval(0.1), watchdog: 15) - 0.2) < 1e-6)
  }

  @Test("passes that cannot save back off a minute, doubling to an hour, and a pass that saves ends it")
  func backOff() {
    var plan = DaemonPlan()
    var waits: [TimeInterval?] = []
    for pass in 0..<9 {
      let start = Self.t0.addingTimeInterval(Double(pass) * 10_000)
      plan.schedule(at: start, wake: 5, jitter: 0)
      let wait = plan.passed(startedAt: start, unsaved: true)
      waits.append(wait)
      #expect(!plan.passDue(at: start.addingTimeInterval(59)))
    }
    #expect(waits == [60, 120, 240, 480, 960, 1_920, 3_600, 3_600, 3_600])
    let start = Self.t0.addingTimeInterval(100_000)
    plan.schedule(at: start, wake: 5, jitter: 0)
    let saved = plan.passed(startedAt: start, unsaved: false)
    #expect(saved == nil)
    #expect(plan.passDue(at: start.addingTimeInterval(5)))
    plan.schedule(at: start, wake: 5, jitter: 0)
    let again = plan.passed(startedAt: start, unsaved: true)
    #expect(again == 60)
  }
}

/// The request a command hands to the daemon: one case for each thing asked, on a line every release reads.
@Suite("The daemon's requests")
struct DaemonRequestTests {
  typealias Request = DaemonSocket.Request

  @Test(
    "every request survives its line",
    arguments: [
      Request(.poll(feeds: ["a", "b"], force: true), config: "/c.yaml"), Request(.poll(feeds: [], all: true)),
      Request(.poll(feeds: ["a"], catchUp: true)), Request(.poll(feeds: [], json: true)),
      Request(.pending(drop: true, keys: ["k1", "k2"])),
      Request(.pending(drop: false, keys: [])), Request(.reload, config: "/c.yaml"),
      Request(.purge(url: "https://example.org/feed")), Request(.digest(rule: "daily")),
      Request(.announce(feed: "news", key: "guid:1")),
    ])
  func roundTrip(_ request: Request) {
    #expect(Request(line: request.line) == request)
  }

  @Test("the lines of the previous release read as the same requests")
  func previousRelease() {
    let lines: [(String, Request)] = [
      (
        #"{"command":"catch-up","feeds":["x"],"force":false,"all":false,"action":null,"keys":[],"config":"/c"}"#,
        Request(.poll(feeds: ["x"], catchUp: true), config: "/c")
      ),
      (
        #"{"command":"pending","feeds":[],"force":false,"all":false,"action":"drop","keys":["k"]}"#,
        Request(.pending(drop: true, keys: ["k"]))
      ),
      (#"{"command":"purge","action":"https://e.org/f"}"#, Request(.purge(url: "https://e.org/f"))),
      (#"{"command":"digest","action":"daily"}"#, Request(.digest(rule: "daily"))),
      (#"{"command":"announce","feeds":["news"],"keys":["g"]}"#, Request(.announce(feed: "news", key: "g"))),
    ]
    for (line, request) in lines { #expect(Request(line: line) == request, "\(line)") }
  }

  @Test(
    "a request that does not say what it asks is refused",
    arguments: [
      #"{"command":"rm -rf"}"#, #"{"command":"purge"}"#, #"{"command":"digest","action":1}"#,
      #"{"command":"announce","feeds":["news"]}"#, #"{"command":"poll","feeds":[1]}"#, "not json", "",
    ])
  func refused(_ line: String) {
    #expect(Request(line: line) == nil)
  }
}
