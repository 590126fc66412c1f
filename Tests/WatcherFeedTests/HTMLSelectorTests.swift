// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed
import WatcherXML

/// `content_selector:`: the CSS subset scraper rules use, over the tree the extractor reads, and XPath.
@Suite("CSS and XPath selectors")
struct HTMLSelectorTests {
  static let page = Array(
    """
    <html><head><title>T</title></head><body>
    <div id="page" class="wrap main">
      <header class="site-header"><p>Menu text</p></header>
      <article class="post" data-kind="news item">
        <div class="entry-content"><p>First paragraph.</p><div class="ad"><p>Buy now</p></div><p>Second.</p></div>
        <section class="comments"><p>A comment</p></section>
      </article>
      <aside><p lang="en-GB">Aside</p></aside>
    </div>
    </body></html>
    """.utf8)

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

  @Test("with a selector the extractor takes the text of what it matches, in page order, and nothing else")
  func extractsMatches() throws {
    let article = try #require(
      try ArticleExtractor.extract(Self.page, selector: HTMLSelector(".entry-content > p, .comments")))
    #expect(article.title == "T")
    #expect(article.text == "First paragraph.\n\nSecond.\n\nA comment")
    let none = try #require(try ArticleExtractor.extract(Self.page, selector: HTMLSelector("table.nothing")))
    #expect(none.text.isEmpty)
  }

  @Test(
    "an XPath selector (starting with / or ./ or a parenthesis) is evaluated by libxml2: elements, text nodes as their element, nested ones once",
    arguments: [
      ("//article[@class='post']//p", ["First paragraph.", "Buy now", "Second.", "A comment"]),
      ("//div[contains(@class, 'entry')]", ["First paragraph.\n\nBuy now\n\nSecond."]),
      ("//p[contains(., 'Second')]/text()", ["Second."]),
      ("(//section | //aside)", ["A comment", "Aside"]),
      ("//div | //div//p", ["Menu text\n\nFirst paragraph.\n\nBuy now\n\nSecond.\n\nA comment\n\nAside"]),
      ("//table", []), ("//@class", []), ("(//p)[99]", []),
    ])
  func xpath(expression: String, expected: [String]) throws {
    let selector = try HTMLSelector(expression)
    #expect(selector.xpath != nil)
    let (_, selected) = try #require(selector.read(Self.page))
    #expect(selected.map { Self.text($0) } == expected, "\(expression)")
  }

  static func text(_ element: HTMLElement) -> String {
    (try? ArticleExtractor.extract(
      Array("<html><body>\(html(element))</body></html>".utf8), selector: HTMLSelector("body")))??.text ?? ""
  }

  static func html(_ element: HTMLElement) -> String {
    let inner = element.children.map {
      switch $0 {
      case .text(let text): text
      case .element(let child): html(child)
      }
    }.joined()
    return "<\(element.name)>\(inner)</\(element.name)>"
  }

  @Test(
    "an XPath expression libxml2 cannot compile says what and where",
    arguments: ["//div[@class='x'", "//", "/p[", "(//p"])
  func xpathErrors(expression: String) {
    do {
      _ = try HTMLSelector(expression)
      Issue.record("\(expression) was accepted")
    } catch {
      #expect(error.message.hasPrefix("XPath: "), "\(error)")
      #expect(error.message.count > "XPath: ".count)
    }
  }

  @Test("the extractor reads the page by an XPath selector as by a CSS one")
  func extractsByXPath() throws {
    let article = try #require(
      try ArticleExtractor.extract(Self.page, selector: HTMLSelector("//div[@class='entry-content']/p | //section")))
    #expect(article.text == "First paragraph.\n\nSecond.\n\nA comment")
  }
}
