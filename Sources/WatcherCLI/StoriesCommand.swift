// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherFeed
import WatcherPoll
import WatcherRules
import WatcherState
import WatcherSupport

/// `watcher stories`: the stories that several feeds carry now, with their feeds and why each item joined;
/// `--jsonl` groups items read as JSON lines instead (for scripts and for measuring the grouping).
struct StoriesCommand: Command {
  let name = "stories"
  let summary = "list the stories several of your feeds carry (or group JSON lines read on stdin: --jsonl)"
  let positionals = Positionals.none()
  static let jsonl = OptionSpec(
    name: "jsonl",
    help: "read items as JSON lines on standard input ({\"id\", \"feed\", \"title\", \"link\", \"published\"}), in "
      + "time order, and print one {\"id\", \"cluster\"} line each (the state is not touched)")
  static let explain = OptionSpec(
    name: "explain", help: "say why each item joined its story, or why it did not join the closest one")
  let options = [Options.config, Options.stateDir, Options.json, Self.jsonl, Self.explain]

  /// The most bytes read from standard input.
  static let maxInput = 256 << 20

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    if arguments.has(Self.jsonl) {
      return group(terminal.readInput(Self.maxInput), arguments: arguments, terminal: terminal)
    }
    guard let (config, _) = ConfigOption.loadForReading(arguments, terminal: terminal) else { return .config }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
    let radar: StoryRadar
    do { radar = try store.storyRadar(readOnly: true) } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    let stories = radar.stories
    if arguments.has(Options.json) {
      terminal.output(
        JSONOutput.object([
          ("version", .int(1)), ("stories", .array(stories.map { Self.json($0, radar: radar) })),
        ]).pretty + [10])
      return .success
    }
    guard !stories.isEmpty else {
      terminal.print(
        radar.entries.isEmpty
          ? "no stories yet: items are grouped as polls find them new"
          : "no story in more than one feed among the \(radar.entries.count) items of the last "
            + "\(Int(radar.settings.window / 3600)) h")
      return .success
    }
    let now = WallClock.now()
    for story in stories {
      let fired = radar.notes[story.id]?.fired ?? []
      terminal.print(
        "story \(story.id): \(story.feeds.count) feeds, last \(StatusCommand.relative(story.last, now: now))"
          + (fired.isEmpty ? "" : " (fired: " + fired.map(Printable.line).joined(separator: ", ") + ")"))
      for entry in story.entries {
        terminal.print("  \(Printable.line(entry.feed)): \(Printable.line(entry.title))")
        if let link = entry.link { terminal.print("    \(Printable.line(link))") }
        if arguments.has(Self.explain) { terminal.print("    " + Self.why(entry)) }
      }
    }
    return .success
  }

  /// `--jsonl`: each line placed by a radar of the default settings, in the order read.
  ///
  /// Printed once all are read: `cluster` is the story as it stands at the end, and `cluster_at_arrival`, where it differs,
  /// the story the item joined when it came (one that later turned out to be part of a big story).
  private func group(_ input: Data, arguments: Arguments, terminal: Terminal) -> ExitCode {
    var radar = StoryRadar()
    var placed: [(id: String, entry: StoryRadar.Entry)] = []
    var sameAs: [Int: Int] = [:]
    let now = WallClock.now()
    for (id, value) in JSONLines.objects(input, terminal: terminal) {
      let time = value["published"]?.string.flatMap(DateParser.parse) ?? now
      let categories =
        value["category"]?.string.map { [$0] }
        ?? value["categories"].flatMap { categories -> [String]? in
          guard case .array(let list) = categories else { return nil }
          return list.compactMap(\.string)
        }
      let entry = radar.add(
        StoryRadar.Item(
          key: id, feed: value["feed"]?.string ?? "", title: value["title"]?.string ?? "",
          text: value["summary"]?.string ?? value["text"]?.string, link: value["link"]?.string, time: time,
          categories: categories ?? []))
      if let via = entry.why.via { sameAs[via] = entry.story }
      placed.append((id, entry))
    }
    func final(_ story: Int) -> Int {
      var story = story
      while let next = sameAs[story], next != story { story = next }
      return story
    }
    var out: [UInt8] = []
    for (id, entry) in placed {
      var members: [(String, JSONOutput)] = [("id", .string(id)), ("cluster", .int(final(entry.story)))]
      if final(entry.story) != entry.story { members.append(("cluster_at_arrival", .int(entry.story))) }
      if arguments.has(Self.explain) { members.append(("why", .string(Self.why(entry)))) }
      out += JSONOutput.object(members).compact
      out.append(UInt8(ascii: "\n"))
      if out.count > 1 << 16 {
        terminal.output(out)
        out.removeAll(keepingCapacity: true)
      }
    }
    terminal.output(out)
    return .success
  }

  /// Why an item is in its story, in words.
  static func why(_ entry: StoryRadar.Entry) -> String {
    let why = entry.why
    let words = why.shared.prefix(8).map { "'\(Printable.line($0))'" }.joined(separator: ", ")
    if entry.joined, let via = why.via {
      let same = why.viaShared.prefix(8).map { "'\(Printable.line($0))'" }.joined(separator: ", ")
      return "joined story \(entry.story) through story \(via), the same story"
        + (same.isEmpty ? "" : " (they share \(same))")
        + ": shares \(words) with story \(via) (similarity \(Relevance.shown(why.similarity)))"
    }
    if entry.joined {
      return "joined story \(entry.story): shares \(words) (similarity \(Relevance.shown(why.similarity)))"
    }
    guard let closest = why.story else { return "started story \(entry.story): \(why.refused ?? "no story to join")" }
    return "started story \(entry.story): not story \(closest) (\(why.refused ?? "")"
      + (words.isEmpty ? ")" : "; shares \(words))")
  }

  static func json(_ story: StoryRadar.Summary, radar: StoryRadar) -> JSONOutput {
    .object([
      ("id", .int(story.id)), ("feeds", .array(story.feeds.map { .string($0) })),
      ("last", .string(ISODate.format(story.last))),
      ("fired", .array((radar.notes[story.id]?.fired ?? []).map { .string($0) })),
      (
        "items",
        .array(
          story.entries.map { entry in
            .object([
              ("feed", .string(entry.feed)), ("key", .string(entry.key)), ("title", .string(entry.title)),
              ("link", entry.link.map { .string($0) } ?? .null), ("time", .string(ISODate.format(entry.time))),
              ("joined", .bool(entry.joined)), ("why", .string(why(entry))),
            ])
          })
      ),
    ])
  }
}
