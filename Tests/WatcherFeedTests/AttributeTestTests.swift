// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed

/// Attribute values tested without a string made of them (`XMLAttributes.value(_:is:)` and its kin) decide
/// as the strings did: a `media:content` is the item's picture when its `medium` is `image` or its `type`
/// begins `image/` in any case, references resolved.
@Suite("Attribute values tested in place")
struct AttributeTestTests {
  static func image(_ content: String, atom: Bool = false) throws -> String? {
    let document =
      atom
      ? "<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:media=\"http://search.yahoo.com/mrss/\"><title>t</title>"
        + "<entry><id>1</id><title>one</title>\(content)</entry></feed>"
      : "<rss version=\"2.0\" xmlns:media=\"http://search.yahoo.com/mrss/\"><channel><title>t</title>"
        + "<item><guid>1</guid><title>one</title>\(content)</item></channel></rss>"
    return try FeedParser.parse(Data(document.utf8)).feed.items.first?.image
  }

  @Test(
    "a media:content is a picture by its medium or its type, as written or through references",
    arguments: [
      ("<media:content url=\"https://a.example/1.jpg\" medium=\"image\"/>", "https://a.example/1.jpg"),
      ("<media:content url=\"https://a.example/2.jpg\" type=\"IMAGE/JPEG\"/>", "https://a.example/2.jpg"),
      ("<media:content url=\"https://a.example/3.png\" type=\"image&#47;png\"/>", "https://a.example/3.png"),
      ("<media:content url=\"https://a.example/4.jpg\" type=\"&#73;mage/jpeg\"/>", "https://a.example/4.jpg"),
      ("<media:content url=\"https://a.example/5.mp4\" medium=\"Image\" type=\"video/mp4\"/>", nil),
      ("<media:content url=\"https://a.example/6.mp4\" medium=\"video\" type=\"imag\"/>", nil),
      ("<media:content url=\"https://a.example/7.mp4\" medium=\"image \"/>", nil),
      ("<media:content url=\"https://a.example/8.jpg\"/>", nil),
    ] as [(String, String?)])
  func mediaContent(_ content: String, _ expected: String?) throws {
    #expect(try Self.image(content) == expected, "\(content)")
    #expect(try Self.image(content, atom: true) == expected, "\(content) in Atom")
  }
}
