// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport
import WatcherTestSupport

@testable import WatcherFeed
@testable import WatcherXML

/// Hostile documents cost bounded time and memory and read no file.
///
/// Time and memory figures are measured by `Scripts/bench/hostile.sh`, not asserted here.
@Suite("Hostile input")
struct HostileInputTests {
  static let billionLaughs: String = {
    var doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n"
    var previous = "lol"
    for level in 2...9 {
      doc += " <!ENTITY lol\(level) \"\(String(repeating: "&\(previous);", count: 10))\">\n"
      previous = "lol\(level)"
    }
    return doc + "]>\n<rss version=\"2.0\"><channel><title>&lol9;</title>"
      + "<item><title>after &lol9; bomb</title><guid>1</guid></item></channel></rss>\n"
  }()

  static let quadratic =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE q [<!ENTITY a \"\(String(repeating: "x", count: 100_000))\">]>\n"
    + "<rss version=\"2.0\"><channel><title>quadratic</title><item><title>\(String(repeating: "&a;", count: 100_000))"
    + "</title><guid>1</guid></item></channel></rss>\n"

  /// Parses straight through libxml2, without the input cleaner that escapes unknown entities first, so the
  /// parser's own configuration is what is tested.
  static func parseRaw(_ xml: String) -> (Feed?, [FeedWarning]) {
    let reader = XMLFeedReader(documentURL: nil, maxFieldBytes: 1 << 20)
    return reader.read { out in
      out = Array(xml.utf8)
      return false
    }
  }

  @Test("entity expansion bombs are never expanded, by the cleaner or by libxml2")
  func entityBombs() throws {
    for doc in [Self.billionLaughs, Self.quadratic] {
      let parsed = try FeedParser.parse(Data(doc.utf8))
      #expect(parsed.feed.items.count == 1)
      #expect(!(parsed.feed.items[0].title ?? "").contains("lollol"))
      #expect(!(parsed.feed.items[0].title ?? "").contains("xxxxxxxxxx"))
      let (raw, _) = Self.parseRaw(doc)
      let title = raw?.items.first?.title ?? ""
      #expect(title.utf8.count < 1_000, "libxml2 expanded an entity: \(title.utf8.count) bytes")
    }
  }

  @Test("external entities never read a file")
  func externalEntities() throws {
    let dir = try TemporaryDirectory()
    let secret = dir.url.appendingPathComponent("secret.txt")
    try "TOPSECRET-MARKER-42\n".write(to: secret, atomically: true, encoding: .utf8)
    let doc = """
      <?xml version="1.0"?>
      <!DOCTYPE r [<!ENTITY xxe SYSTEM "file://\(secret.path)"><!ENTITY % pe SYSTEM "file://\(secret.path)"> %pe;]>
      <rss version="2.0"><channel><title>xxe</title><item><title>a &xxe; b</title>
      <description>&xxe;</description><guid>1</guid></item></channel></rss>
      """
    let parsed = try FeedParser.parse(Data(doc.utf8))
    var json: [UInt8] = []
    var writer = FeedJSONWriter { json.append(bytes: $0) }
    writer.write(parsed)
    #expect(!String(decoding: json, as: UTF8.self).contains("TOPSECRET"))
    #expect(parsed.feed.items.first?.title == "a &xxe; b")
    let (raw, _) = Self.parseRaw(doc)
    let rawTitle = raw?.items.first?.title ?? ""
    let rawText = raw?.items.first?.text ?? ""
    #expect(rawTitle == "a b")
    #expect(rawText.contains("TOPSECRET") == false)
  }

  @Test("a document over the size cap is refused after reading no more than the cap")
  func oversizedDocument() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.appendingPathComponent("big.xml").path
    let handle = try #require(FileHandle(forWritingAtPath: createFile(path)))
    handle.write(Data("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><item><title>".utf8))
    let chunk = Data(repeating: UInt8(ascii: "A"), count: 1 << 20)
    for _ in 0..<30 { handle.write(chunk) }
    handle.write(Data("</title></item></channel></rss>".utf8))
    try handle.close()
    #expect(throws: FeedParseError.tooLarge(limit: 20_000_000)) {
      try FeedParser.parse(contentsOf: path)
    }
    // Under a larger cap the title is cut to the field limit and the document still parses.
    let parsed = try FeedParser.parse(contentsOf: path, options: .init(maxBytes: 40_000_000))
    #expect(parsed.feed.items.first?.title?.utf8.count == 1_048_576)
    #expect(parsed.warnings.contains { $0.message.contains("was cut") })
  }

  @Test("a truncated document keeps the items before the cut, with a warning")
  func truncated() throws {
    let doc = "<rss version=\"2.0\"><channel><title>T</title><item><title>one</title><guid>1</guid></item><item><ti"
    let parsed = try FeedParser.parse(Data(doc.utf8))
    #expect(parsed.feed.items.map(\.key) == ["1"])
    #expect(!parsed.warnings.isEmpty)
  }

  @Test("deep nesting, binary and HTML are handled without a crash")
  func oddDocuments() throws {
    let deep =
      "<rss><channel><item><title>deep</title>" + String(repeating: "<x>", count: 100_000)
      + String(repeating: "</x>", count: 100_000) + "<guid>1</guid></item></channel></rss>"
    #expect(try FeedParser.parse(Data(deep.utf8)).feed.items.count == 1)
    #expect(throws: FeedParseError.notAFeed(found: "an HTML page")) {
      try FeedParser.parse(Data("<!DOCTYPE html><html><body><p>hi</p></body></html>".utf8))
    }
    #expect(throws: FeedParseError.notAFeed(found: "text or binary data that is not XML or JSON")) {
      try FeedParser.parse(Data([0x00, 0x01, 0x02, 0xFF, 0xFE, 0x7F]))
    }
    #expect(throws: FeedParseError.empty) { try FeedParser.parse(Data(" \n\t".utf8)) }
    #expect(throws: FeedParseError.self) { try FeedParser.parse(Data("{\"items\": [".utf8)) }
  }

  private func createFile(_ path: String) -> String {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    return path
  }
}
