// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherState
import WatcherSupport

/// The bubbles a later notification replaces instead of stacking another, kept across processes in
/// `bubbles.json`: a digest's, "While you were away", and a run of critical ones.
///
/// A critical notification never expires, so a rule that fires often would pile bubbles up on the screen.
/// While a rule's critical bubble is open, its next critical item replaces it and says what it stands for
/// ("… and 2 more", the earlier titles in the body, "Open all" for their links). A run ends when its bubble
/// is closed, or `runLife` after its last item.
package struct BubbleRuns: Sendable, Equatable {
  /// One item a run's bubble stands for.
  package struct Entry: Codable, Sendable, Equatable {
    package var summary: String
    package var link: String?
  }

  /// A bubble on screen: its server id, and for a run, when it was last shown and what it stands for.
  package struct Bubble: Codable, Sendable, Equatable {
    package var id: Int32
    package var at: Double?
    package var entries: [Entry]?

    package init(id: Int32, at: Double? = nil, entries: [Entry]? = nil) {
      self.id = id
      self.at = at
      self.entries = entries
    }

    /// Reads the old form, a bare id, too.
    package init(from decoder: any Decoder) throws {
      if let id = try? decoder.singleValueContainer().decode(Int32.self) {
        self.init(id: id)
        return
      }
      let container = try decoder.container(keyedBy: CodingKeys.self)
      self.init(
        id: try container.decode(Int32.self, forKey: .id), at: try container.decodeIfPresent(Double.self, forKey: .at),
        entries: try container.decodeIfPresent([Entry].self, forKey: .entries))
    }
  }

  package var bubbles: [String: Bubble] = [:]

  /// How long after its last item a run's bubble is taken to be gone even if no one said it closed.
  package static let runLife: TimeInterval = 86_400
  /// The most items a run remembers, and the most earlier titles its body lists.
  package static let maxEntries = 50
  package static let listed = 4
  /// The most bubbles kept: beyond it, only the newest.
  package static let maxBubbles = 100

  package init(bubbles: [String: Bubble] = [:]) {
    self.bubbles = bubbles
  }

  /// Reads `bubbles.json` (missing, too large or unreadable: none).
  package init(contentsOf data: Data?) {
    guard let data, data.count < 1 << 20, let read = try? JSONDecoder().decode([String: Bubble].self, from: data)
    else { return }
    bubbles = read
  }

  package var data: Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return (try? encoder.encode(bubbles)) ?? Data("{}".utf8)
  }

  /// The run a notification belongs to: a critical item's, by its rule (or feed) — nil for any other.
  package static func runName(_ notification: DesktopNotification) -> String? {
    guard notification.urgency == .critical, notification.category == .item, notification.replaces == nil
    else { return nil }
    return "critical:" + (notification.rule ?? notification.feed ?? "")
  }

  /// What to show for `notification` at `now`: itself, or the bubble of its run standing for the earlier
  /// items too; with the name it replaces and the entries its run will hold once shown.
  package func prepare(_ notification: DesktopNotification, now: Date) -> (DesktopNotification, [Entry]?) {
    guard let name = Self.runName(notification) else { return (notification, nil) }
    var shown = notification
    shown.replaces = name
    let entry = Entry(summary: notification.summary, link: notification.link)
    guard let run = bubbles[name], let at = run.at, let earlier = run.entries, !earlier.isEmpty,
      now.timeIntervalSince1970 - at < Self.runLife, now.timeIntervalSince1970 >= at
    else { return (shown, [entry]) }
    let entries = Array(([entry] + earlier).prefix(Self.maxEntries))
    shown.summary = notification.summary + " (and \(entries.count - 1) more)"
    var lines = earlier.prefix(Self.listed).map { "• " + $0.summary }
    if earlier.count > Self.listed { lines.append("… and \(earlier.count - Self.listed) more") }
    shown.body = [notification.body, "Earlier:\n" + lines.joined(separator: "\n")].filter { !$0.isEmpty }
      .joined(separator: "\n\n")
    var links: [String] = []
    for link in entries.compactMap(\.link) where !links.contains(link) { links.append(link) }
    shown.links = links
    return (shown, entries)
  }

  /// Records a bubble shown under `name`.
  ///
  /// A story's bubble (`story:N`: every item notification may become one) is kept with its time, and the
  /// oldest of them make room first; only past `maxBubbles` of the others are all but this one forgotten.
  package mutating func shown(_ name: String, id: Int32, entries: [Entry]?, now: Date) {
    let story = name.hasPrefix("story:")
    bubbles[name] = Bubble(id: id, at: entries == nil && !story ? nil : now.timeIntervalSince1970, entries: entries)
    guard bubbles.count > Self.maxBubbles else { return }
    let stories = bubbles.filter { $0.key.hasPrefix("story:") && $0.key != name }
      .sorted { ($0.value.at ?? 0, $0.key) < ($1.value.at ?? 0, $1.key) }
    for (old, _) in stories.prefix(bubbles.count - Self.maxBubbles) { bubbles[old] = nil }
    if bubbles.count > Self.maxBubbles { bubbles = bubbles.filter { $0.key == name } }
  }

  /// Forgets a bubble that closed.
  package mutating func closed(_ name: String) {
    bubbles[name] = nil
  }
}
