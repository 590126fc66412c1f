// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherSupport

/// A 👍 or 👎 given to an item, kept with the item's text so that a model can be trained again from it.
public struct Label: Sendable, Equatable {
  /// The item's key, and its feed's name.
  public var key: String
  public var feed: String
  /// 👍 (`true`) or 👎.
  public var up: Bool
  /// When it was given.
  public var time: Date
  /// What the item said when it was given (bounded: see ``maxTextBytes``).
  public var title: String
  public var text: String
  public var author: String
  public var categories: [String]
  public var link: String

  /// The most labels kept: the newest.
  public static let maxCount = 5_000
  /// The most bytes of an item's text kept with its label; its title, author, link and each category are
  /// kept to ``maxFieldBytes``.
  public static let maxTextBytes = 2_000
  public static let maxFieldBytes = 500

  public init(
    key: String, feed: String, up: Bool, time: Date, title: String, text: String = "", author: String = "",
    categories: [String] = [], link: String = ""
  ) {
    self.key = Self.cut(key, Self.maxFieldBytes)
    self.feed = Self.cut(feed, Self.maxFieldBytes)
    self.up = up
    self.time = time
    self.title = Self.cut(title, Self.maxFieldBytes)
    self.text = Self.cut(text, Self.maxTextBytes)
    self.author = Self.cut(author, Self.maxFieldBytes)
    self.categories = categories.prefix(20).map { Self.cut($0, Self.maxFieldBytes) }
    self.link = Self.cut(link, Self.maxFieldBytes)
  }

  /// `text` cut to at most `bytes` bytes of UTF-8, on a character boundary.
  static func cut(_ text: String, _ bytes: Int) -> String {
    guard text.utf8.count > bytes else { return text }
    var out = ""
    for character in text {
      guard out.utf8.count + character.utf8.count <= bytes else { break }
      out.append(character)
    }
    return out
  }
}

extension StateStore {
  /// The labels' file.
  public var labelsPath: String { directory + "/labels.json" }

  /// The labels given, oldest first; none when the file is missing or corrupt (a corrupt one is moved
  /// aside unless `readOnly`).
  public func labels(readOnly: Bool = false) throws(StateError) -> [Label] {
    try readShared(labelsPath, readOnly: readOnly) { json in
      var labels: [Label] = []
      try json.object { json, key in
        guard key == "labels" else { return try json.skipValue() }
        try json.array { json in
          var fields: [String: String] = [:]
          var (up, time): (Bool?, Date?)
          var categories: [String] = []
          try json.object { json, member in
            switch member {
            case "up": up = try json.optional { try $0.bool() }
            case "time": time = try json.optional { try $0.date() }
            case "categories":
              try json.array { json in
                if let category = try json.optional({ try $0.string() }) { categories.append(category) }
              }
            case "key", "feed", "title", "text", "author", "link":
              fields[member] = try json.optional { try $0.string() }
            default: try json.skipValue()
            }
          }
          guard let up, let time, let key = fields["key"], labels.count < Label.maxCount * 2 else { return }
          labels.append(
            Label(
              key: key, feed: fields["feed"] ?? "", up: up, time: time, title: fields["title"] ?? "",
              text: fields["text"] ?? "", author: fields["author"] ?? "", categories: categories,
              link: fields["link"] ?? ""))
        }
      }
      return Array(labels.suffix(Label.maxCount))
    } ?? []
  }

  /// Changes the labels as `change` says, read and written back under their file's lock, so that a label
  /// given meanwhile by another command or a bubble's button is not lost.
  @discardableResult
  public func updateLabels<T>(_ change: (inout [Label]) throws(StateError) -> T) throws(StateError) -> T {
    try changing(labelsPath) { () throws(StateError) -> T in
      let before = try self.labels()
      var labels = before
      let result = try change(&labels)
      if labels != before { try saveLabels(labels) }
      return result
    }
  }

  /// Replaces the labels (durably), keeping the newest ``Label/maxCount``; an item labelled twice keeps its
  /// last label. (``updateLabels(_:)`` for a change of what is there.)
  func saveLabels(_ labels: [Label]) throws(StateError) {
    var seen: Set<String> = []
    let kept = labels.reversed().filter { seen.insert($0.feed + "\n" + $0.key).inserted }.prefix(Label.maxCount)
      .reversed()
    var json = PrettyJSON()
    json.object { json in
      json.key("labels")
      json.array { json in
        for label in kept {
          json.element()
          json.object { json in
            json.member("author", label.author.isEmpty ? nil : label.author)
            json.key("categories")
            json.array { json in
              for category in label.categories {
                json.element()
                json.string(category)
              }
            }
            json.member("feed", label.feed)
            json.member("key", label.key)
            json.member("link", label.link.isEmpty ? nil : label.link)
            json.member("text", label.text.isEmpty ? nil : label.text)
            json.member("time", label.time)
            json.member("title", label.title)
            json.member("up", label.up)
          }
        }
      }
      json.member("version", 1)
    }
    try Self.writeAtomically(Data(json.document()), to: labelsPath, directory: directory)
  }
}
