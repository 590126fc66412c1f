// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A libxml2 dictionary-interned name: the same pointers stand for the same name within one parse.
struct NameKey: Equatable {
  var name: Int
  var uri: Int
  var prefix: Int
}

/// The tag of each element name met so far: an open-addressing table on the names' pointers.
///
/// Looked up twice per element; a `Dictionary` spent most of that time in its seeded hash.
struct NameTable {
  private var keys: [NameKey?] = Array(repeating: nil, count: 64)
  private var values: [Int] = Array(repeating: 0, count: 64)
  private var count = 0

  func find(_ key: NameKey) -> Int? {
    var slot = Self.hash(key) & (keys.count - 1)
    while let stored = keys[slot] {
      if stored == key { return values[slot] }
      slot = (slot + 1) & (keys.count - 1)
    }
    return nil
  }

  mutating func insert(_ key: NameKey, _ value: Int) {
    if (count + 1) * 2 > keys.count { grow() }
    var slot = Self.hash(key) & (keys.count - 1)
    while let stored = keys[slot], stored != key { slot = (slot + 1) & (keys.count - 1) }
    if keys[slot] == nil { count += 1 }
    keys[slot] = key
    values[slot] = value
  }

  private mutating func grow() {
    let old = zip(keys, values)
    keys = Array(repeating: nil, count: keys.count * 2)
    values = Array(repeating: 0, count: keys.count)
    count = 0
    for (key, value) in old { if let key { insert(key, value) } }
  }

  /// Mixes the three pointers (names share a pool, so they differ most in their low bits).
  private static func hash(_ key: NameKey) -> Int {
    let mixed = key.name &* 0x9E37_79B9 ^ key.uri &* 0x85EB_CA6B ^ key.prefix
    return mixed ^ (mixed >> 7)
  }
}
