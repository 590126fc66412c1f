// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherFeed
import WatcherState
import WatcherSupport

/// Whether an item whose key the state does not know is a known item under a new key (docs/rules.md, "What
/// makes an item new").
///
/// Tried in order: the key in its compared form (`StoryIdentity.normalized`: an https move, `www.`,
/// tracking parameters) against the known keys'; its link in that form against the known items' links and
/// keys (ids that changed while links stayed, a guid that became the permalink); for an item without a
/// link, its title and date. The indexes are built the first time a key is not known, so a poll whose keys
/// are all known costs nothing more.
///
/// Evidence, not resemblance: a field identifies an item only where it is unique. A match counts only when
/// it names exactly one known item, no other item of the document has the same field, and the known item's
/// own key is not in the document (then it is still there, and this one is another). Where the evidence is
/// not enough, the item is new: a repeat can be muted, a lost post is gone. A changelog whose entries all
/// link to one page (with or without anchors), or a status feed whose incidents all link to the home page,
/// has no link that identifies an item.
struct Novelty {
  /// How a known item was found under a new key.
  enum Match: Equatable {
    /// The same key, spelled differently ("https", "www.", "tracking parameters").
    case spelling(String)
    /// A new id, the same link.
    case link
    /// No link, or a migration (most of the document's items unknown at once); the same title and date.
    case titleAndDate
  }

  let identity: StoryIdentity
  private var byKey: [String: String]?
  /// Known keys in their compared form shared by more than one known key.
  private var sharedKeys: Set<String> = []
  /// Known keys by their items' stories (links, or titles and dates).
  private var byStory: [UInt64: String] = [:]
  /// Stories that more than one known item has.
  private var sharedStories: Set<UInt64> = []
  /// The document's keys, and how many of its items have each story (links, or titles and dates).
  private var documentKeys: Set<String> = []
  private var documentStories: [UInt64: Int] = [:]
  /// Known keys by the titles and dates of items with links, those several known items share, and how many
  /// of the document's items have each.
  private var byTitleAndDate: [UInt64: String] = [:]
  private var sharedTitlesAndDates: Set<UInt64> = []
  private var documentTitlesAndDates: [UInt64: Int] = [:]
  /// Whether most of the document's items are unknown: a migration (a platform move, a dropped feed proxy,
  /// guids that change format), where titles and dates identify items whose ids and links all changed.
  private var migration = false

  init(identity: StoryIdentity) {
    self.identity = identity
  }

  /// The known key `item` (unknown under `key`) is found under, and how; nil for a new item.
  ///
  /// `document` is every item of the document with its key (read once, the first time a key is unknown).
  mutating func known(
    key: String, item: FeedItem, in items: [String: FeedState.KnownItem], document: () -> [(String, FeedItem)]
  ) -> (String, Match)? {
    // Nothing known (a first poll): nothing to compare with.
    guard !items.isEmpty else { return nil }
    if byKey == nil { index(items, document: document()) }
    // The known item is still in the document under its own key: this one is another.
    func absent(_ old: String) -> Bool { items[old] != nil && !documentKeys.contains(old) }
    let normalized = identity.normalized(key)
    if !sharedKeys.contains(normalized), let old = byKey?[normalized], absent(old) {
      return (old, .spelling(identity.difference(old, key)))
    }
    if let link = item.link.map(identity.normalized) {
      if let old = known(link: link, key: key, normalized: normalized, absent: absent) { return (old, .link) }
      // A migration: the title and date name one known item and one item of the document.
      guard migration else { return nil }
      let print = Self.titleAndDate(item)
      guard print != 0, documentTitlesAndDates[print, default: 0] <= 1,
        !sharedTitlesAndDates.contains(print), let old = byTitleAndDate[print], absent(old)
      else { return nil }
      return (old, .titleAndDate)
    }
    let print = Self.titleAndDate(item)
    guard print != 0, documentStories[print, default: 0] <= 1, !sharedStories.contains(print) else { return nil }
    if let old = byStory[print], absent(old) { return (old, .titleAndDate) }
    return nil
  }

  /// Why a new item (`known` found none) looked like a known one, when it did: the evidence, and why it
  /// was not enough.
  ///
  /// Nil when nothing of it resembles a known item.
  func resemblance(key: String, item: FeedItem) -> String? {
    guard byKey != nil else { return nil }
    func why(_ field: String, _ story: UInt64, document: [UInt64: Int], known: [UInt64: String], shared: Set<UInt64>)
      -> String?
    {
      let inDocument = document[story, default: 0]
      if shared.contains(story) { return "several known items have its \(field)" + also(inDocument) }
      guard let old = known[story] else { return nil }
      if documentKeys.contains(old) { return "its \(field) is that of \(old), which is still in the feed" }
      return inDocument > 1 ? "its \(field) is that of \(old)" + also(inDocument) : nil
    }
    func also(_ count: Int) -> String { count > 1 ? ", and \(count) items of the feed have it" : "" }
    let print = Self.titleAndDate(item)
    let reason: String?
    if let link = item.link.map(identity.normalized) {
      let story = StableHash.value(of: link.utf8)
      reason =
        why("link", story, document: documentStories, known: byStory, shared: sharedStories)
        ?? (migration && print != 0
          ? why(
            "title and date", print, document: documentTitlesAndDates, known: byTitleAndDate,
            shared: sharedTitlesAndDates) : nil)
    } else {
      reason =
        print == 0
        ? nil : why("title and date", print, document: documentStories, known: byStory, shared: sharedStories)
    }
    return reason.map { $0 + "; announced as new" }
  }

  /// An item's title and date, hashed (`StoryIdentity.fingerprint`; 0 without both).
  private static func titleAndDate(_ item: FeedItem) -> UInt64 {
    StoryIdentity.fingerprint(title: item.title, published: item.published)
  }

  /// The most identity decisions a poll journals, one entry an item.
  static let notesPerPoll = 50

  /// The known key a new item's link (`link`, compared) names, if it names exactly one.
  private func known(link: String, key: String, normalized: String, absent: (String) -> Bool) -> String? {
    let story = StableHash.value(of: link.utf8)
    // The link identifies one item of the document, and one known item.
    guard documentStories[story, default: 0] <= 1, !sharedStories.contains(story) else { return nil }
    if let old = byStory[story] ?? (sharedKeys.contains(link) ? nil : byKey?[link]), absent(old) { return old }
    // A new id that is the URL an old item linked to.
    let keyStory = StableHash.value(of: normalized.utf8)
    if FeedLocation.isHTTP(key), !sharedStories.contains(keyStory), let old = byStory[keyStory], absent(old) {
      return old
    }
    return nil
  }

  private mutating func index(_ items: [String: FeedState.KnownItem], document: [(String, FeedItem)]) {
    var keys: [String: String] = [:]
    keys.reserveCapacity(items.count)
    for (key, item) in items {
      let normalized = identity.normalized(key)
      if keys.updateValue(key, forKey: normalized) != nil { sharedKeys.insert(normalized) }
      if item.story != 0, byStory.updateValue(key, forKey: item.story) != nil { sharedStories.insert(item.story) }
      if item.titleAndDate != 0, byTitleAndDate.updateValue(key, forKey: item.titleAndDate) != nil {
        sharedTitlesAndDates.insert(item.titleAndDate)
      }
    }
    byKey = keys
    var unknown = 0
    for (key, _) in document {
      documentKeys.insert(key)
      if items[key] == nil { unknown += 1 }
    }
    migration = unknown >= 2 && unknown * 2 > document.count
    for (_, item) in document {
      // Titles and dates count for items with links only in a migration.
      let print = item.link == nil || migration ? Self.titleAndDate(item) : 0
      let story = item.link.map { StableHash.value(of: identity.normalized($0).utf8) } ?? print
      if story != 0 { documentStories[story, default: 0] += 1 }
      if item.link != nil, print != 0 { documentTitlesAndDates[print, default: 0] += 1 }
    }
  }

  /// The hash of a link's compared form, as `KnownItem.story` keeps it.
  func story(_ link: String, key: String) -> UInt64 { identity.story(link, key: key) }

  /// The record of a new item: its link's story, or (without a link) its title and date; with a link, its
  /// title and date beside it (for migrations).
  func record(_ item: FeedItem, key: String, now: Date) -> FeedState.KnownItem {
    let print = Self.titleAndDate(item)
    return FeedState.KnownItem(
      firstSeen: now, lastSeen: now, story: item.link.map { story($0, key: key) } ?? print,
      titleAndDate: item.link == nil ? 0 : print)
  }

  /// The base of a key given to a repeat inside one document (`KEY#2`), when it is one.
  static func repeatBase(_ key: String) -> String? {
    var key = key
    // On the bytes, from the end: it is asked of every new item.
    let cut = key.withUTF8 { bytes -> Int? in
      var index = bytes.count - 1
      while index >= 0, bytes[index] >= 48, bytes[index] <= 57 { index -= 1 }
      return index >= 0 && index < bytes.count - 1 && bytes[index] == 35 ? index : nil
    }
    guard let cut else { return nil }
    return String(decoding: key.utf8.prefix(cut), as: UTF8.self)
  }

}

extension Novelty.Match {
  /// The evidence, in words ("same link").
  var words: String {
    switch self {
    case .spelling(let difference): "same id, spelled with another \(difference)"
    case .link: "same link"
    case .titleAndDate: "same title and date"
    }
  }
}
