// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed
import WatcherSupport
import WatcherTestSupport

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

  @Test("items keep document order through the worker pipeline and the JSON writer")
  func order() throws {
    let parsed = try FeedParser.parse(Self.rss)
    #expect(parsed.feed.items.map(\.key) == (0..<Self.count).map { "k\($0)" })
    #expect(parsed.feed.items[1_000].title == "Item 1000 & more")
    #expect(parsed.feed.items[2_000].text == "Text 2000")
    var chunks: [[UInt8]] = []
    var writer = FeedJSONWriter { chunks.append(Array(copying: $0)) }
    writer.write(parsed)
    #expect(chunks.count > 3)
    let doc = try #require(
      try JSONSerialization.jsonObject(with: Data(chunks.joined())) as? [String: Any])
    let items = try #require(doc["items"] as? [[String: Any]])
    #expect(items.map { $0["key"] as? String } == (0..<Self.count).map { "k\($0)" })
    #expect(items[1_999]["text"] as? String == "Text 1999")
  }

  @Test(
    "items written one by one, from their encoded bytes or encoded in place, go out whole and in order, in chunks of 64 KiB and at most one item more",
    arguments: [false, true])
  func streamedChunks(preEncoded: Bool) throws {
    let parsed = try FeedParser.parse(Self.rss)
    var whole: [UInt8] = []
    var writer = FeedJSONWriter { whole.append(bytes: $0) }
    writer.write(parsed)
    var chunks: [[UInt8]] = []
    var streamed = FeedJSONWriter { chunks.append(Array(copying: $0)) }
    var feed = parsed.feed
    feed.items = []
    streamed.begin(feed)
    var largest = 0
    for item in parsed.feed.items {
      let encoded = FeedJSONWriter.encode(item)
      largest = max(largest, encoded.count + 1)
      if preEncoded { streamed.item(encoded: encoded) } else { streamed.item(item) }
    }
    streamed.end(warnings: parsed.warnings)
    #expect(Array(chunks.joined()) == whole)
    #expect(chunks.count > 3)
    // A chunk is handed over once it holds 64 KiB.
    for chunk in chunks.dropFirst() { #expect(chunk.count < 65_536 + largest, "\(chunk.count)") }
    #expect(chunks.dropFirst().dropLast().allSatisfy { $0.count >= 65_536 })
  }

  @Test("a document with hundreds of distinct element names, in several namespaces, is read as with few")
  func manyElementNames() throws {
    var doc = "<rss version=\"2.0\" xmlns:x=\"urn:x\" xmlns:y=\"urn:y\"><channel><title>Names</title>"
    for i in 0..<300 {
      doc += "<item><e\(i)>skip</e\(i)><x:title>no</x:title><y:n\(i)/><title>Item \(i)</title><guid>g\(i)</guid>"
      doc += "<category>c\(i % 7)</category></item>"
    }
    let parsed = try FeedParser.parse(Data((doc + "</channel></rss>").utf8))
    #expect(parsed.feed.title == "Names")
    #expect(parsed.feed.items.map(\.key) == (0..<300).map { "g\($0)" })
    #expect(parsed.feed.items.map(\.title) == (0..<300).map { "Item \($0)" })
    #expect(parsed.feed.items[299].categories == ["c\(299 % 7)"])
  }

  @Test("repeated keys get #2, #3 in document order, also past a key that looks like a numbered one")
  func repeatedKeys() {
    var items = ["a", "b", "a", "a#2", "a", "b"].map { FeedItem(key: "", id: $0) }
    FeedIdentity.assignKeys(&items)
    #expect(items.map(\.key) == ["a", "b", "a#2", "a#2#2", "a#3", "b#2"])
  }

  @Test("the keys of a feed with 100,000 items, each twice, are all told apart")
  func manyKeys() {
    let ids = (0..<100_000).map { "https://example.org/posts/\($0)" }
    var items = (ids + ids).map { FeedItem(key: "", id: $0) }
    FeedIdentity.assignKeys(&items)
    #expect(items[..<100_000].map(\.key) == ids)
    #expect(items[100_000...].map(\.key) == ids.map { $0 + "#2" })
  }

  @Test(
    "the key set agrees with a set of byte strings on keys of one length, the empty key and non-ASCII ones, and past its cap reports keys as new"
  )
  func keySet() {
    var keys = FeedIdentity.KeySet()
    var reference = Set<[UInt8]>()  // bytes: `String`'s == takes "é" and "e\u{301}" for one
    // Same length, so only the bytes tell most of them apart; each added twice, in a scrambled order.
    let pool = (0..<30_000).map { String(format: "k%07d", ($0 &* 7_919) % 20_000) } + ["", "é", "e\u{301}"]
    let disagree = (pool + pool.reversed()).filter { keys.insert($0) != reference.insert(Array($0.utf8)).inserted }
    #expect(disagree.isEmpty)
    var capped = FeedIdentity.KeySet(maxKeys: 100)
    let firstHundred = (0..<100).map { capped.insert("k\($0)") }
    #expect(firstHundred.allSatisfy { $0 })
    // Past the cap a key cannot be remembered: new each time; those kept are still found.
    let past = [capped.insert("k100"), capped.insert("k100"), capped.insert("k0"), capped.insert("k99")]
    #expect(past == [true, true, false, false])
  }

  @Test("a reader and the stream that holds it let go of each other when the parse ends: a feed, a page, a failed read")
  func readerReleased() {
    struct Failed: Error {}
    let documents = [
      "<rss version=\"2.0\"><channel><item><title>T</title></item></channel></rss>",
      "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>e</id></entry></feed>",
      "<html><body><p>not a feed</p></body></html>",
    ]
    for (index, document) in documents.enumerated() {
      weak var gone: XMLFeedReader?
      do {
        let reader = XMLFeedReader(documentURL: nil, maxFieldBytes: 1 << 20)
        gone = reader
        var sent = false
        _ = try? reader.read { (out: inout [UInt8]) throws(Failed) -> Bool in
          // The last document's second read fails.
          if sent {
            if index == documents.count - 1 { throw Failed() }
            return false
          }
          sent = true
          out.append(contentsOf: document.utf8)
          return true
        }
      }
      #expect(gone == nil, "document \(index)")
    }
  }

  @Test("categories are collapsed, blank ones dropped and repeats kept once, in RSS and Atom, few or many")
  func categories() throws {
    let few = ["  b ", "a", " ", "b", "\u{A0}", "a\n c", "a"]
    let many = (0..<40).map { " t\($0 % 13) " } + ["", "t0"]
    let expectedFew = ["b", "a", "a c"]
    let expectedMany = (0..<13).map { "t\($0)" }
    func rss(_ values: [String]) -> Data {
      let items = values.map { "<category>\($0)</category>" }.joined()
      return Data("<rss version=\"2.0\"><channel><item><guid>g</guid>\(items)</item></channel></rss>".utf8)
    }
    func atom(_ values: [String]) -> Data {
      let items = values.map { "<category term=\"\"/><dc:subject>\($0)</dc:subject>" }.joined()
      return Data(
        ("<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">"
          + "<entry><id>  e </id>\(items)</entry></feed>").utf8)
    }
    #expect(try FeedParser.parse(rss(few)).feed.items.first?.categories == expectedFew)
    #expect(try FeedParser.parse(rss(many)).feed.items.first?.categories == expectedMany)
    let entry = try FeedParser.parse(atom(few)).feed.items.first
    #expect(entry?.categories == expectedFew)
    #expect(entry?.id == "e")
    #expect(try FeedParser.parse(atom(many)).feed.items.first?.categories == expectedMany)
  }
}
