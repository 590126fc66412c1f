// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// One line of the journal: what became of one action for one item (docs/log-json.md).
public struct JournalEntry: Sendable, Equatable {
  /// What became of the action.
  public enum Outcome: String, Sendable, CaseIterable {
    /// A notification was shown.
    case shown
    /// A notification could not be shown and was kept to show later.
    case kept
    /// A hook ran and exited 0.
    case ok
    /// A hook failed and will be retried on a later poll.
    case retry
    /// A hook failed too often, or its rule is gone: given up.
    case dropped
    /// Not carried out because watcher was stopping; it stays pending.
    case stopped
    /// A hook that started and was killed because watcher was stopping (`detail`: after how long); it stays
    /// pending and runs again.
    case interrupted
    /// A notification held for quiet hours; it is shown when they end.
    case held
    /// Not carried out: the same story was acted on for another feed (`detail` names it).
    case duplicate
    /// Known items came back under new keys (the feed changed its ids); nothing was acted on.
    case rekeyed
    /// An item seen before whose title or text changed: not new; only `on_update` rules act on it.
    case updated
    /// A new item that resembled a known one (`detail` says which and why the evidence was not enough):
    /// announced as new all the same.
    case resembled
    /// A new item that joined a story of other feeds (`detail`: which story, its feeds, the words shared),
    /// or whose story reached a spread trigger's feeds.
    case grouped
  }

  /// When it happened.
  public var time: Date
  /// The feed's name.
  public var feed: String
  /// The item's title, link and key.
  public var title: String?
  public var link: String?
  public var key: String
  /// The rule that asked for the action (`nil` for a feed's `notify: true`).
  public var rule: String?
  /// `notify` or `hook`.
  public var action: String
  /// What became of it.
  public var outcome: Outcome
  /// A hook's exit status, when it exited.
  public var exitStatus: Int?
  /// The attempt this was (1 for the first).
  public var attempt: Int
  /// More words: why it failed, "in one summary of 12", "kept from an earlier poll".
  public var detail: String?

  /// The most UTF-8 bytes of a title an entry keeps (with `maxTextBytes`, every line of the journal stays
  /// under about 30 KB, whatever a feed sends).
  public static let maxTitleBytes = 2_048
  /// The most UTF-8 bytes of a link, a key or a detail an entry keeps.
  public static let maxTextBytes = 8_192

  /// Creates an entry (its texts cut to `maxTitleBytes` and `maxTextBytes`).
  public init(
    time: Date, feed: String, title: String?, link: String?, key: String, rule: String?, action: String,
    outcome: Outcome, exitStatus: Int? = nil, attempt: Int = 1, detail: String? = nil
  ) {
    func cut(_ text: String, _ limit: Int = Self.maxTextBytes) -> String {
      TextBudget.prefix(text, maxBytes: limit, marked: true)
    }
    self.time = time
    self.feed = feed
    self.title = title.map { cut($0, Self.maxTitleBytes) }
    self.link = link.map { cut($0) }
    self.key = cut(key)
    self.rule = rule
    self.action = action
    self.outcome = outcome
    self.exitStatus = exitStatus
    self.attempt = attempt
    self.detail = detail.map { cut($0) }
  }

  /// The entry as the journal and `watcher log --json` write it (keys in this order).
  public var json: JSONOutput {
    .object([
      ("time", .string(ISODate.format(time))), ("feed", .string(feed)), ("title", .optional(title)),
      ("link", .optional(link)), ("key", .string(key)), ("rule", .optional(rule)), ("action", .string(action)),
      ("outcome", .string(outcome.rawValue)), ("exit_status", exitStatus.map { .int($0) } ?? .null),
      ("attempt", .int(attempt)), ("detail", .optional(detail)),
    ])
  }

  /// Reads one journal line; nil for a line that is not an entry (a torn last line after a crash).
  package init?(line: Substring) {
    guard let object = try? JSONReader.members(line.utf8),
      let timeText = object["time"]?.string, let time = DateParser.parse(timeText),
      let feed = object["feed"]?.string, let key = object["key"]?.string,
      let action = object["action"]?.string,
      let outcome = object["outcome"]?.string.flatMap(Outcome.init(rawValue:))
    else { return nil }
    self.init(
      time: time, feed: feed, title: object["title"]?.string, link: object["link"]?.string, key: key,
      rule: object["rule"]?.string, action: action, outcome: outcome, exitStatus: object["exit_status"]?.int,
      attempt: object["attempt"]?.int ?? 1, detail: object["detail"]?.string)
  }
}

/// How much of the journal is kept.
public struct JournalLimits: Sendable, Equatable {
  /// Entries older than this many seconds are forgotten.
  public var keepFor: Int
  /// At most this many entries are kept.
  public var keepMax: Int
  /// The file being written is rotated before it grows past this many bytes (so the two files stay far
  /// under what the reader accepts, whatever the entries hold).
  public var maxBytes: Int

  /// The defaults: 30 days, 10,000 entries, 32 MiB a file.
  public init(keepFor: Int = 30 * 86_400, keepMax: Int = 10_000, maxBytes: Int = 32 << 20) {
    self.keepFor = keepFor
    self.keepMax = keepMax
    self.maxBytes = maxBytes
  }
}

extension StateStore {
  /// The journal being written, and the older half it was rotated to.
  public var journalPath: String { directory + "/journal.jsonl" }
  var rotatedJournalPath: String { directory + "/journal.1.jsonl" }

  /// Appends `entries` to the journal, one JSON line each, in one write.
  ///
  /// Bounded by rotation: once the current file holds `keepMax` entries, or would grow past `maxBytes`, it
  /// becomes `journal.1.jsonl` (replacing the previous one), so the two hold the newest `keepMax` and at most
  /// twice that; a rotated file older than `keepFor` is deleted. Reading applies both limits exactly.
  public func appendJournal(_ entries: [JournalEntry], limits: JournalLimits, now: Date = Date()) throws(StateError) {
    guard !entries.isEmpty, limits.keepMax > 0 else { return }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(entries.count * 256)
    for entry in entries {
      entry.json.write(to: &bytes)
      bytes.append(10)
    }
    var (size, existing) = journalSize()
    if size > 0, existing + entries.count > limits.keepMax || size + bytes.count > limits.maxBytes {
      guard rename(journalPath, rotatedJournalPath) == 0 || errno == ENOENT else {
        throw .writeFailed(path: journalPath, reason: String(cString: strerror(errno)))
      }
      existing = 0
    }
    var info = stat()
    if stat(rotatedJournalPath, &info) == 0,
      Double(info.st_mtim.tv_sec) < now.timeIntervalSince1970 - Double(limits.keepFor)
    {
      unlink(rotatedJournalPath)
    }
    let fd = open(journalPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw .writeFailed(path: journalPath, reason: String(cString: strerror(errno))) }
    defer { close(fd) }
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == bytes.count else {
      journalCount.withLock { $0 = nil }
      throw .writeFailed(path: journalPath, reason: written < 0 ? String(cString: strerror(errno)) : "short write")
    }
    var after = stat()
    let sizeAfter = fstat(fd, &after) == 0 ? Int(after.st_size) : -1
    journalCount.withLock { $0 = (sizeAfter, existing + entries.count) }
  }

  /// The journal's bytes and lines: the lines remembered from this store's last look while the file keeps
  /// the size it had then (nobody else wrote to it), else counted.
  private func journalSize() -> (bytes: Int, lines: Int) {
    var info = stat()
    guard lstat(journalPath, &info) == 0 else { return (0, 0) }
    let size = Int(info.st_size)
    if let known = journalCount.withLock({ $0 }), known.size == size { return (size, known.lines) }
    let lines = Self.lineCount(journalPath)
    journalCount.withLock { $0 = (size, lines) }
    return (size, lines)
  }

  /// The journal's entries, oldest first, within `limits` (and newer than `since`, of `feed`, when given).
  ///
  /// Lines that are not entries (a torn line after a crash) are skipped and counted.
  public func journal(limits: JournalLimits, since: Date? = nil, feed: String? = nil, now: Date = Date())
    -> (entries: [JournalEntry], unreadable: Int)
  {
    let horizon = max(since ?? .distantPast, now.addingTimeInterval(-Double(limits.keepFor)))
    var entries: [JournalEntry] = []
    var unreadable = 0
    for path in [rotatedJournalPath, journalPath] {
      guard case .read(let data) = ChunkedFile.readRegularFile(path, maxBytes: Self.maxFileBytes, followSymlinks: false)
      else { continue }
      for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        guard let entry = JournalEntry(line: line) else {
          unreadable += 1
          continue
        }
        entries.append(entry)
      }
    }
    entries = Array(entries.suffix(limits.keepMax)).filter { $0.time >= horizon && (feed == nil || $0.feed == feed) }
    return (entries, unreadable)
  }

  private static func lineCount(_ path: String) -> Int {
    guard case .read(let data) = ChunkedFile.readRegularFile(path, maxBytes: maxFileBytes, followSymlinks: false)
    else { return 0 }
    return data.withUnsafeBytes { bytes in
      var lines = 0
      for byte in bytes where byte == 10 { lines += 1 }
      return lines
    }
  }
}
