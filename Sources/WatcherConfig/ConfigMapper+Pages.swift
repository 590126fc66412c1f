// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherFeed
import WatcherXML

/// Page feeds: `page: URL` instead of `url:`, and `items:` pinning the list where the heuristics miss.
extension ConfigMapper {
  /// The entry's `page` options, or `nil` for a feed; `items:` on a feed is an error.
  mutating func page(_ entries: [(key: String, keyMark: Mark, value: YAMLNode)], in context: String)
    -> FeedConfig.Page?
  {
    let items = value("items", in: entries)
    guard value("page", in: entries) != nil else {
      if let items {
        error(
          "'items' is for page feeds", at: items.mark,
          notes: ["write 'page: URL' instead of 'url: URL' to watch a web page's list of posts"])
      }
      return nil
    }
    guard let items else { return FeedConfig.Page() }
    if let text = items.scalar {
      return FeedConfig.Page(pins: selector(text, "'items'", at: items).map { PageItems.Pins(items: $0) })
    }
    guard let members = mapping(items, "'items'") else { return FeedConfig.Page() }
    checkKeys(members, allowed: ["select", "title", "link", "date"], in: "\(context).items")
    guard let selectNode = value("select", in: members) else {
      error(
        "'items' has no 'select'", at: items.mark,
        notes: ["write items: { select: 'CSS selector of one row', title: …, link: …, date: … }"])
      return FeedConfig.Page()
    }
    var parts: [String: HTMLSelector] = [:]
    for key in ["title", "link", "date"] {
      if let node = value(key, in: members), let text = string(node, "'items.\(key)'"),
        let selector = selector(text, "'items.\(key)'", at: node)
      {
        parts[key] = selector
      }
    }
    guard let text = string(selectNode, "'items.select'"), let rows = selector(text, "'items.select'", at: selectNode)
    else { return FeedConfig.Page() }
    return FeedConfig.Page(
      pins: PageItems.Pins(items: rows, title: parts["title"], link: parts["link"], date: parts["date"]))
  }

  /// A CSS selector of a page feed, or `nil` after an error (XPath is for `content_selector` only).
  private mutating func selector(_ text: String, _ what: String, at node: YAMLNode) -> HTMLSelector? {
    do {
      let selector = try HTMLSelector(text)
      guard selector.xpath == nil else {
        error(
          "\(what) must be a CSS selector, not XPath", at: node.mark,
          notes: ["write a CSS selector such as 'main article' or 'ul.posts > li'"])
        return nil
      }
      return selector
    } catch {
      self.error(
        "\(what) is not a selector this reads: \(error)", at: node.mark,
        notes: ["write a CSS selector such as 'main article' or 'ul.posts > li'"])
      return nil
    }
  }
}
