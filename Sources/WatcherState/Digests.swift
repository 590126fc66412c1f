// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// A rule's digest: the items collected so far and when they go out.
public struct Digest: Sendable, Equatable {
  /// One collected item.
  public struct Entry: Sendable, Equatable {
    public var feed: String
    public var key: String
    public var title: String?
    public var link: String?
    /// The item as `watcher parse --json` prints it (for the digest hook's stdin).
    public var item: String
    public var collected: Date

    public init(feed: String, key: String, title: String?, link: String?, item: String, collected: Date) {
      self.feed = feed
      self.key = key
      self.title = title
      self.link = link
      self.item = item
      self.collected = collected
    }
  }

  /// The rule's name.
  public var rule: String
  /// When it goes out.
  public var due: Date
  /// The items, in the order they came; at most `Digest.maxItems` (the newest).
  public var items: [Entry]
  /// Failed attempts of its hook so far.
  public var attempts = 0
  /// When its failed hook is tried again (nil: when it is due).
  public var nextTry: Date?
  /// The rule's schedule `due` was set by (`DigestAction.timing`): when the config's differs, the digest
  /// is timed again by the new one (nil: written by a version that did not say).
  public var timing: String?

  public init(
    rule: String, due: Date, items: [Entry], attempts: Int = 0, nextTry: Date? = nil, timing: String? = nil
  ) {
    self.rule = rule
    self.due = due
    self.items = items
    self.attempts = attempts
    self.nextTry = nextTry
    self.timing = timing
  }

  /// When it next has something to do: its time, or its hook's next try after a failure.
  public var nextAttempt: Date { max(due, nextTry ?? due) }

  /// The most items one digest keeps.
  public static let maxItems = 1_000
}

/// The digests live in one file of the state directory, `digests.json`, written like the feeds' state.
extension StateStore {
  /// The digests' file.
  public var digestsPath: String { directory + "/digests.json" }

  /// The digests waiting to go out; none when the file is missing or corrupt (a corrupt one is moved
  /// aside unless `readOnly`).
  public func digests(readOnly: Bool = false) throws(StateError) -> [Digest] {
    try readShared(digestsPath, readOnly: readOnly) { json in try Digest.file(reading: &json) } ?? []
  }

  /// Replaces the digests (durably), within `budget.sharedFile` bytes: returns the entries dropped to fit,
  /// the oldest collected first, each with its digest's rule (none, unless items are huge).
  @discardableResult
  public func saveDigests(_ digests: [Digest]) throws(StateError) -> [(rule: String, entry: Digest.Entry)] {
    var (document, sizes) = Digest.document(digests)
    var dropped: [(rule: String, entry: Digest.Entry)] = []
    if document.count > budget.sharedFile {
      // Every entry by its position across the digests, the oldest collected first.
      let places = digests.indices.flatMap { digest in digests[digest].items.indices.map { (digest, $0) } }
      func collected(_ position: Int) -> Date { digests[places[position].0].items[places[position].1].collected }
      let order = places.indices.sorted { (collected($0), $0) < (collected($1), $1) }
      let owners = places.map { digests[$0.0].items[$0.1].feed }
      let over = ByteBudget.fairOverflow(
        sizes: sizes, owners: owners, oldestFirst: order, total: document.count, budget: budget.sharedFile)
      var kept = digests
      for index in kept.indices { kept[index].items = [] }
      for (position, place) in places.enumerated() {
        let entry = digests[place.0].items[place.1]
        if over.contains(position) {
          dropped.append((digests[place.0].rule, entry))
        } else {
          kept[place.0].items.append(entry)
        }
      }
      dropped.sort { $0.entry.collected < $1.entry.collected }
      document = Digest.document(kept).bytes
    }
    try Self.writeAtomically(Data(document), to: digestsPath, directory: directory)
    return dropped
  }
}

extension Digest {
  /// `digests.json`'s text for `digests`, and the bytes each entry takes in it.
  package static func document(_ digests: [Digest]) -> (bytes: [UInt8], sizes: [Int]) {
    var json = PrettyJSON()
    var sizes: [Int] = []
    json.object { json in
      json.key("digests")
      json.array { json in
        for digest in digests {
          json.element()
          json.object { json in
            json.member("attempts", digest.attempts)
            json.member("due", digest.due)
            json.key("items")
            json.array { json in
              for entry in digest.items {
                let start = json.count
                json.element()
                json.object { json in
                  json.member("collected", entry.collected)
                  json.member("feed", entry.feed)
                  json.member("item", entry.item)
                  json.member("key", entry.key)
                  json.member("link", entry.link)
                  json.member("title", entry.title)
                }
                sizes.append(json.count - start)
              }
            }
            json.member("next_try", digest.nextTry)
            json.member("rule", digest.rule)
            json.member("timing", digest.timing)
          }
        }
      }
      json.member("version", 1)
    }
    return (json.document(), sizes)
  }

  /// Reads `digests.json` with the state files' own reader.
  ///
  /// A digest without its rule or time, or an entry without its feed, key, item or time, is left out (as a
  /// hand edit might leave one).
  package static func file(reading json: inout JSONReader) throws -> [Digest] {
    var digests: [Digest] = []
    var found = false
    try json.object { json, key in
      guard key == "digests" else { return try json.skipValue() }
      found = true
      try json.array { json in
        var (rule, due, attempts): (String?, Date?, Int) = (nil, nil, 0)
        var (nextTry, timing): (Date?, String?)
        var entries: [Entry] = []
        try json.object { json, key in
          switch key {
          case "rule": rule = try json.optional { try $0.string() }
          case "due": due = try json.optional { try $0.date() }
          case "attempts": attempts = try json.optional { try $0.int() } ?? 0
          case "next_try": nextTry = try json.optional { try $0.date() }
          case "timing": timing = try json.optional { try $0.string() }
          case "items":
            guard try !json.null() else { break }
            try json.array { json in
              var (feed, key, title, link, item, collected): (String?, String?, String?, String?, String?, Date?)
              try json.object { json, member in
                switch member {
                case "feed": feed = try json.optional { try $0.string() }
                case "key": key = try json.optional { try $0.string() }
                case "title": title = try json.optional { try $0.string() }
                case "link": link = try json.optional { try $0.string() }
                case "item": item = try json.optional { try $0.string() }
                case "collected": collected = try json.optional { try $0.date() }
                default: try json.skipValue()
                }
              }
              if let feed, let key, let item, let collected {
                entries.append(Entry(feed: feed, key: key, title: title, link: link, item: item, collected: collected))
              }
            }
          default: try json.skipValue()
          }
        }
        if let rule, let due {
          digests.append(
            Digest(
              rule: rule, due: due, items: entries, attempts: min(max(attempts, 0), 1_000), nextTry: nextTry,
              timing: timing.map { String($0.prefix(100)) }))
        }
      }
    }
    guard found else { throw json.failure("the file has no 'digests'") }
    return digests
  }
}
