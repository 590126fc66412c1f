// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport
import WatcherXML

/// `content_selector:`: the CSS subset scraper rules use, over the tree the extractor reads, and XPath.
@Suite("CSS and XPath selectors")
struct HTMLSelectorTests {
  static let page = SamplePages.selectors

  func texts(_ selector: String) throws -> [String] {
    let root = try #require(HTMLTree.parse(Self.page, encoding: nil))
    return try HTMLSelector(selector).select(in: root).map {
      $0.descendants.filter { $0.name == "p" }.map { _ in "" }.isEmpty ? $0.name : ($0.attributes["class"] ?? $0.name)
    }
  }

  @Test(
    "type, id, class, attribute tests, descendant and child combinators and lists each select what CSS does",
    arguments: [
      ("article", ["post"]),
      ("#page", ["wrap main"]),
      (".entry-content", ["entry-content"]),
      ("div.wrap.main > article.post", ["post"]),
      ("body > article", []),
      ("#page .comments", ["comments"]),
      ("[data-kind]", ["post"]),
      ("[data-kind~=news]", ["post"]),
      ("[data-kind='news item']", ["post"]),
      ("[data-kind^=new]", ["post"]),
      ("[data-kind$=\"item\"]", ["post"]),
      ("[data-kind*='ws i']", ["post"]),
      ("p[lang|=en]", ["p"]), ("p[lang|=en-GB]", ["p"]), ("p[lang|=e]", []),
      ("aside, .site-header", ["site-header", "aside"]),
      ("DIV#PAGE", []),
      ("div#page", ["wrap main"]),
      ("* > .ad", ["ad"]),
    ])
  func selects(selector: String, expected: [String]) throws {
    #expect(try texts(selector) == expected, "\(selector)")
  }

  @Test(
    "a selector it cannot read says what and where",
    arguments: [
      ("", "expected a selector"), ("div >", "expected a selector"), ("p:first-child", "pseudo-classes"),
      ("[href", "expected '=' or ']'"), ("a[title='x]", "not closed"), ("div,,p", "unexpected ','"),
      ("> p", "needs an element before it"),
    ])
  func syntaxErrors(selector: String, message: String) {
    #expect(throws: HTMLSelector.SyntaxError.self) { try HTMLSelector(selector) }
    do {
      _ = try HTMLSelector(selector)
    } catch {
      #expect(error.description.contains(message), "\(selector): \(error)")
    }
  }
}
