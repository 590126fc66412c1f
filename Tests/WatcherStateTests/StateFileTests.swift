// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherState
import WatcherSupport
import WatcherTestSupport

/// The state file's JSON: the reader behind it, and the file read back exactly as it was written.
@Suite("State files")
struct StateFileTests {
  /// Reads `text` as any JSON value, rebuilt as a normalized string (to compare what was read).
  static func echo(_ text: String) throws -> String {
    try JSONReader.read(Array(text.utf8)) { json in try value(&json) }
  }

  private static func value(_ json: inout JSONReader) throws -> String {
    if try json.null() { return "null" }
    // Peek by trying each kind in turn, as a caller that knows its schema never has to.
    let attempts: [(inout JSONReader) throws -> String] = [
      { "\"" + (try $0.string()) + "\"" },
      { String(try $0.bool()) },
      { String(try $0.int()) },
      { json in
        var parts: [String] = []
        try json.array { parts.append(try value(&$0)) }
        return "[" + parts.joined(separator: ",") + "]"
      },
      { json in
        var parts: [String] = []
        try json.object { json, key in parts.append(key + ":" + (try value(&json))) }
        return "{" + parts.joined(separator: ",") + "}"
      },
    ]
    for attempt in attempts.dropLast() {
      if let result = try? attempt(&json) { return result }
    }
    return try attempts[attempts.count - 1](&json)
  }

  @Test("the reader reads what JSON allows: nesting, escapes, surrogate pairs, whitespace, numbers")
  func readsValidJSON() throws {
    #expect(
      try Self.echo(#" { "a" : [ 1 , -20, true, false, null ] , "b": {} , "c": [] } "#)
        == "{a:[1,-20,true,false,null],b:{},c:[]}")
    #expect(try Self.echo(#""tab\there \"q\" \\ \/ \u00e9 \ud83d\ude00 \n""#) == "\"tab\there \"q\" \\ / é 😀 \n\"")
    #expect(try Self.echo(#""plain é text""#) == "\"plain é text\"")
    #expect(try Self.echo("\(Int.max)") == "\(Int.max)")
    #expect(try Self.echo("\(Int.min)") == "\(Int.min)")
    // Skipped values are still checked, fractions and exponents included.
    let skipped = try JSONReader.read(Array(#"{"x": [1.5e3, -0.25, {"y": "z"}], "keep": 7}"#.utf8)) { json in
      var kept = 0
      try json.object { json, key in
        if key == "keep" { kept = try json.int() } else { try json.skipValue() }
      }
      return kept
    }
    #expect(skipped == 7)
  }

  @Test(
    "the reader refuses what JSON does not allow, and says where",
    arguments: [
      ("{\"a\": 1,}", 1, 9),
      ("{\"a\" 1}", 1, 6),
      ("[1 2]", 1, 4),
      ("{\"a\": 1} x", 1, 10),
      ("{\n  \"a\": tru\n}", 2, 8),
      ("\"unterminated", 1, 1),
      ("\"bad \\x escape\"", 1, 6),
      ("\"lone \\ud800 surrogate\"", 1, 13),
      ("\"raw\ncontrol\"", 1, 5),
      ("[01]", 1, 2),
      ("[1.]", 1, 2),
      ("", 1, 1),
    ])
  func refusesInvalidJSON(text: String, line: Int, column: Int) {
    do {
      _ = try JSONReader.read(Array(text.utf8)) { json in try json.skipValue() }
      Issue.record("accepted \(text.debugDescription)")
    } catch let failure as JSONReader.Failure {
      #expect((failure.line, failure.column) == (line, column), "\(text.debugDescription): \(failure)")
    } catch {
      Issue.record("\(error)")
    }
  }

  @Test("types are checked: an integer is not a string, a fraction is not an integer, invalid UTF-8 is refused")
  func typesAreChecked() throws {
    #expect(throws: JSONReader.Failure.self) { try JSONReader.read(Array("\"1\"".utf8)) { try $0.int() } }
    #expect(throws: JSONReader.Failure.self) { try JSONReader.read(Array("1".utf8)) { try $0.string() } }
    #expect(throws: JSONReader.Failure.self) { try JSONReader.read(Array("1.5".utf8)) { try $0.int() } }
    #expect(throws: JSONReader.Failure.self) {
      try JSONReader.read(Array("99999999999999999999".utf8)) { try $0.int() }
    }
    // Invalid UTF-8 of every kind, bare and after an escape: a byte that starts nothing, an overlong form, a
    // surrogate, a sequence cut short, one past U+10FFFF.
    for bad: [UInt8] in [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xC3], [0xE6, 0x9D], [0xF4, 0x90, 0x80, 0x80]] {
      for escaped in [false, true] {
        let bytes = [0x22] + (escaped ? Array("\\n".utf8) : []) + bad + [0x22]
        #expect(throws: JSONReader.Failure.self, "\(bad)") { try JSONReader.read(bytes) { try $0.string() } }
      }
    }
    for good in ["São Paulo", "東京", "🦀 x", "\u{10FFFF}", ""] {
      #expect(try JSONReader.read(Array("\"\(good)\"".utf8)) { try $0.string() } == good)
    }
    // A member skipped is checked all the same, its keys too.
    func kept(_ json: [UInt8]) throws -> String? {
      try JSONReader.read(json) { json in
        var kept: String?
        try json.object { json, key in if key == "k" { kept = try json.string() } else { try json.skipValue() } }
        return kept
      }
    }
    #expect(try kept(Array(#"{"u": {"a": ["x", 1.5e3, {"b\"": "é"}, {}, []], "n": null}, "k": "v"}"#.utf8)) == "v")
    let bad = [
      Array(#"{"u": {"a": 1 "b": 2}}"#.utf8), Array(#"{"u": {""#.utf8) + [0xC0, 0x80] + Array(#"": 1}}"#.utf8),
      Array(#"{"u": {"a": "x"#.utf8) + [0xFF] + Array(#""}}"#.utf8),
    ]
    for json in bad { #expect(throws: JSONReader.Failure.self) { try kept(json) } }
    // Passed over unchecked: by brackets and quotes alone, whatever the strings hold.
    func keptUnchecked(_ text: String) throws -> String? {
      try JSONReader.read(Array(text.utf8)) { json in
        var kept: String?
        try json.object { json, key in if key == "k" { kept = try json.string() } else { try json.skipUnchecked() } }
        return kept
      }
    }
    let values = [
      #"{"a\"]}": ["]}\\", {"b": [1, -2.5e3, true, null]}], "c": {}}"#, "[]", "{}", "12", "null", #""x\"""#,
    ]
    for value in values {
      #expect(try keptUnchecked(#"{"u": \#(value), "k": "v"}"#) == "v", "\(value)")
      #expect(try keptUnchecked(#"{"k": "v", "u": \#(value)}"#) == "v", "\(value)")
    }
    for broken in [#"{"u": {"a": [1, 2}"#, #"{"u": "x"#, #"{"u": "x\"}"#, #"{"u": "#] {
      #expect(throws: JSONReader.Failure.self, "\(broken)") { try keptUnchecked(broken) }
    }
  }

  @Test("nesting deeper than the limit is refused, not a stack overflow")
  func nestingIsBounded() {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    #expect(throws: JSONReader.Failure.self) { try JSONReader.read(Array(deep.utf8)) { try $0.skipValue() } }
    let fine = String(repeating: "[", count: JSONReader.maxDepth) + String(repeating: "]", count: JSONReader.maxDepth)
    #expect(throws: Never.self) { try JSONReader.read(Array(fine.utf8)) { try $0.skipValue() } }
  }

  /// A state with every member set, as a long-lived feed's file holds it.
  static func fullState() -> FeedState {
    let date = Date(timeIntervalSince1970: 1_796_034_030)
    var state = FeedState(url: "https://example.com/feed.xml")
    state.etag = "\"v1\""
    state.lastModified = "Mon, 30 Nov 2026 10:00:00 GMT"
    state.bodyFingerprint = "1234:00ff00ff00ff00ff"
    state.lastAttempt = date
    state.lastSuccess = date
    state.lastSuccessBefore = date.addingTimeInterval(-60)
    state.consecutiveFailures = 2
    state.lastError = "HTTP 503"
    state.lastActionError = "the hook exited with status 1"
    state.notBefore = date.addingTimeInterval(60)
    state.retryAfterUntil = date.addingTimeInterval(120)
    state.movedTo = "https://example.org/feed.xml"
    state.initialized = true
    state.items = [
      "urn:a": .init(firstSeen: date, lastSeen: date), "urn:\"quoted\" é": .init(firstSeen: date, lastSeen: date),
    ]
    var hook = FeedState.PendingAction(
      kind: .hook, key: "urn:a", rule: "r", command: "printf '%s\\n' \"$WATCHER_TITLE\"", arguments: ["a", "b c"],
      timeout: 30, item: #"{"title":"A\nB"}"#, environment: ["WATCHER_TITLE": "A\u{1}B"], link: "https://x/",
      title: "A", created: date)
    hook.attempts = 3
    hook.lastError = "exit 1"
    var note = FeedState.PendingAction(
      kind: .notify, key: "urn:b", rule: nil, summary: "S", body: "B <b>", urgency: .critical, expire: 5,
      icon: "dialog-information", created: date)
    if case .notify(var shown) = note.payload {
      shown.image = "https://x/i.png"
      note.payload = .notify(shown)
    }
    state.pending = [hook, note]
    state.dropped = [.init(key: "urn:c", rule: "r", what: "hook", reason: "timed out", time: date)]
    return state
  }

  @Test(
    "a state file's layout: version first, known items last, the rest sorted; two-space indent, one member a line"
  )
  func layout() {
    var state = Self.fullState()
    state.items = ["b": .init(firstSeen: Date(timeIntervalSince1970: 0), lastSeen: Date(timeIntervalSince1970: 86_399))]
    let full = #"""
      {
        "version": 1,
        "body_fingerprint": "1234:00ff00ff00ff00ff",
        "consecutive_failures": 2,
        "dropped": [
          {
            "key": "urn:c",
            "reason": "timed out",
            "rule": "r",
            "time": "2026-11-30T10:20:30Z",
            "what": "hook"
          }
        ],
        "etag": "\"v1\"",
        "initialized": true,
        "last_action_error": "the hook exited with status 1",
        "last_attempt": "2026-11-30T10:20:30Z",
        "last_error": "HTTP 503",
        "last_modified": "Mon, 30 Nov 2026 10:00:00 GMT",
        "last_success": "2026-11-30T10:20:30Z",
        "last_success_before": "2026-11-30T10:19:30Z",
        "moved_to": "https://example.org/feed.xml",
        "not_before": "2026-11-30T10:21:30Z",
        "retry_after_until": "2026-11-30T10:22:30Z",
        "pending": [
          {
            "arguments": [
              "a",
              "b c"
            ],
            "attempts": 3,
            "command": "printf '%s\\n' \"$WATCHER_TITLE\"",
            "created": "2026-11-30T10:20:30Z",
            "environment": {
              "WATCHER_TITLE": "A\u0001B"
            },
            "link": "https://x/",
            "item": "{\"title\":\"A\\nB\"}",
            "key": "urn:a",
            "kind": "hook",
            "last_error": "exit 1",
            "rule": "r",
            "timeout": 30,
            "title": "A"
          },
          {
            "attempts": 0,
            "body": "B <b>",
            "created": "2026-11-30T10:20:30Z",
            "expire": 5,
            "icon": "dialog-information",
            "image": "https://x/i.png",
            "key": "urn:b",
            "kind": "notify",
            "summary": "S",
            "urgency": "critical"
          }
        ],
        "url": "https://example.com/feed.xml",
        "items": {
          "b": {
            "first_seen": "1970-01-01T00:00:00Z",
            "last_seen": "1970-01-01T23:59:59Z"
          }
        }
      }

      """#
    #expect(String(decoding: state.pretty, as: UTF8.self) == full)
    let empty = #"""
      {
        "version": 1,
        "consecutive_failures": 0,
        "dropped": [],
        "initialized": false,
        "pending": [],
        "url": "u",
        "items": {}
      }

      """#
    #expect(String(decoding: FeedState(url: "u").pretty, as: UTF8.self) == empty)
  }

  @Test("a state file reads back exactly as it was written, and is JSON that any reader takes")
  func roundTrip() throws {
    let state = Self.fullState()
    let bytes = Data(state.pretty)
    let read = try StateStore.decode(bytes)
    #expect(read == state)
    let object = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
    #expect((object["pending"] as? [[String: Any]])?.count == 2 && object["url"] as? String == state.url)
    // An empty state, as a first poll leaves it.
    #expect(try StateStore.decode(Data(FeedState(url: "u").pretty)) == FeedState(url: "u"))
  }

  @Test("a read to schedule stops where the known items begin; in a file of the earlier order it skips them")
  func readWithoutItems() throws {
    var state = Self.fullState()
    state.items = ["b": .init(firstSeen: Date(timeIntervalSince1970: 0), lastSeen: Date(timeIntervalSince1970: 1))]
    state.itemDigests = ["b": 42]
    // What follows the start of the items is not read at all: it need not even be JSON.
    let text = String(decoding: state.pretty, as: UTF8.self)
    let digests = try #require(text.range(of: "\"item_digests\""))
    let written = Data((text[..<digests.upperBound] + ": {{{ not json").utf8)
    let partial = try StateStore.decode(written, items: false)
    #expect(partial == (try StateStore.decode(Data(state.pretty), items: false)))
    #expect(partial.itemsSkipped && partial.items.isEmpty && partial.itemDigests.isEmpty)
    #expect(partial.pending == state.pending && partial.dropped == state.dropped && partial.url == state.url)
    #expect(partial.movedTo == state.movedTo && partial.retryAfterUntil == state.retryAfterUntil)
    #expect(throws: (any Error).self) { try StateStore.decode(written) }
    // A file an earlier release wrote (every key sorted, the items in the middle): all the rest is read.
    let earlier = #"""
      {"body_fingerprint": "1234:00ff", "etag": "e", "items": {"b": {"first_seen": "1970-01-01T00:00:00Z",
       "last_seen": "1970-01-01T00:00:01Z"}}, "last_success": "2026-11-30T10:20:30Z", "pending": [],
       "url": "https://example.com/feed.xml", "version": 1}
      """#
    let old = try StateStore.decode(Data(earlier.utf8), items: false)
    #expect(old.items.isEmpty && old.itemsSkipped && old.etag == "e" && old.lastSuccess == state.lastSuccess)
    #expect(try StateStore.decode(Data(earlier.utf8)).items.count == 1)
  }

  @Test("members a later version adds are skipped; missing optional ones take their defaults")
  func unknownAndMissingMembers() throws {
    let text =
      #"{"url": "u", "future": {"nested": [1, 2.5, null]}, "items": {"k": {"first_seen": "2026-11-30T10:00:00Z", "last_seen": "2026-11-30T11:00:00Z", "extra": true}}}"#
    let state = try StateStore.decode(Data(text.utf8))
    #expect(state.url == "u" && state.items.count == 1 && state.version == FeedState.currentVersion)
    #expect(state.consecutiveFailures == 0 && !state.initialized && state.pending.isEmpty)
  }

  @Test(
    "a state file with a wrong or missing value is refused with the place and the reason",
    arguments: [
      (#"{"url": 5}"#, "line 1, column 9: expected a string"),
      (#"{"etag": "x"}"#, "the state has no 'url'"),
      (
        "{\"url\": \"u\",\n \"items\": {\"k\": {\"first_seen\": \"yesterday\", \"last_seen\": \"2026-11-30T11:00:00Z\"}}}",
        "line 2, column 32: expected a date"
      ),
      (
        #"{"url": "u", "pending": [{"kind": "email", "key": "k", "attempts": 0, "created": "2026-11-30T11:00:00Z"}]}"#,
        "an unknown action kind 'email'"
      ),
      (
        #"{"url": "u", "pending": [{"kind": "hook", "key": "k", "created": "2026-11-30T11:00:00Z"}]}"#,
        "a pending action needs"
      ),
      (#"{"url": "u", "version": 99}"#, "newer than this watcher"),
    ])
  func refusesBadStates(text: String, expected: String) {
    do {
      _ = try StateStore.decode(Data(text.utf8))
      Issue.record("accepted \(text)")
    } catch {
      #expect("\(error)".contains(expected), "\(error)")
    }
  }

  @Test("a body's fingerprint changes with any byte, with the length, and with its context")
  func fingerprints() {
    func print(_ bytes: [UInt8], _ context: String = "") -> String {
      StableHash.fingerprint(of: bytes.span.bytes, context: context)
    }
    let body = Array("<rss><channel><item><guid>a</guid></item></channel></rss>".utf8)
    #expect(print(body) == print(body))
    var seen: Set<String> = [print(body)]
    for index in body.indices {
      var changed = body
      changed[index] ^= 1
      seen.insert(print(changed))
    }
    seen.insert(print(body + [0]))
    seen.insert(print(Array(body.dropLast())))
    seen.insert(print(body, "https://example.com/\nutf-8"))
    seen.insert(print([]))
    seen.insert(print([0]))
    #expect(seen.count == body.count + 6)
    // The same bytes in any pieces give the same fingerprint.
    for cuts in [[1], [7, 8, 9], [3, 3, 3, 3, 3], [16, 17]] {
      var fingerprint = StableHash.Fingerprint()
      var start = 0
      for cut in cuts + [body.count] where start < body.count {
        let end = min(body.count, start + cut)
        body[start..<end].withUnsafeBytes { fingerprint.add($0.bytes) }
        start = end
      }
      #expect(fingerprint.finish(context: "c") == print(body, "c"), "\(cuts)")
    }
  }
}

@Suite("What a kept notification is about")
struct NotificationCategoryTests {
  static func state(_ pending: String) -> String {
    #"{"url": "u", "version": 1, "initialized": true, "items": {}, "pending": ["# + pending + "]}"
  }

  @Test("a digest's or a feed's health notification says so in the state; one written before that, by its key")
  func category() throws {
    var digest = FeedState.PendingAction.Notification(summary: "d", body: "")
    (digest.category, digest.replaces) = (.digest, "digest:daily")
    var health = FeedState.PendingAction.Notification(summary: "h", body: "")
    health.category = .health
    var state = FeedState(url: "u")
    state.pending = [
      .init(key: "digest:daily", source: .rule("daily"), payload: .notify(digest), created: Date()),
      .init(key: "health:x", source: .feed, payload: .notify(health), created: Date()),
      .init(key: "urn:1", source: .feed, payload: .notify(.init(summary: "i", body: "")), created: Date()),
    ]
    let text = String(decoding: state.pretty, as: UTF8.self)
    #expect(text.contains(#""category": "digest""#) && text.contains(#""category": "health""#))
    let read = try StateStore.decode(Data(state.pretty))
    #expect(read.pending.map(\.notification?.category) == [.digest, .health, .item])
    #expect(read.pending.first?.notification?.replaces == "digest:daily")
    // An earlier version kept neither: the key told.
    let old = try StateStore.decode(
      Data(
        Self.state(
          #"{"attempts": 0, "created": "2026-11-30T10:20:30Z", "key": "digest:daily", "kind": "notify", "summary": "d"}, "#
            + #"{"attempts": 0, "created": "2026-11-30T10:20:30Z", "key": "health:x", "kind": "notify", "summary": "h"}"#
        ).utf8))
    #expect(old.pending.map(\.notification?.category) == [.digest, .health])
    #expect(old.pending.first?.notification?.replaces == "digest:daily")
  }
}
