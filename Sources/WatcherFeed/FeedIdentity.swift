// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Glibc
import WatcherSupport
import WatcherXML

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

  /// The key an item with `key` had before watcher kept a bare `&` inside a CDATA section as written, when
  /// that differs: `<guid><![CDATA[https://example.com/?a=1&b=2]]></guid>` was read as `…?a=1&amp;b=2`.
  ///
  /// The poller looks a key it does not know up under this form too, and moves what it finds to the new key,
  /// so that such items are not announced again after an upgrade.
  public static func keyBeforeCDATAFix(_ key: String) -> String? {
    UTF8ChunkRepairer.escapingBareAmpersands(key)
  }

  /// Gives items their keys one at a time, in document order (a streaming parse never holds them all).
  package struct KeyAssigner {
    private var seen = KeySet()
    /// For a key that has been repeated, the last `#N` given for it (the others were seen once).
    private var repeats: [String: Int] = [:]

    package init() {}

    /// Sets `item.key`: its base key, or `BASE#N` when an earlier item had that key.
    package mutating func assign(_ item: inout FeedItem) {
      assign(&item, base: baseKey(item))
    }

    /// `assign` for an item whose base key was computed already; true when the key is not the base.
    @discardableResult
    package mutating func assign(_ item: inout FeedItem, base: String) -> Bool {
      if seen.insert(base) {
        item.key = base
        return false
      }
      var n = (repeats[base] ?? 1) + 1
      while !seen.insert("\(base)#\(n)") { n += 1 }
      repeats[base] = n
      item.key = "\(base)#\(n)"
      return true
    }
  }

  /// A set of strings held as their bytes in one buffer, found through an open-addressing table of indices.
  ///
  /// A streaming parse remembers every key of the feed; a `[String: Int]` cost about 60 bytes per key
  /// (12.6 MB for the 210,000 items of a 243 MB feed), this the key's bytes and about 16 more.
  struct KeySet {
    private var bytes: [UInt8] = []
    /// Where each key ends in `bytes` (it starts where the one before ends).
    private var ends: [UInt32] = []
    /// Indices into `ends`, -1 for an empty slot; at most half full.
    private var slots = [Int32](repeating: -1, count: 64)
    /// Seeded, so a feed cannot choose keys that all land in one slot.
    private let seed = Int.random(in: .min ... .max)

    /// Adds `key`; false when it was there already.
    mutating func insert(_ key: String) -> Bool {
      key.withUTF8Bytes { utf8 in
        var slot = hash(utf8) & (slots.count - 1)
        while slots[slot] >= 0 {
          if holds(Int(slots[slot]), utf8) { return false }
          slot = (slot + 1) & (slots.count - 1)
        }
        // Past what 32-bit offsets and indices can hold (never, under the size and item caps): grow no more
        // and report every further key as new, as a key that cannot be remembered is.
        guard bytes.count + utf8.count < Int(UInt32.max), ends.count < Int(Int32.max) / 2 else { return true }
        bytes.append(contentsOf: utf8)
        ends.append(UInt32(bytes.count))
        slots[slot] = Int32(ends.count - 1)
        if ends.count * 2 > slots.count { grow() }
        return true
      }
    }

    /// Whether the key at `index` is `utf8`: lengths first (most probes end there), then the bytes.
    private func holds(_ index: Int, _ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
      let start = index == 0 ? 0 : Int(ends[index - 1])
      guard Int(ends[index]) - start == utf8.count else { return false }
      return bytes.withUnsafeBufferPointer { stored in
        guard let base = stored.baseAddress, let wanted = utf8.baseAddress else { return utf8.isEmpty }
        return memcmp(base + start, wanted, utf8.count) == 0
      }
    }

    private func key(_ index: Int) -> ArraySlice<UInt8> {
      bytes[(index == 0 ? 0 : Int(ends[index - 1]))..<Int(ends[index])]
    }

    private func hash(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
      var hasher = Hasher()
      hasher.combine(seed)
      hasher.combine(bytes: UnsafeRawBufferPointer(utf8))
      return hasher.finalize()
    }

    private mutating func grow() {
      slots = [Int32](repeating: -1, count: slots.count * 2)
      for index in ends.indices {
        let stored = key(index)
        var slot = stored.withUnsafeBufferPointer { hash($0) } & (slots.count - 1)
        while slots[slot] >= 0 { slot = (slot + 1) & (slots.count - 1) }
        slots[slot] = Int32(index)
      }
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
