// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

// Benchmarks that print figures (never timed tests). Usage: swift run -c release watcher-bench [rules|regex]
import Foundation
import WatcherConfig
import WatcherFeed
import WatcherRules
import WatcherSupport

/// A deterministic pseudo-random generator (xorshift), so every run measures the same work.
struct Generator {
  var state: UInt64 = 0x9E37_79B9_7F4A_7C15
  init(state: UInt64 = 0x9E37_79B9_7F4A_7C15) { self.state = state }
  mutating func next() -> UInt64 {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    return state
  }
  mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
}

/// A vocabulary of 3,000 pseudo-words built from syllables (a few with accents), so that each rule matches
/// a realistic few percent of items rather than all of them.
let words: [String] = {
  let syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "zé", "bra", "che", "dus", "fal", "gri", "hon"]
  var random = Generator(state: 42)
  var list: [String] = ["linux", "swift", "release", "security", "CVE", "kernel", "straße", "école"]
  while list.count < 3_000 {
    list.append((0..<(2 + Int(random.next() % 2))).map { _ in random.pick(syllables) }.joined())
  }
  return list
}()
let categories = ["release", "security", "linux", "swift", "rust", "python", "desktop", "cloud", "news", "events"]

func rulesBenchmark() throws {
  var random = Generator()
  // 100 rules: 40 substring, 30 whole-word, 30 regex, over title, text, category and any.
  var yaml = "feeds:\n  - url: https://example.com/feed\n    name: bench\n    tags: [bench]\nrules:\n"
  let fields = ["title", "text", "category", "any"]
  for index in 0..<100 {
    let field = random.pick(fields)
    let word = random.pick(words)
    let matcher: String
    switch index % 10 {
    case 0..<4: matcher = "'\(word)'"
    case 4..<7: matcher = "{ words: ['\(word)', '\(random.pick(words))'] }"
    default: matcher = "{ regex: '\(word)[[:space:]]+[a-z]+' }"
    }
    yaml += "  - { name: r\(index), match: { \(field): \(matcher) }, tag: [t\(index % 7)] }\n"
  }
  let config = try ConfigLoader.parse(yaml, path: "bench.yaml")
  let engine = RuleEngine(rules: config.rules, settings: config.settings.notify)
  let feed = config.feeds[0]
  var items: [FeedItem] = []
  let itemCount = ProcessInfo.processInfo.environment["WATCHER_BENCH_ITEMS"].flatMap { Int($0) } ?? 50_000
  for index in 0..<itemCount {
    let title = (0..<(6 + Int(random.next() % 5))).map { _ in random.pick(words) }.joined(separator: " ")
    let text = (0..<80).map { _ in random.pick(words) }.joined(separator: " ")
    let cats = (0..<(1 + Int(random.next() % 3))).map { _ in random.pick(categories) }
    items.append(FeedItem(key: "k\(index)", title: title, categories: cats, published: Date(), text: text))
  }
  let now = Date()
  let environment = ProcessInfo.processInfo.environment
  // Timing on a shared VM varies by ±15% from pass to pass: each figure is the median of several passes.
  let passes = environment["WATCHER_BENCH_PASSES"].flatMap { Int($0) } ?? 5
  // WATCHER_BENCH_ONLY=poll|threads|excerpts runs one measure alone (for a profiler).
  let only = environment["WATCHER_BENCH_ONLY"]
  func median(_ name: String, _ body: () -> Void) -> Double? {
    guard only == nil || only == name else { return nil }
    let times = (0..<passes).map { _ in seconds(body) }.sorted()
    return times[times.count / 2]
  }
  var touched = 0
  var matches = 0
  for item in items {
    let decision = engine.evaluate(item, feed: feed, now: now, excerpts: false)
    if decision.isTouched { touched += 1 }
    matches += decision.matches.count
  }
  // As a poll evaluates them (no match excerpts), on one thread and on every core (items are independent;
  // the engine is a pure, Sendable value); and as test-rules does (with excerpts).
  let oneThread = median("poll") {
    for item in items { _ = engine.evaluate(item, feed: feed, now: now, excerpts: false) }
  }
  let threads = Processors.available
  let chunk = (items.count + threads - 1) / threads
  let shared = items
  let parallelSeconds = median("threads") {
    WorkerPool.shared.perform(iterations: threads) { part in
      for item in shared[(part * chunk)..<min(shared.count, (part + 1) * chunk)] {
        _ = engine.evaluate(item, feed: feed, now: now, excerpts: false)
      }
    }
  }
  let withExcerpts = median("excerpts") {
    for item in items { _ = engine.evaluate(item, feed: feed, now: now) }
  }
  let evaluations = Double(items.count * config.rules.count)
  print(
    "rules: \(config.rules.count) (40 substring, 30 words, 30 regex) over \(items.count) items (~500-byte texts);"
      + " median of \(passes) passes")
  func report(_ label: String, _ time: Double?) {
    guard let time else { return }
    print(String(format: "%@ %.3f s, %.2f million rule evaluations per second", label, time, evaluations / time / 1e6))
  }
  report("1 thread:", oneThread)
  report("\(threads) threads:", parallelSeconds)
  report("1 thread with match excerpts (test-rules):", withExcerpts)
  print("items touched: \(touched), rule matches: \(matches)")
}

let which = CommandLine.arguments.dropFirst().first ?? "rules"
switch which {
case "rules": try rulesBenchmark()
case "regex": try regexBenchmark()
case "extract": try extractBenchmark()
case "extract-time": try extractTimeBenchmark()
default:
  print("usage: watcher-bench [rules|regex|extract|extract-time DIR [PASSES]]")
  exit(64)
}
