// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
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
struct Novelty {
  /// How a known item was found under a new key.
  enum Match: Equatable {
    /// The same key, spelled differently ("https", "www.", "tracking parameters").
    case spelling(String)
    /// A new id, the same link.
    case link
    /// No link; the same title and date.
    case titleAndDate
  }

  let identity: StoryIdentity
  private var byKey: [String: String]?
  /// Known keys by their items' stories (links, or titles and dates).
  private var byStory: [UInt64: String] = [:]

  init(identity: StoryIdentity) {
    self.identity = identity
  }

  /// The known key `item` (unknown under `key`) is found under, and how; nil for a new item.
  mutating func known(key: String, item: FeedItem, in items: [String: FeedState.KnownItem]) -> (String, Match)? {
    // Nothing known (a first poll): nothing to compare with.
    guard !items.isEmpty else { return nil }
    if byKey == nil { index(items) }
    let normalized = identity.normalized(key)
    if let old = byKey?[normalized], items[old] != nil {
      return (old, .spelling(identity.difference(old, key)))
    }
    if let link = item.link.map(identity.normalized) {
      if let old = byStory[StableHash.value(of: link.utf8)] ?? byKey?[link], items[old] != nil { return (old, .link) }
      // A new id that is the URL an old item linked to.
      if FeedLocation.isHTTP(key), let old = byStory[StableHash.value(of: normalized.utf8)], items[old] != nil {
        return (old, .link)
      }
      return nil
    }
    let print = StoryIdentity.fingerprint(title: item.title, published: item.published.map(ISODate.format))
    if print != 0, let old = byStory[print], items[old] != nil { return (old, .titleAndDate) }
    return nil
  }

  private mutating func index(_ items: [String: FeedState.KnownItem]) {
    var keys: [String: String] = [:]
    keys.reserveCapacity(items.count)
    for (key, item) in items {
      keys[identity.normalized(key)] = key
      if item.story != 0 { byStory[item.story] = key }
    }
    byKey = keys
  }

  /// The hash of a link's compared form, as `KnownItem.story` keeps it.
  func story(_ link: String, key: String) -> UInt64 { identity.story(link, key: key) }

  /// The record of a new item: its link's story, or (without a link) its title and date, and (when a rule
  /// acts on edits) its digest.
  func record(_ item: FeedItem, key: String, now: Date) -> FeedState.KnownItem {
    FeedState.KnownItem(
      firstSeen: now, lastSeen: now,
      story: item.link.map { story($0, key: key) }
        ?? StoryIdentity.fingerprint(title: item.title, published: item.published.map(ISODate.format)))
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
