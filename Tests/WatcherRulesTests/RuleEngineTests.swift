// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing

@testable import WatcherConfig
@testable import WatcherFeed
@testable import WatcherRegex
@testable import WatcherRules
@testable import WatcherSupport

/// Rule semantics, on configs written as users write them.
@Suite("Rule engine")
struct RuleEngineTests {
  static let now = DateParser.parse("2026-11-29T12:00:00Z") ?? Date()

  static func decide(
    _ rules: String, _ item: FeedItem, feed: String = "news", tags: [String] = [], notify: Bool = false
  )
    throws -> Decision
  {
    let yaml = """
      feeds:
        - url: https://example.com/feed
          name: news
          tags: [\(tags.joined(separator: ", "))]
          notify: \(notify)
        - url: https://example.com/other
          name: other
          tags: [misc]
      rules:
      \(rules)
      """
    let config = try ConfigLoader.parse(yaml, path: "test.yaml")
    let engine = RuleEngine(rules: config.rules, settings: config.settings.notify)
    let feedConfig = try #require(config.feeds.first { $0.name == feed })
    return engine.evaluate(item, feed: feedConfig, now: now)
  }

  static func item(
    title: String? = nil, text: String? = nil, categories: [String] = [], author: String? = nil,
    link: String? = nil, published: String? = "2026-11-28T12:00:00Z"
  ) -> FeedItem {
    FeedItem(
      key: "k", title: title, link: link, author: author, categories: categories,
      published: published.flatMap(DateParser.parse), text: text)
  }

  @Test("substring matching is case-insensitive with Unicode case folding")
  func folding() throws {
    let rule = "  - { match: { title: [STRASSE, école, Ǆ] }, tag: [hit] }"
    #expect(try Self.decide(rule, Self.item(title: "Die Straße")).tags == ["hit"])
    #expect(try Self.decide(rule, Self.item(title: "L'ÉCOLE est finie")).tags == ["hit"])
    #expect(try Self.decide(rule, Self.item(title: "ǆ digraph")).tags == ["hit"])
    #expect(try Self.decide(rule, Self.item(title: "Strasbourg")).tags == [])
  }

  @Test("words match whole words only, Unicode aware")
  func words() throws {
    let rule = "  - { match: { text: { words: [CVE, linux, café] } }, tag: [hit] }"
    #expect(try Self.decide(rule, Self.item(text: "Fixes CVE-2026-1")).tags == ["hit"])
    #expect(try Self.decide(rule, Self.item(text: "the Linux kernel")).tags == ["hit"])
    #expect(try Self.decide(rule, Self.item(text: "linuxfoundation.org")).tags == [])
    #expect(try Self.decide(rule, Self.item(text: "CAFÉ au lait")).tags == ["hit"])
    #expect(try Self.decide(rule, Self.item(text: "cafés")).tags == [])
    #expect(try Self.decide(rule, Self.item(text: "précve")).tags == [])
  }

  @Test("regex, equals and case sensitivity")
  func patterns() throws {
    let regex = "  - { match: { title: { regex: '^swift [0-9]+\\.[0-9]+' } }, tag: [hit] }"
    #expect(try Self.decide(regex, Self.item(title: "Swift 6.3 released")).tags == ["hit"])
    #expect(try Self.decide(regex, Self.item(title: "About Swift 6.3")).tags == [])
    let perl = "  - { match: { title: { regex: '\\bv\\d+\\s+out' } }, tag: [hit] }"
    #expect(try Self.decide(perl, Self.item(title: "Version v12 out now")).tags == ["hit"])
    let sensitive = "  - { match: { title: { contains: CVE, case: sensitive } }, tag: [hit] }"
    #expect(try Self.decide(sensitive, Self.item(title: "a CVE")).tags == ["hit"])
    #expect(try Self.decide(sensitive, Self.item(title: "a cve")).tags == [])
    let sensitiveRegex = "  - { match: { title: { regex: 'É', case: sensitive } }, tag: [hit] }"
    #expect(try Self.decide(sensitiveRegex, Self.item(title: "é")).tags == [])
    let regexFolding = "  - { match: { title: { regex: 'élan' } }, tag: [hit] }"
    #expect(try Self.decide(regexFolding, Self.item(title: "ÉLAN")).tags == ["hit"])
    let equals = "  - { match: { category: { equals: [Release] } }, tag: [hit] }"
    #expect(try Self.decide(equals, Self.item(categories: ["news", "release"])).tags == ["hit"])
    #expect(try Self.decide(equals, Self.item(categories: ["pre-release"])).tags == [])
  }

  @Test("fields: author, link, feed, any")
  func fields() throws {
    #expect(try Self.decide("  - { match: { author: ada }, tag: [a] }", Self.item(author: "Ada L.")).tags == ["a"])
    #expect(
      try Self.decide("  - { match: { link: /blog/ }, tag: [l] }", Self.item(link: "https://x/blog/1")).tags == ["l"])
    #expect(try Self.decide("  - { match: { feed: news }, tag: [f] }", Self.item()).tags == ["f"])
    let any = "  - { match: { any: security }, tag: [s] }"
    #expect(try Self.decide(any, Self.item(title: "Security fix")).tags == ["s"])
    #expect(try Self.decide(any, Self.item(text: "about security")).tags == ["s"])
    #expect(try Self.decide(any, Self.item(categories: ["security"])).tags == ["s"])
    #expect(try Self.decide(any, Self.item(author: "security team")).tags == [])
  }

  @Test("combinators all, any, not; several keys in one match must all hold")
  func combinators() throws {
    let rule = """
        - match:
            all:
              - any: [{ title: swift }, { category: swift }]
              - not: { category: sponsored }
          tag: [hit]
      """
    #expect(try Self.decide(rule, Self.item(title: "Swift news")).tags == ["hit"])
    #expect(try Self.decide(rule, Self.item(categories: ["swift"])).tags == ["hit"])
    #expect(try Self.decide(rule, Self.item(title: "Swift", categories: ["sponsored"])).tags == [])
    let both = "  - { match: { title: swift, text: linux }, tag: [hit] }"
    #expect(try Self.decide(both, Self.item(title: "Swift", text: "on Linux")).tags == ["hit"])
    #expect(try Self.decide(both, Self.item(title: "Swift", text: "on macOS")).tags == [])
    let notList = "  - { match: { not: [{ title: a }, { title: b }] }, tag: [hit] }"
    #expect(try Self.decide(notList, Self.item(title: "c")).tags == ["hit"])
    #expect(try Self.decide(notList, Self.item(title: "b")).tags == [])
  }

  @Test("older_than and newer_than use the publish date; no date matches neither")
  func age() throws {
    let older = "  - { match: { older_than: 2d }, tag: [old] }"
    let newer = "  - { match: { newer_than: 2d }, tag: [new] }"
    #expect(try Self.decide(older, Self.item(published: "2026-11-20T00:00:00Z")).tags == ["old"])
    #expect(try Self.decide(newer, Self.item(published: "2026-11-20T00:00:00Z")).tags == [])
    #expect(try Self.decide(newer, Self.item(published: "2026-11-29T00:00:00Z")).tags == ["new"])
    #expect(try Self.decide(older, Self.item(published: nil)).tags == [])
    #expect(try Self.decide(newer, Self.item(published: nil)).tags == [])
  }

  @Test("tags accumulate after feed tags, and later rules match on them")
  func chaining() throws {
    let rules = """
        - { name: first, match: { title: release }, tag: [release] }
        - { name: second, match: { tag: { equals: release } }, tag: [announce] }
        - { name: third, match: { tag: { equals: lang } }, tag: [from-feed] }
      """
    let decision = try Self.decide(rules, Self.item(title: "Release 1"), tags: ["lang"])
    #expect(decision.tags == ["lang", "release", "announce", "from-feed"])
    #expect(decision.matches.map(\.rule) == ["first", "second", "third"])
    #expect(decision.matches[1] == Decision.Match(rule: "second", field: "tag", text: "release"))
  }

  @Test("mute wins over notifications and hooks before and after it")
  func muteWins() throws {
    let rules = """
        - { name: n, match: { title: x }, notify: true, hook: 'echo before' }
        - { name: m, match: { title: ad }, mute: true }
        - { name: h, match: { title: x }, hook: 'echo after' }
      """
    let decision = try Self.decide(rules, Self.item(title: "x ad"), notify: true)
    #expect(decision.muted && decision.mutedBy == "m")
    #expect(decision.notifications.isEmpty && decision.hooks.isEmpty)
    #expect(decision.matches.map(\.rule) == ["n", "m", "h"])
    let clean = try Self.decide(rules, Self.item(title: "x"))
    #expect(
      !clean.muted && clean.notifications.count == 1 && clean.hooks.map(\.command) == ["echo before", "echo after"])
  }

  @Test("stop ends evaluation")
  func stop() throws {
    let rules = """
        - { name: a, match: { title: x }, tag: [a], stop: true }
        - { name: b, match: { title: x }, tag: [b] }
      """
    let decision = try Self.decide(rules, Self.item(title: "x"))
    #expect(decision.tags == ["a"])
    #expect(decision.stoppedBy == "a")
  }

  @Test("scopes name feeds or feed tags")
  func scopes() throws {
    let rules = """
        - { name: by-name, feeds: [news], match: { title: x }, tag: [n] }
        - { name: by-tag, feeds: [misc], match: { title: x }, tag: [m] }
      """
    #expect(try Self.decide(rules, Self.item(title: "x"), feed: "news").tags == ["n"])
    #expect(try Self.decide(rules, Self.item(title: "x"), feed: "other").tags == ["misc", "m"])
  }

  @Test("notifications: templates, defaults, feed notify, urgency")
  func notifications() throws {
    let rules = """
        - name: r
          match: { title: x }
          tag: [t1]
          notify: { summary: "{feed} | {title} | {tags} | {{literal}}", body: "{author} {link} {categories}", urgency: critical }
      """
    let decision = try Self.decide(
      rules, Self.item(title: "x <b>", categories: ["c1", "c2"], author: "Ann", link: "https://l"), tags: ["lang"])
    let n = try #require(decision.notifications.first)
    #expect(n.summary == "news | x <b> | lang, t1 | {literal}")
    #expect(n.body == "Ann https://l c1, c2")
    #expect(n.urgency == .critical && n.rule == "r" && n.expire == 10)
    let feedNotify = try Self.decide(
      "  - { match: { title: nothing }, tag: [z] }", Self.item(title: "t", text: "body"), notify: true)
    #expect(
      feedNotify.notifications == [
        Decision.Notification(
          rule: nil, summary: "news: t", body: "body", urgency: .normal, expire: 10, icon: "application-rss+xml")
      ])
    let long = String(repeating: "word ", count: 100)
    let body =
      try Self.decide("  - { match: { title: t }, notify: true }", Self.item(title: "t", text: long))
      .notifications.first?.body ?? ""
    #expect(body.count == 200 && body.hasSuffix("…"))
  }
}

@Suite("Regex prefilter")
struct RegexPrefilterTests {
  static let cases: [(String, String?)] = [
    ("^swift [0-9]+", "swift "),
    ("cve-[0-9]+-[0-9]+", "cve-"),
    ("release|launch", nil),
    ("(foo)bar", "foobar"),
    ("(foo)?bar", "bar"),
    ("x(ab|cd)yz", "yz"),
    ("colou?r", "colo"),
    ("ab{0,2}c", nil),
    ("x\\.yz", "x.yz"),
    ("foo\\b", "foo"),
    ("ab+c", "ab"),
    ("[abc]def", "def"),
    ("a.b", nil),
  ]

  @Test("the required literal is one every match contains", arguments: cases)
  func literal(_ pattern: String, _ expected: String?) throws {
    #expect(try LinearRegex(pattern, caseSensitive: true).requiredLiteral == expected)
  }

  @Test("the prefilter never changes the answer")
  func sameAnswer() throws {
    let texts = ["swift 6", "about swift 6", "colour", "color", "colr", "foobar", "xbar", "ab{0,2}c", "abbbc", "x.yz"]
    for (pattern, _) in Self.cases {
      let regex = try LinearRegex(pattern, caseSensitive: true)
      for text in texts {
        let expected = text.range(of: pattern, options: .regularExpression) != nil
        #expect((regex.firstMatch(in: text) != nil) == expected, "\(pattern) on \(text)")
      }
    }
  }
}

/// The shared machinery under the rules: the literal automaton, and evaluation on several threads at once.
@Suite("Rule machinery")
struct RuleMachineryTests {
  /// A small deterministic generator (xorshift), so that a failure is reproducible.
  struct Generator {
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    mutating func next(_ bound: Int) -> Int {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return Int(state % UInt64(bound))
    }
  }

  @Test("the automaton reports exactly the occurrences a plain search finds, with overlaps and shared prefixes")
  func automatonMatchesPlainSearch() {
    var random = Generator()
    // Needles that share prefixes and suffixes and contain one another, some with accented bytes.
    let needles = ["ab", "abc", "bca", "c", "ca", "é", "aé", "ééa", "zz", "abcabc", "b"].map { Array($0.utf8) }
    let set = NeedleSet(needles)
    let alphabet = Array("abcé z.".utf8) + [0xC3, 0x80, 0xFF]
    for _ in 0..<300 {
      let text = (0..<random.next(60)).map { _ in alphabet[random.next(alphabet.count)] }
      var found: Set<[Int]> = []
      text.withUnsafeBufferPointer { bytes in set.scan(bytes) { id, start in found.insert([id, start]) } }
      var expected: Set<[Int]> = []
      for (id, needle) in needles.enumerated() where needle.count <= text.count {
        for start in 0...(text.count - needle.count) where Array(text[start..<(start + needle.count)]) == needle {
          expected.insert([id, start])
        }
      }
      #expect(found == expected, "in \(text)")
    }
  }

  @Test("an automaton with no needles finds nothing")
  func emptyAutomaton() {
    let set = NeedleSet([])
    var calls = 0
    Array("anything at all".utf8).withUnsafeBufferPointer { set.scan($0) { _, _ in calls += 1 } }
    #expect(calls == 0)
    #expect(set.words == 0)
  }

  @Test("items evaluated on several threads at once get exactly the decisions of one thread")
  func threadsAgree() throws {
    var yaml = "feeds:\n  - url: https://example.com/feed\n    name: news\nrules:\n"
    let words = ["linux", "kernel", "swift", "release", "straße", "école", "rust", "cve"]
    for (index, word) in words.enumerated() {
      yaml += "  - { name: s\(index), match: { any: '\(word)' }, tag: [t\(index)] }\n"
      yaml += "  - { name: w\(index), match: { title: { words: ['\(word)'] } }, notify: {} }\n"
      yaml += "  - { name: r\(index), match: { text: { regex: '\(word)[[:space:]]+[0-9]+' } }, mute: true }\n"
    }
    let config = try ConfigLoader.parse(yaml, path: "threads.yaml")
    let engine = RuleEngine(rules: config.rules, settings: config.settings.notify)
    var random = Generator()
    let vocabulary =
      words + ["1", "22", "the", "a", "STRASSE", "École", "Linux's", "kernels"] + (0..<40).map { "filler\($0)" }
    let items = (0..<2_000).map { index in
      FeedItem(
        key: "k\(index)", title: (0..<3).map { _ in vocabulary[random.next(vocabulary.count)] }.joined(separator: " "),
        categories: [vocabulary[random.next(vocabulary.count)]],
        text: (0..<10).map { _ in vocabulary[random.next(vocabulary.count)] }.joined(separator: " "))
    }
    let feed = config.feeds[0]
    let now = Date()
    let expected = items.map { engine.evaluate($0, feed: feed, now: now, excerpts: false) }
    // Varied decisions: some items untouched, some tagged, notified, muted.
    #expect(expected.contains { $0.matches.isEmpty } && expected.contains { !$0.tags.isEmpty })
    #expect(expected.contains { !$0.notifications.isEmpty } && expected.contains { $0.muted })
    let results = Locked([Decision?](repeating: nil, count: items.count))
    DispatchQueue.concurrentPerform(iterations: 4) { part in
      for index in stride(from: part, to: items.count, by: 4) {
        let decision = engine.evaluate(items[index], feed: feed, now: now, excerpts: false)
        results.withLock { $0[index] = decision }
      }
    }
    #expect(results.withLock { $0 } == expected)
  }
}
