// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// A story acted on: its link in the compared form, the feed it was acted on for, and when.
///
/// The stories live in one file of the state directory, `stories.json`: an item of another feed with the
/// same story is a duplicate, not acted on again (docs/rules.md, "One story, one set of actions").
public struct Story: Sendable, Equatable {
  public var story: String
  public var feed: String
  public var time: Date

  public init(story: String, feed: String, time: Date) {
    self.story = story
    self.feed = feed
    self.time = time
  }

  /// The most stories kept (the newest); with each cut to `maxBytes`, the file stays under a few MB.
  public static let maxCount = 20_000
  /// A longer story is kept as its hash.
  public static let maxBytes = 512

  /// `story` as it is kept: itself, or its hash when longer than `maxBytes`.
  public static func bounded(_ story: String) -> String {
    story.utf8.count <= maxBytes ? story : "hash:" + StableHash.hex(of: story)
  }
}

extension StateStore {
  /// The stories' file.
  public var storiesPath: String { directory + "/stories.json" }

  /// The stories acted on; none when the file is missing or corrupt (a corrupt one is moved aside unless
  /// `readOnly`).
  public func stories(readOnly: Bool = false) throws(StateError) -> [String: Story] {
    try readShared(storiesPath, readOnly: readOnly) { json in
      var stories: [String: Story] = [:]
      try json.object { json, key in
        guard key == "stories" else { return try json.skipValue() }
        try json.array { json in
          var (story, feed, time): (String?, String?, Date?)
          try json.object { json, member in
            switch member {
            case "story": story = try json.optional { try $0.string() }
            case "feed": feed = try json.optional { try $0.string() }
            case "time": time = try json.optional { try $0.date() }
            default: try json.skipValue()
            }
          }
          if let story, let feed, let time { stories[story] = Story(story: story, feed: feed, time: time) }
        }
      }
      return stories
    } ?? [:]
  }

  /// Replaces the stories (durably), without those older than `horizon` and beyond `Story.maxCount`.
  public func saveStories(_ stories: [String: Story], horizon: Date) throws(StateError) {
    let kept = stories.values.filter { $0.time >= horizon }.sorted { ($0.time, $0.story) > ($1.time, $1.story) }
      .prefix(Story.maxCount)
    var json = PrettyJSON()
    json.object { json in
      json.key("stories")
      json.array { json in
        for story in kept.sorted(by: { $0.story < $1.story }) {
          json.element()
          json.object { json in
            json.member("feed", story.feed)
            json.member("story", story.story)
            json.member("time", story.time)
          }
        }
      }
      json.member("version", 1)
    }
    try Self.writeAtomically(Data(json.document()), to: storiesPath, directory: directory)
  }
}
