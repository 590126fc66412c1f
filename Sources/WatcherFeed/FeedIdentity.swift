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

  /// A set of strings held as their bytes in one buffer, found through an open-addressing table.
  ///
  /// A streaming parse remembers every key of the feed; a `[String: Int]` cost about 60 bytes per key
  /// (12.6 MB for the 210,000 items of a 243 MB feed), this the key's bytes and about 16 more.
  ///
  /// Each slot is one 32-bit word: the key's index plus one (0: empty) in its low 24 bits, 8 bits of the key's
  /// hash above. A new key, the usual case, costs one look at one slot: a slot whose 8 bits differ is passed
  /// without reading the key it holds (the table outgrows the processor's own cache on a big feed, and
  /// every key read there was a miss). Growing rehashes from the kept hashes, not the keys' bytes.
  package struct KeySet {
    private var bytes: [UInt8] = []
    /// Where each key ends in `bytes` (it starts where the one before ends).
    private var ends: [UInt32] = []
    /// Each key's hash (its low 32 bits), for growing.
    private var hashes: [UInt32] = []
    /// Index plus one and hash bits (see above), 0 for an empty slot; at most half full.
    private var slots = [UInt32](repeating: 0, count: 64)
    /// Seeded, so a feed cannot choose keys that all land in one slot.
    private let seed = Int.random(in: .min ... .max)
    /// The most keys kept: what a slot's 24 bits can name (fewer in tests).
    private let maxKeys: Int

    package init(maxKeys: Int = (1 << 24) - 1) {
      self.maxKeys = min(maxKeys, (1 << 24) - 1)
    }

    /// Adds `key`; false when it was there already.
    package mutating func insert(_ key: String) -> Bool {
      key.withUTF8Span {
        $0.withUnsafeBufferPointer { utf8 in
          let hash = self.hash(utf8)
          let tag = Self.tag(hash)
          let mask = slots.count - 1
          var slot = Int(hash) & mask
          while true {
            let entry = slots[slot]
            if entry == 0 { break }
            if entry & 0xFF00_0000 == tag, holds(Int(entry & 0xFF_FFFF) - 1, utf8) { return false }
            slot = (slot + 1) & mask
          }
          // Past what the slots and 32-bit offsets can hold (never, under the size and item caps): grow no
          // more and report every further key as new, as a key that cannot be remembered is.
          guard bytes.count + utf8.count < Int(UInt32.max), ends.count < maxKeys else { return true }
          bytes.append(contentsOf: utf8)
          ends.append(UInt32(bytes.count))
          hashes.append(hash)
          slots[slot] = tag | UInt32(ends.count)
          if ends.count * 2 > slots.count { grow() }
          return true
        }
      }
    }

    /// The hash bits a slot keeps: the top 8 of the 32 (the table's index takes the low ones).
    @inline(__always)
    private static func tag(_ hash: UInt32) -> UInt32 { hash & 0xFF00_0000 }

    /// Whether the key at `index` is `utf8`: lengths first, then the bytes.
    private func holds(_ index: Int, _ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
      let start = index == 0 ? 0 : Int(ends[index - 1])
      guard Int(ends[index]) - start == utf8.count else { return false }
      return bytes.withUnsafeBufferPointer { stored in
        guard let base = stored.baseAddress, let wanted = utf8.baseAddress else { return utf8.isEmpty }
        return memcmp(base + start, wanted, utf8.count) == 0
      }
    }

    private func hash(_ utf8: UnsafeBufferPointer<UInt8>) -> UInt32 {
      var hasher = Hasher()
      hasher.combine(seed)
      hasher.combine(bytes: UnsafeRawBufferPointer(utf8))
      return UInt32(truncatingIfNeeded: hasher.finalize())
    }

    private mutating func grow() {
      slots = [UInt32](repeating: 0, count: slots.count * 2)
      let mask = slots.count - 1
      for (index, hash) in hashes.enumerated() {
        var slot = Int(hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Self.tag(hash) | UInt32(index + 1)
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
