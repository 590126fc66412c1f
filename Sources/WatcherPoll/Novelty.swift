// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
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
  private var byLink: [String: String] = [:]
  private var byFingerprint: [String: String] = [:]

  init(identity: StoryIdentity) {
    self.identity = identity
  }

  /// The known key `item` (unknown under `key`) is found under, and how; nil for a new item.
  mutating func known(key: String, item: FeedItem, in items: [String: FeedState.KnownItem]) -> (String, Match)? {
    if byKey == nil { index(items) }
    let normalized = identity.normalized(key)
    if let old = byKey?[normalized], items[old] != nil {
      return (old, .spelling(identity.difference(old, key)))
    }
    if let link = item.link.map(identity.normalized) {
      if let old = byLink[link] ?? byKey?[link], items[old] != nil { return (old, .link) }
      // A new id that is the URL an old item linked to.
      if FeedLocation.isHTTP(key), let old = byLink[normalized], items[old] != nil { return (old, .link) }
      return nil
    }
    if let print = StoryIdentity.fingerprint(title: item.title, published: item.published.map(ISODate.format)),
      let old = byFingerprint[print], items[old] != nil
    {
      return (old, .titleAndDate)
    }
    return nil
  }

  private mutating func index(_ items: [String: FeedState.KnownItem]) {
    var keys: [String: String] = [:]
    keys.reserveCapacity(items.count)
    for (key, item) in items {
      keys[identity.normalized(key)] = key
      if let link = item.link { byLink[link] = key }
      if let print = item.fingerprint { byFingerprint[print] = key }
    }
    byKey = keys
  }

  /// The record of a new item: its link in the compared form, or (without one) its title and date, and its
  /// digest.
  func record(_ item: FeedItem, now: Date) -> FeedState.KnownItem {
    FeedState.KnownItem(
      firstSeen: now, lastSeen: now, link: item.link.map(identity.normalized),
      fingerprint: item.link == nil
        ? StoryIdentity.fingerprint(title: item.title, published: item.published.map(ISODate.format)) : nil,
      digest: item.title == nil && item.text == nil ? nil : StoryIdentity.digest(title: item.title, text: item.text))
  }

  /// The base of a key given to a repeat inside one document (`KEY#2`), when it is one.
  static func repeatBase(_ key: String) -> String? {
    guard let hash = key.lastIndex(of: "#"), key.index(after: hash) < key.endIndex,
      key[key.index(after: hash)...].allSatisfy(\.isASCIIDigit)
    else { return nil }
    return String(key[..<hash])
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
