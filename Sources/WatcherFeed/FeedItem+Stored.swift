// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport

extension FeedItem {
  /// The most UTF-8 bytes of each field an action keeps of an item: the item JSON a hook or a digest gets,
  /// and what a pending or held notification stores (docs/rules.md, "What a hook gets").
  ///
  /// A feed may send a megabyte in any field (and a page far more as `content`); a pending action is stored
  /// in the state, each digest entry and held notification in a file every feed shares, and every one of
  /// those must stay readable. A field over its size is cut at a character and ends in "…".
  public enum StoredBytes {
    /// A title, an author, each category.
    public static let title = 2_048
    /// A link, an id, an image's or an enclosure's URL (a URL this long is not a working one anyway).
    public static let link = 8_192
    /// The plain text of the item's description.
    public static let text = 65_536
    /// Its HTML.
    public static let html = 131_072
    /// The article's text (`full_text`).
    public static let content = 262_144
  }

  /// This item as actions keep it: each field within `StoredBytes` (most items are returned unchanged).
  public var stored: FeedItem {
    func cut(_ value: String?, _ limit: Int) -> String? {
      value.map { TextBudget.prefix($0, maxBytes: limit, marked: true) }
    }
    var item = self
    item.id = cut(id, StoredBytes.link)
    item.title = cut(title, StoredBytes.title)
    item.link = cut(link, StoredBytes.link)
    item.author = cut(author, StoredBytes.title)
    item.categories = categories.map { TextBudget.prefix($0, maxBytes: StoredBytes.title, marked: true) }
    item.text = cut(text, StoredBytes.text)
    item.html = cut(html, StoredBytes.html)
    item.image = cut(image, StoredBytes.link)
    item.content = cut(content, StoredBytes.content)
    for index in item.enclosures.indices {
      item.enclosures[index].url = TextBudget.prefix(item.enclosures[index].url, maxBytes: StoredBytes.link)
    }
    return item
  }
}
