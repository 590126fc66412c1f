// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// A story acted on: its link in the compared form and its title, the feed it was acted on for, when, and
/// the actions taken for it (each `rule/kind`).
///
/// The stories live in one file of the state directory, `stories.json`: an item of another feed with the
/// same story is a duplicate, not acted on again (docs/rules.md, "One story, one set of actions").
public struct Story: Sendable, Equatable {
  public var story: String
  public var feed: String
  public var time: Date
  /// The actions taken for it, `rule/kind` each (none in a file of an earlier version: nothing is then taken
  /// for a repeat).
  public var actions: [String]

  public init(story: String, feed: String, time: Date, actions: [String] = []) {
    self.story = story
    self.feed = feed
    self.time = time
    self.actions = actions
  }

  /// The most actions kept for one story.
  public static let maxActions = 32

  /// The most stories kept (the newest); with each cut to `maxBytes`, the file stays under a few MB.
  public static let maxCount = 20_000
  /// A longer story is kept as its hash.
  public static let maxBytes = 512

  /// A title as stories compare it: lowercased, its runs of white space one space (none: empty).
  ///
  /// Two
  /// items with one link but other titles are other stories: one feed cannot claim another's next post.
  public static func folded(_ title: String?) -> String {
    (title ?? "").lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }

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
          var actions: [String] = []
          try json.object { json, member in
            switch member {
            case "story": story = try json.optional { try $0.string() }
            case "feed": feed = try json.optional { try $0.string() }
            case "time": time = try json.optional { try $0.date() }
            case "actions":
              try json.array { json in
                if let action = try json.optional({ try $0.string() }), actions.count < Story.maxActions,
                  action.utf8.count <= Story.maxBytes
                {
                  actions.append(action)
                }
              }
            default: try json.skipValue()
            }
          }
          if let story, let feed, let time {
            stories[story] = Story(story: story, feed: feed, time: time, actions: actions)
          }
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
            json.key("actions")
            json.array { json in
              for action in story.actions.prefix(Story.maxActions) {
                json.element()
                json.string(action)
              }
            }
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
