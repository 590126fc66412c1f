// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Testing
import WatcherConfig
import WatcherFeed
import WatcherXML

/// `page: URL` entries and the `items:` selectors that pin their list.
@Suite("Page feeds in the config")
struct PageConfigTests {
  func errors(_ yaml: String) -> String { FetchConfigTests().errors(yaml) }

  @Test("a page entry, with its list pinned by a selector or by row, title, link and date selectors")
  func pages() throws {
    let config = try ConfigLoader.parse(
      """
      feeds:
        - { page: https://a.example/news, name: a }
        - { page: https://b.example/jobs, name: b, items: "ul.jobs > li" }
        - page: https://c.example/
          name: c
          items: { select: "tr.row", title: "td.name", link: "a.more", date: "time" }
        - { url: https://d.example/feed.xml, name: d }
      """, path: "c.yaml")
    #expect(config.feeds.map { $0.page != nil } == [true, true, true, false])
    #expect(config.feeds[0].page?.pins == nil && config.feeds[0].url == "https://a.example/news")
    #expect(config.feeds[1].page?.pins?.items.text == "ul.jobs > li")
    let pins = try #require(config.feeds[2].page?.pins)
    #expect(
      [pins.items.text, pins.title?.text, pins.link?.text, pins.date?.text] == ["tr.row", "td.name", "a.more", "time"])
  }

  @Test("both url and page, items on a feed, XPath, a bad selector and items without select are errors")
  func mistakes() {
    #expect(
      errors("feeds:\n  - { url: https://a.example/f, page: https://a.example/ }")
        .contains("has both 'url' and 'page'"))
    #expect(errors("feeds:\n  - { url: https://a.example/f, items: li }").contains("'items' is for page feeds"))
    #expect(
      errors("feeds:\n  - { page: https://a.example/, items: '//li' }").contains("must be a CSS selector, not XPath"))
    #expect(errors("feeds:\n  - { page: https://a.example/, items: 'li[' }").contains("is not a selector this reads"))
    #expect(
      errors("feeds:\n  - { page: https://a.example/, items: { title: h2 } }").contains("'items' has no 'select'"))
    #expect(
      errors("feeds:\n  - { page: https://a.example/, items: { select: li, author: b } }").contains(
        "unknown key 'author'"))
  }
}
