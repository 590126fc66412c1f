// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing

@testable import WatcherFeed

/// XHTML content is captured as markup: its text's `<`, `&` and `>` escaped wherever they fall (the capture
/// looks for them sixteen bytes at a time, then one at a time in the tail).
@Suite("XHTML content, captured")
struct XHTMLCaptureTests {
  @Test(
    "escapes at every offset of a run, before, across and after a sixteen-byte block",
    arguments: [0, 1, 15, 16, 17, 31, 32, 40])
  func escapes(_ offset: Int) throws {
    let filler = String(repeating: "x", count: offset)
    let text = "\(filler)&amp;a&lt;b&gt;c \(filler)&gt;"
    let feed = """
      <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><id>e</id>
      <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>\(text)</p><p>\(filler)</p></div></content></entry></feed>
      """
    let parsed = try FeedParser.parse(Data(feed.utf8))
    let html = try #require(parsed.feed.items.first?.html)
    #expect(html.contains("<p>\(filler)&amp;a&lt;b&gt;c \(filler)&gt;</p>"), "\(html)")
  }
}
