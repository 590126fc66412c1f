// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
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

  public init(rule: String, due: Date, items: [Entry], attempts: Int = 0) {
    self.rule = rule
    self.due = due
    self.items = items
    self.attempts = attempts
  }

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
    let data: Data
    switch ChunkedFile.readRegularFile(digestsPath, maxBytes: Self.maxFileBytes, followSymlinks: false) {
    case .missing: return []
    case .failed(let reason): throw .unreadable(path: digestsPath, reason: reason)
    case .read(let bytes): data = bytes
    }
    guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let list = object["digests"] as? [[String: Any]]
    else {
      if !readOnly {
        _ = rename(
          digestsPath, digestsPath + ".corrupt-" + ISODate.format(Date()).replacingOccurrences(of: ":", with: ""))
      }
      return []
    }
    return list.compactMap { digest in
      guard let rule = digest["rule"] as? String, let due = (digest["due"] as? String).flatMap(DateParser.parse),
        let items = digest["items"] as? [[String: Any]]
      else { return nil }
      let entries = items.compactMap { item -> Digest.Entry? in
        guard let feed = item["feed"] as? String, let key = item["key"] as? String,
          let json = item["item"] as? String,
          let collected = (item["collected"] as? String).flatMap(DateParser.parse)
        else { return nil }
        return Digest.Entry(
          feed: feed, key: key, title: item["title"] as? String, link: item["link"] as? String, item: json,
          collected: collected)
      }
      return Digest(rule: rule, due: due, items: entries, attempts: min(max(digest["attempts"] as? Int ?? 0, 0), 1_000))
    }
  }

  /// Replaces the digests (durably).
  public func saveDigests(_ digests: [Digest]) throws(StateError) {
    let json = JSONOutput.object([
      ("version", .int(1)),
      (
        "digests",
        .array(
          digests.map { digest in
            .object([
              ("rule", .string(digest.rule)), ("due", .string(ISODate.format(digest.due))),
              ("attempts", .int(digest.attempts)),
              (
                "items",
                .array(
                  digest.items.map {
                    .object([
                      ("feed", .string($0.feed)), ("key", .string($0.key)), ("title", .optional($0.title)),
                      ("link", .optional($0.link)), ("item", .string($0.item)),
                      ("collected", .string(ISODate.format($0.collected))),
                    ])
                  })
              ),
            ])
          })
      ),
    ])
    try Self.writeAtomically(Data(json.pretty), to: digestsPath, directory: directory)
  }
}
