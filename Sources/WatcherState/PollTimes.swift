// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// When feeds were last polled, and the HTTP validators they were last answered with when those changed,
/// for the polls that changed nothing else: one file, `polls.json`, written once per pass, instead of one
/// state file per feed.
///
/// A pass of 10,000 unchanged feeds (every answer 304) would otherwise replace 10,000 files, and creating
/// and fsyncing that many inodes was most of the daemon's CPU (docs/benchmarks.md, "Measurements behind the
/// code"). So would a pass over feeds whose server ignores conditional GET and sends its unchanged body with
/// a new `ETag`, or none any more. A feed's own file stays as it was; `StateStore.load` lays the newer poll
/// from here over it. The file only ever holds times and validators: losing it, or finding it corrupt, makes
/// feeds look polled a little earlier than they were, with the validators of their earlier poll, so they
/// are polled again (a 304, or the same body again, which costs what a 304 costs), and nothing else.
public enum PollTimes {
  /// The file's name in the state directory.
  public static let fileName = "polls.json"

  /// The times of one feed's last poll, and its validators then.
  public struct Times: Sendable, Equatable {
    public var lastAttempt: Date?
    public var lastSuccess: Date?
    public var lastSuccessBefore: Date?
    /// `ETag` and `Last-Modified` as the poll left them, recorded only once they differ from the state
    /// file's; nil where the file's stand.
    public var validators: Validators?
    /// The poll's validators, recorded or not (`record` keeps recording them for a feed that has some there).
    var current = Validators()

    /// The times of `state`'s poll; its validators too when they are not those of `saved` (the state as it
    /// was loaded).
    public init(of state: FeedState, since saved: FeedState?) {
      lastAttempt = state.lastAttempt
      lastSuccess = state.lastSuccess
      lastSuccessBefore = state.lastSuccessBefore
      current = Validators(etag: state.etag, lastModified: state.lastModified)
      if saved == nil || saved?.etag != state.etag || saved?.lastModified != state.lastModified {
        validators = current
      }
    }

    init() {}

    /// Lays these times over `state`, when they are newer than its own.
    ///
    /// The items its file saw at its last success were seen at each unchanged poll since, so they move with
    /// `lastSuccess` (as `FeedDecider.notModified` moves them).
    func laid(over state: inout FeedState) {
      guard let lastAttempt, lastAttempt > (state.lastAttempt ?? .distantPast) else { return }
      state.lastAttempt = lastAttempt
      if let validators {
        state.etag = validators.etag
        state.lastModified = validators.lastModified
      }
      if let lastSuccess, lastSuccess > (state.lastSuccess ?? .distantPast) {
        let previous = state.lastSuccess
        for key in state.items.keys where state.items[key]?.lastSeen == previous {
          state.items[key]?.lastSeen = lastSuccess
        }
        state.lastSuccess = lastSuccess
        state.lastSuccessBefore = lastSuccessBefore
      }
    }
  }

  /// The most bytes of validators a feed's entry holds; real ones are tens of bytes.
  static let maxValidatorBytes = 1_024

  /// An `ETag` and a `Last-Modified`, either of which may be missing.
  public struct Validators: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?
  }

  /// Whether `state` differs from `saved` (as it was loaded) in its poll times and validators only: the
  /// items seen at the last success moved with it, and nothing else changed.
  ///
  /// Validators longer than `maxValidatorBytes` (a server may send 64 KB) count as a change: they go to the
  /// feed's own file, so that one feed cannot make this shared file large.
  public static func onlyTimesChanged(_ state: FeedState, from saved: FeedState) -> Bool {
    guard let attempt = state.lastAttempt, attempt > (saved.lastAttempt ?? .distantPast) else { return false }
    let validatorBytes = (state.etag?.utf8.count ?? 0) + (state.lastModified?.utf8.count ?? 0)
    if validatorBytes > maxValidatorBytes, state.etag != saved.etag || state.lastModified != saved.lastModified {
      return false
    }
    var same = state
    if state.lastSuccess != saved.lastSuccess {
      // Only a success after a success: its items are those of the last one, or the state changed.
      guard let now = state.lastSuccess, let before = saved.lastSuccess, state.lastSuccessBefore == before
      else { return false }
      for key in same.items.keys where same.items[key]?.lastSeen == now {
        same.items[key]?.lastSeen = before
      }
    }
    same.lastAttempt = saved.lastAttempt
    same.lastSuccess = saved.lastSuccess
    same.lastSuccessBefore = saved.lastSuccessBefore
    same.etag = saved.etag
    same.lastModified = saved.lastModified
    return same == saved
  }

  /// Records `times` (by state file name) in the directory's file, beside what it holds for other feeds;
  /// entries whose state file is gone are dropped, so the file never outgrows the directory.
  public static func record(_ times: [String: Times], directory: String) throws(StateError) {
    guard !times.isEmpty else { return }
    let written = lock.withLock { cache in
      var entries = read(directory, cache: &cache)
      // Validators recorded for a feed are recorded again, as they are now: its state as loaded had them
      // from here, so its file's are older. (Where the file is newer they are the file's, and harmless.)
      entries.merge(times) { old, new in
        var merged = new
        if merged.validators == nil, old.validators != nil { merged.validators = merged.current }
        return merged
      }
      entries = entries.filter { name, _ in times[name] != nil || access(directory + "/" + name, F_OK) == 0 }
      var json = PrettyJSON(capacity: 64 + entries.count * 160)
      json.object { json in
        json.key("feeds")
        json.object { json in
          for (name, times) in entries.sorted(by: { $0.key < $1.key }) {
            json.key(name)
            json.object { json in
              json.member("last_attempt", times.lastAttempt)
              json.member("last_success", times.lastSuccess)
              json.member("last_success_before", times.lastSuccessBefore)
              if let validators = times.validators {
                json.key("validators")
                json.object { json in
                  json.member("etag", validators.etag)
                  json.member("last_modified", validators.lastModified)
                }
              }
            }
          }
        }
        json.member("version", 1)
      }
      let path = directory + "/" + fileName
      let result = Result { () throws(StateError) in
        try StateStore.writeAtomically(Data(json.document()), to: path, directory: directory, syncDirectory: false)
      }
      cache[directory] = Cached(stamp: stamp(path), entries: entries)
      return result
    }
    try written.get()
  }

  /// Lays the times recorded for the state file `name` over `state`, when they are newer.
  static func overlay(_ state: inout FeedState, name: String, directory: String) {
    let times = lock.withLock { cache in read(directory, cache: &cache)[name] }
    times?.laid(over: &state)
  }

  private struct Cached {
    var stamp: [Int]
    var entries: [String: Times]
  }

  /// The file's contents by directory, read again only when the file changed (its inode, size or time).
  private static let lock = Locked([String: Cached]())

  private static func stamp(_ path: String) -> [Int] {
    var info = stat()
    guard lstat(path, &info) == 0 else { return [] }
    return [Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
  }

  private static func read(_ directory: String, cache: inout [String: Cached]) -> [String: Times] {
    let path = directory + "/" + fileName
    let now = stamp(path)
    if let cached = cache[directory], cached.stamp == now { return cached.entries }
    var entries: [String: Times] = [:]
    if !now.isEmpty,
      case .read(let data) = ChunkedFile.readRegularFile(path, maxBytes: StateStore.maxFileBytes, followSymlinks: false)
    {
      // A corrupt file is as good as none: it holds nothing but times, and the next pass rewrites it.
      entries = (try? JSONReader.read(data) { json in try decode(&json) }) ?? [:]
    }
    cache[directory] = Cached(stamp: now, entries: entries)
    return entries
  }

  private static func decode(_ json: inout JSONReader) throws -> [String: Times] {
    var entries: [String: Times] = [:]
    try json.object { json, key in
      guard key == "feeds" else { return try json.skipValue() }
      try json.object { json, name in
        var times = Times()
        try json.object { json, key in
          switch key {
          case "last_attempt": times.lastAttempt = try json.optional { try $0.date() }
          case "last_success": times.lastSuccess = try json.optional { try $0.date() }
          case "last_success_before": times.lastSuccessBefore = try json.optional { try $0.date() }
          case "validators":
            var validators = Validators()
            try json.object { json, key in
              switch key {
              case "etag": validators.etag = try json.optional { try $0.string() }
              case "last_modified": validators.lastModified = try json.optional { try $0.string() }
              default: try json.skipValue()
              }
            }
            times.validators = validators
          default: try json.skipValue()
          }
        }
        entries[name] = times
      }
    }
    return entries
  }
}
