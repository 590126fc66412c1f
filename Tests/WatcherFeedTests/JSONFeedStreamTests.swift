// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport
import WatcherXML

@testable import WatcherFeed

/// A JSON Feed file is read an item at a time (`JSONFeedParser.stream`), and reads as the whole-document
/// parse reads it.
@Suite("JSON Feed, an item at a time")
struct JSONFeedStreamTests {
  /// Writes `text` to a scratch file and streams it: the events in the order they came, and the result.
  static func stream(_ text: String) throws -> (events: [String], items: [FeedItem], streamed: FeedParser.Streamed) {
    let directory = try TemporaryDirectory()
    let path = directory.url.appendingPathComponent("feed.json").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    var events: [String] = []
    var items: [FeedItem] = []
    let streamed = try FeedParser.stream(
      contentsOf: path, header: { events.append("header \($0.title ?? "-") \($0.link ?? "-")") },
      item: { item in
        events.append("item \(item.title ?? "-")")
        items.append(item)
      })
    return (events, items, streamed)
  }

  @Test("the feed's members come first whatever their place, and each item's links resolve against its home")
  func membersAfterItems() throws {
    let text = """
      {"items": [{"id": "1", "url": "/posts/1", "title": "One"}, 7, {"id": "2", "url": "posts/2", "title": "Two"}],
       "title": "Late title", "home_page_url": "https://example.org/blog/",
       "version": "https://jsonfeed.org/version/1.1", "items": [{"id": "3", "title": "Never read"}]}
      """
    let (events, items, streamed) = try Self.stream(text)
    #expect(events == ["header Late title https://example.org/blog/", "item One", "item Two"])
    #expect(items.map(\.link) == ["https://example.org/posts/1", "https://example.org/blog/posts/2"])
    #expect(streamed.feed.format == .json11 && streamed.items == 2)
    #expect(streamed.warnings.map(\.message) == ["items[1] is not an object; skipped"])
    // The whole-document parse reads the same.
    let whole = try FeedParser.parse(Data(text.utf8))
    #expect(whole.feed.items == items)
    #expect(whole.warnings.map(\.message) == streamed.warnings.map(\.message))
    #expect(whole.feed.title == streamed.feed.title && whole.feed.link == streamed.feed.link)
  }

  @Test(
    "documents the strict reader refuses, or that are not a JSON Feed, say so as before, with nothing handed over",
    arguments: [
      (#"{"title": "x", "items": [{"id": "1", "title": "a"}"#, "invalid JSON"),
      (#"{"title": "x", "items": "none"}"#, "JSON that is not a JSON Feed"),
      (#"[{"id": "1"}]"#, "JSON that is not an object"),
    ])
  func refused(_ text: String, _ message: String) throws {
    let directory = try TemporaryDirectory()
    let path = directory.url.appendingPathComponent("feed.json").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    var handed = 0
    #expect {
      _ = try FeedParser.stream(contentsOf: path, header: { _ in }, item: { _ in handed += 1 })
    } throws: { error in
      "\(error)".contains(message)
    }
    #expect(handed == 0)
  }

  @Test("escapes in long strings read the same through the fast scan: quotes, backslashes, \\u, surrogates")
  func escapes() throws {
    let html = String(repeating: "<a href=\\\"https://example.com/x\\\">link</a> \\\\ ", count: 3)
    let text =
      #"{"items": [{"id": "1", "title": "Caf\u00e9 \ud83d\ude00 \"quoted\" and a long tail to pass sixteen bytes", "content_html": "\#(html)"}]}"#
    let (_, items, _) = try Self.stream(text)
    #expect(items.first?.title == "Café 😀 \"quoted\" and a long tail to pass sixteen bytes")
    let expected = try JSONDecoder().decode([String: [[String: String]]].self, from: Data(text.utf8))
    let decoded = try #require(expected["items"]?.first?["content_html"])
    #expect(decoded.contains(#"<a href="https://example.com/x">link</a> \ <a"#))
    #expect(items.first?.html?.contains(#"<a href="https://example.com/x">link</a>"#) == true, "\(items)")
  }

  @Test("each member watcher reads is told by its name, and no other name is taken for one")
  func memberNames() {
    for key in JSONFeedItem.Key.allCases { #expect(JSONFeedItem.Key.named(key.name) == key, "\(key.name)") }
    for other in [
      "", "ID", "ur", "urls", "tags2", "timer", "imagE", "banner_imagE", "content_htmx", "external_uri",
      "date_modifie", "summarY", "authorz", "attachmentss", "_title", "language", "content", "bannerimage1",
    ] {
      #expect(JSONFeedItem.Key.named(other) == nil, "\(other)")
    }
  }
}
