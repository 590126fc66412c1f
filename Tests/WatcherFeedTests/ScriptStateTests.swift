// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed

/// Pages built in the browser: the article only in the data a framework renders it from.
@Suite("Article extraction from a page's script data")
struct ScriptStateTests {
  static let prose = ArticleBuilderTests.builderProse
  static let head =
    "<!DOCTYPE html><html><head><title>Library reopens | Town News</title></head><body>"
    + "<div id=\"__next\"><header><a href=\"/\">Town News</a></header><main></main></div>"

  static func json(_ value: Any) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self)
  }

  static func extract(_ page: String) throws -> String {
    try #require(try ArticleExtractor.extract(Array(page.utf8))).text
  }

  /// A CMS's story: its headline one object down and its paragraphs as HTML (Arc XP's shape).
  static var story: [String: Any] {
    [
      "headlines": ["basic": "Library reopens"],
      "content_elements": prose.enumerated().map { ["type": "text", "_id": "e\($0)", "content": "<p>\($1)</p>"] },
      "related": [["headline": "Market day moves to Fridays", "summary": "Traders asked for it, the council says."]],
    ]
  }

  @Test("a Next.js page's __NEXT_DATA__: the paragraphs beside the headline, in order")
  func nextData() throws {
    let article: [String: Any] = [
      "title": "Library reopens",
      "body": Self.prose.map { ["_type": "block", "children": [["_type": "span", "text": $0]]] },
    ]
    let data = try Self.json(["props": ["pageProps": ["article": article, "menu": ["News", "Sport"]]]])
    let page = Self.head + "<script id=\"__NEXT_DATA__\" type=\"application/json\">\(data)</script></body></html>"
    #expect(try Self.extract(page) == Self.prose.joined(separator: "\n\n"))
  }

  @Test("state assigned in code (window.__INITIAL_STATE__ = {…}) or read by JSON.parse(\"…\")")
  func stateInCode() throws {
    let state = try Self.json(["story": Self.story])
    let quoted = try Self.json([state]).dropFirst().dropLast()
    for script in ["window.__INITIAL_STATE__ = \(state);window.ready=1;", "var s = JSON.parse(\(quoted));"] {
      let text = try Self.extract(Self.head + "<script>\(script)</script></body></html>")
      #expect(text == Self.prose.joined(separator: "\n\n"), "\(script.prefix(40)): \(text)")
    }
  }

  @Test("nothing is taken without the page's headline beside it, nor names joined by |, nor against the teaser shown")
  func guarded() throws {
    var headless = Self.story
    headless["headlines"] = ["basic": "Town News front page"]
    let noHeadline = try Self.json(["story": headless])
    #expect(try Self.extract(Self.head + "<script>window.s = \(noHeadline);</script></body></html>").isEmpty)

    let names = String(repeating: "Library|Council|City news|Reading rooms|Opening hours|", count: 6) + "Town."
    let keywords = try Self.json(["story": ["headline": "Library reopens", "keywords": names]])
    #expect(try Self.extract(Self.head + "<script>window.s = \(keywords);</script></body></html>").isEmpty)

    // The HTML shows the first paragraph of another text than the data's: the teaser stays.
    let teaser = "<p>Subscribers read first: the mayor's plans for the old town hall, which closes in May.</p>"
    let shown = Self.head.replacingOccurrences(of: "<main></main>", with: "<main>\(teaser)</main>")
    let story = try Self.json(["story": Self.story])
    let kept = try Self.extract(shown + "<script>window.s = \(story);</script></body></html>")
    #expect(kept.hasPrefix("Subscribers read first") && !kept.contains(Self.prose[1]), "\(kept)")
    // It shows the first paragraph of the data's article: the whole article is read.
    let begun = Self.head.replacingOccurrences(of: "<main></main>", with: "<main><p>\(Self.prose[0])</p></main>")
    let whole = try Self.extract(begun + "<script>window.s = \(story);</script></body></html>")
    #expect(whole == Self.prose.joined(separator: "\n\n"), "\(whole)")
  }
}
