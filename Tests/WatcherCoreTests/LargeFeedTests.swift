// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed

/// Large feeds take the parallel paths (items normalized on a worker, JSON encoded two batches at a time);
/// order and content must be exactly as in the document.
@Suite("Large feeds")
struct LargeFeedTests {
  static let count = 2_345

  static let rss: Data = {
    var doc = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Large</title>"
    for i in 0..<count {
      doc += "<item><title>Item \(i) &amp; more</title><guid>k\(i)</guid>"
      doc += "<description>&lt;p&gt;Text \(i)&lt;/p&gt;</description></item>\n"
    }
    return Data((doc + "</channel></rss>").utf8)
  }()

  @Test("items keep document order through the worker pipeline and the parallel JSON encoder")
  func order() throws {
    let parsed = try FeedParser.parse(Self.rss)
    #expect(parsed.feed.items.map(\.key) == (0..<Self.count).map { "k\($0)" })
    #expect(parsed.feed.items[1_000].title == "Item 1000 & more")
    #expect(parsed.feed.items[2_000].text == "Text 2000")
    var chunks: [[UInt8]] = []
    var writer = FeedJSONWriter { chunks.append($0) }
    writer.write(parsed)
    #expect(chunks.count > 3)
    let doc = try #require(
      try JSONSerialization.jsonObject(with: Data(chunks.joined())) as? [String: Any])
    let items = try #require(doc["items"] as? [[String: Any]])
    #expect(items.map { $0["key"] as? String } == (0..<Self.count).map { "k\($0)" })
    #expect(items[1_999]["text"] as? String == "Text 1999")
  }
}
