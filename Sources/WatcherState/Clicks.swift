// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// A button of a notification that was clicked, waiting to become a pending hook of its feed.
///
/// Whoever receives the click (the daemon, or the helper that holds an exited poll's notifications) writes
/// it to `clicks/` of the state directory, one small file each, durably; the next pass (or `watcher pending
/// --retry`) turns it into a pending action of its feed under the state lock, and removes the file only
/// once that is saved: a click is never lost, and runs with a hook's guarantees.
public struct Click: Sendable, Equatable {
  public var feedURL: String
  public var key: String
  public var rule: String
  public var button: String
  public var title: String?
  public var link: String?
  /// The item's document, as the notification kept it.
  public var item: String?
  public var time: Date

  public init(
    feedURL: String, key: String, rule: String, button: String, title: String?, link: String?, item: String?,
    time: Date
  ) {
    self.feedURL = feedURL
    self.key = key
    self.rule = rule
    self.button = button
    self.title = title
    self.link = link
    self.item = item
    self.time = time
  }

  /// The most clicks waiting at once (older ones beyond it are given up, oldest first).
  public static let maxWaiting = 1_000
}

extension StateStore {
  public var clicksDirectory: String { directory + "/clicks" }
  /// The snoozed feeds' file.
  public var snoozesPath: String { directory + "/snoozed.json" }

  /// Writes a click (durably) for the next pass to pick up.
  public func record(_ click: Click) throws(StateError) {
    try? FileManager.default.createDirectory(atPath: clicksDirectory, withIntermediateDirectories: true)
    var json = PrettyJSON()
    json.object { json in
      json.member("button", click.button)
      json.member("feed_url", click.feedURL)
      json.member("item", click.item)
      json.member("key", click.key)
      json.member("link", click.link)
      json.member("rule", click.rule)
      json.member("time", click.time)
      json.member("title", click.title)
    }
    let name = "click-\(Int(click.time.timeIntervalSince1970 * 1_000))-\(UInt32.random(in: 0...UInt32.max)).json"
    try Self.writeAtomically(Data(json.document()), to: clicksDirectory + "/" + name, directory: clicksDirectory)
  }

  /// The clicks waiting, oldest first, each with its file; unreadable files are skipped (and left).
  public func clicks() -> [(path: String, click: Click)] {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: clicksDirectory)) ?? []).filter {
      $0.hasPrefix("click-") && $0.hasSuffix(".json")
    }.sorted().prefix(Click.maxWaiting)
    return names.compactMap { name in
      let path = clicksDirectory + "/" + name
      guard case .read(let data) = ChunkedFile.readRegularFile(path, maxBytes: 1 << 20, followSymlinks: false),
        let click = try? JSONReader.read(
          data,
          { json -> Click? in
            var fields: [String: String] = [:]
            var time: Date?
            try json.object { json, key in
              if key == "time" {
                time = try json.optional { try $0.date() }
              } else {
                fields[key] = try json.optional { try $0.string() }
              }
            }
            guard let url = fields["feed_url"], let key = fields["key"], let rule = fields["rule"],
              let button = fields["button"], let time
            else { return nil }
            return Click(
              feedURL: url, key: key, rule: rule, button: button, title: fields["title"], link: fields["link"],
              item: fields["item"], time: time)
          }) ?? nil
      else { return nil }
      return (path, click)
    }
  }

  /// The feeds snoozed, by name, until when (ended ones included until they are saved again).
  ///
  /// Checked against `now`: snoozes written while the clock was ahead (the file's `written` time lies in the
  /// future) keep their length from now, and none lasts longer than the longest snooze from now. Unless
  /// `readOnly`, such snoozes are saved again as of now, so their length counts from this first look.
  public func snoozes(readOnly: Bool = true, now: Date) -> [String: Date] {
    var rebased = false
    guard !readOnly else { return read(readOnly: true, now: now, rebased: &rebased) }
    // Written back under the file's lock, like every change of it (`snooze`).
    return
      (try? changing(snoozesPath) { () throws(StateError) -> [String: Date] in
        let snoozes = read(readOnly: false, now: now, rebased: &rebased)
        if rebased { try? save(snoozes, now: now) }
        return snoozes
      }) ?? read(readOnly: true, now: now, rebased: &rebased)
  }

  private func read(readOnly: Bool, now: Date, rebased: inout Bool) -> [String: Date] {
    ((try? readShared(snoozesPath, readOnly: readOnly) { json in
      var snoozes: [String: Date] = [:]
      var written: Date?
      try json.object { json, key in
        if key == "written" { return written = try json.optional { try $0.date() } }
        guard key == "feeds" else { return try json.skipValue() }
        try json.object { json, feed in
          if let until = try json.optional({ try $0.date() }), snoozes.count < 10_000 { snoozes[feed] = until }
        }
      }
      let ahead = written.map { StoredTime.isAhead($0, now: now) ? $0.timeIntervalSince(now) : 0 } ?? 0
      rebased = ahead > 0
      return snoozes.mapValues {
        StoredTime.deadline($0.addingTimeInterval(-ahead), longest: Self.longestSnooze, now: now)
      }
    }) ?? nil) ?? [:]
  }

  /// The longest snooze `watcher snooze` sets.
  public static let longestSnooze: TimeInterval = 366 * 86_400

  /// Snoozes `feed` until `until` (nil: wakes it), keeping the other snoozes that have not ended by `now`.
  public func snooze(_ feed: String, until: Date?, now: Date) throws(StateError) {
    // Under the file's lock: a snooze set meanwhile (a bubble's button, another command) is kept.
    try changing(snoozesPath) { () throws(StateError) in
      var rebased = false
      var snoozes = read(readOnly: false, now: now, rebased: &rebased).filter { $0.value > now }
      snoozes[feed] = until
      try save(snoozes, now: now)
    }
  }

  private func save(_ snoozes: [String: Date], now: Date) throws(StateError) {
    guard !snoozes.isEmpty else {
      unlink(snoozesPath)
      return
    }
    var json = PrettyJSON()
    json.object { json in
      json.key("feeds")
      json.object { json in
        for (name, until) in snoozes.sorted(by: { $0.key < $1.key }) { json.member(name, until) }
      }
      json.member("version", 1)
      json.member("written", now)
    }
    try Self.writeAtomically(Data(json.document()), to: snoozesPath, directory: directory)
  }
}
