// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed
import WatcherTestSupport
import WatcherXML

/// `content_selector:` in the extractor: what a selector matches is the article.
@Suite("The extractor with a selector")
struct SelectorExtractionTests {
  static let page = SamplePages.selectors

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
