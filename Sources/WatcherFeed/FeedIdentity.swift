// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport

/// Item identity: the key that decides whether an item is new.
public enum FeedIdentity {
  /// Sets every item's `key`: its id, else its link, else `hash:` and a stable hash of title, date and text.
  ///
  /// When two items of one feed end up with the same key, the second gets `#2`, the third `#3`, and so on, in
  /// document order. Deterministic: the same document always gives the same keys.
  public static func assignKeys(_ items: inout [FeedItem]) {
    var assigner = KeyAssigner()
    for index in items.indices { assigner.assign(&items[index]) }
  }

  /// Gives items their keys one at a time, in document order (a streaming parse never holds them all).
  package struct KeyAssigner {
    private var seen: [String: Int] = [:]

    package init() {}

    /// Sets `item.key`: its base key, or `BASE#N` when an earlier item had that key.
    package mutating func assign(_ item: inout FeedItem) {
      assign(&item, base: baseKey(item))
    }

    /// `assign` for an item whose base key was computed already; true when the key is not the base.
    @discardableResult
    package mutating func assign(_ item: inout FeedItem, base: String) -> Bool {
      if let count = seen[base] {
        var n = count + 1
        while seen["\(base)#\(n)"] != nil { n += 1 }
        seen[base] = n
        item.key = "\(base)#\(n)"
        seen[item.key] = 1
        return true
      }
      seen[base] = 1
      item.key = base
      return false
    }
  }

  /// The longest id or link used as a key as it is; a longer one is replaced by `hash:` and its hash, so
  /// a hostile feed cannot make every state file carry megabytes of identifiers.
  public static let maxKeyBytes = 1_024

  /// The key before duplicates are told apart.
  package static func baseKey(_ item: FeedItem) -> String {
    if let identity = item.id ?? item.link {
      return identity.utf8.count <= maxKeyBytes ? identity : "hash:" + StableHash.hex(of: identity)
    }
    let date = item.published.map(ISODate.format) ?? ""
    return "hash:" + StableHash.hex(of: [item.title ?? "", date, item.text ?? ""].joined(separator: "\u{1F}"))
  }
}
