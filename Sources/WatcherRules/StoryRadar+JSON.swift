// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherSupport

extension StoryRadar {
  /// The radar as `story-groups.json` keeps it.
  ///
  /// Its items (with their words and why they were placed) and what each story keeps beyond them;
  /// similarities in thousandths, times in seconds.
  public var document: [UInt8] {
    var json = PrettyJSON()
    json.object { json in
      json.key("items")
      json.array { json in
        for entry in entries {
          json.element()
          json.object { json in
            json.member("feed", entry.feed)
            if entry.joined { json.member("joined", true) }
            json.member("key", entry.key)
            json.member("link", entry.link)
            Self.write("sections", entry.sections, to: &json)
            json.member("story", entry.story)
            json.member("time", Int(entry.time.timeIntervalSince1970))
            json.member("title", entry.title)
            Self.write(entry.why, to: &json)
            Self.write("words", entry.words, to: &json)
            Self.write("text_words", entry.textWords, to: &json)
          }
        }
      }
      json.member("next_story", nextStory)
      json.key("notes")
      json.array { json in
        for (id, note) in notes.sorted(by: { $0.key < $1.key }) {
          json.element()
          json.object { json in
            Self.write("actions", note.actions, to: &json)
            if note.big { json.member("big", true) }
            json.member("body", note.body)
            Self.write("fired", note.fired, to: &json)
            json.member("link", note.link)
            json.member("same_as", note.sameAs)
            json.member("story", id)
            json.member("summary", note.summary)
          }
        }
      }
      json.member("version", 1)
    }
    return json.document()
  }

  private static func write(_ why: Why, to json: inout PrettyJSON) {
    json.key("why")
    json.object { json in
      json.member("refused", why.refused)
      write("shared", why.shared, to: &json)
      json.member("similarity", Int((why.similarity * 1000).rounded()))
      json.member("story", why.story)
      json.member("via", why.via)
      write("via_shared", why.viaShared, to: &json)
    }
  }

  private static func write(_ name: String, _ list: [String], to json: inout PrettyJSON) {
    guard !list.isEmpty else { return }
    json.key(name)
    json.array { json in
      for word in list {
        json.element()
        json.string(word)
      }
    }
  }

  /// Reads what `document` wrote; the stories' word counts are rebuilt from the items.
  package init(reading json: inout JSONReader, settings: Settings = Settings()) throws {
    self.init(settings: settings)
    var read: [Entry] = []
    var notes: [Int: Note] = [:]
    var next = 1
    try json.object { json, member in
      switch member {
      case "items":
        try json.array { json in
          if let entry = try Self.entry(&json) { read.append(entry) }
        }
      case "notes":
        try json.array { json in
          var (id, note) = (Int?.none, Note())
          try json.object { json, member in
            switch member {
            case "story": id = try json.int()
            case "summary": note.summary = try json.optional { try $0.string() }
            case "body": note.body = try json.optional { try $0.string() }
            case "link": note.link = try json.optional { try $0.string() }
            case "fired": note.fired = try Self.strings(&json, limit: 32)
            case "actions": note.actions = try Self.strings(&json, limit: 32)
            case "big": note.big = try json.bool()
            case "same_as": note.sameAs = try json.optional { try $0.int() }
            default: try json.skipValue()
            }
          }
          if let id { notes[id] = note }
        }
      case "next_story": next = try json.int()
      default: try json.skipValue()
      }
    }
    restore(read.suffix(settings.maxItems), notes: notes, nextStory: max(next, (read.map(\.story).max() ?? 0) + 1))
  }

  private static func entry(_ json: inout JSONReader) throws -> Entry? {
    var (key, feed, title, link) = (String?.none, String?.none, String?.none, String?.none)
    var (story, time, joined) = (Int?.none, Int?.none, false)
    var why = Why()
    var (words, text, sections): ([String], [String], [String]) = ([], [], [])
    try json.object { json, member in
      switch member {
      case "key": key = try json.string()
      case "feed": feed = try json.string()
      case "title": title = try json.string()
      case "link": link = try json.optional { try $0.string() }
      case "story": story = try json.int()
      case "time": time = try json.int()
      case "joined": joined = try json.bool()
      case "words": words = try strings(&json, limit: maxWords)
      case "text_words": text = try strings(&json, limit: maxWords)
      case "sections": sections = try strings(&json, limit: 8)
      case "why":
        try json.object { json, member in
          switch member {
          case "story": why.story = try json.optional { try $0.int() }
          case "similarity": why.similarity = Double(try json.int()) / 1000
          case "shared": why.shared = try strings(&json, limit: 2 * maxWords)
          case "refused": why.refused = try json.optional { try $0.string() }
          case "via": why.via = try json.optional { try $0.int() }
          case "via_shared": why.viaShared = try strings(&json, limit: 8)
          default: try json.skipValue()
          }
        }
      default: try json.skipValue()
      }
    }
    guard let key, let feed, let title, let story, let time else { return nil }
    return Entry(
      key: key, feed: feed, title: title, link: link, time: Date(timeIntervalSince1970: Double(time)), story: story,
      joined: joined, why: why, words: words, textWords: text, sections: sections)
  }

  private static func strings(_ json: inout JSONReader, limit: Int) throws -> [String] {
    var list: [String] = []
    try json.array { json in
      let string = try json.string()
      if list.count < limit, string.utf8.count <= 200 { list.append(string) }
    }
    return list
  }
}
