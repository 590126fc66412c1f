// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Why state could not be read, written or locked.
public enum StateError: Error, Sendable, Equatable {
  /// Another watcher holds the state directory's lock.
  case locked(path: String)
  /// The state directory cannot be created or opened; the payload is the path and the system's reason.
  case unusable(path: String, reason: String)
  /// A state file cannot be written.
  case writeFailed(path: String, reason: String)
  /// A state file exists but cannot be read (permissions, not a regular file); it is left alone.
  case unreadable(path: String, reason: String)
}

extension StateError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .locked(let path):
      return "another watcher (a poll or the daemon) is using \(path); try again when it is done"
    case .unusable(let path, let reason): return "cannot use the state directory \(path): \(reason)"
    case .writeFailed(let path, let reason): return "cannot write \(path): \(reason)"
    case .unreadable(let path, let reason):
      return "cannot read the state file \(path): \(reason); the feed is not polled until it can be read"
    }
  }
}

/// One JSON file per feed under the state directory, named from a stable hash of the feed URL.
///
/// Writes are durable and atomic (`AtomicFile`): a temporary file from `mkstemp` (mode 0600), a full
/// write, `fsync`, `rename` over the old file, then `fsync` of the directory, so a crash leaves either the
/// old or the new file, never a torn one. A file that cannot be read is moved aside as
/// `<name>.corrupt-<time>` and reported; the feed then starts again as first-polled (silent).
public final class StateStore {
  /// The state directory.
  public let directory: String
  /// The most bytes each file is saved with (the oldest entries dropped first, and said so).
  public let budget: Budget
  /// The journal's size and line count when this store last read or wrote it: a pass appends once per
  /// feed, and recounting a journal of 10,000 lines each time cost more than the hooks it records.
  let journalCount = Locked<(size: Int, lines: Int)?>(nil)
  private var lockDescriptor: Int32 = -1

  /// Opens (and creates, mode 0700) the state directory.
  public init(directory: String, budget: Budget = Budget()) throws(StateError) {
    self.directory = directory
    self.budget = budget
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw .unusable(path: directory, reason: error.message)
    }
    // State files hold hook commands still to retry: nobody else may be able to write them.
    if let problem = FileSafety.problem(directory, groupMayWrite: false) {
      throw .unusable(path: directory, reason: problem)
    }
  }

  deinit { unlock() }

  /// Takes the directory's lock (`flock` on `<dir>/lock`), or throws `.locked` at once when another process holds it.
  ///
  /// The lock is released on `unlock`, on deinit, or when the process dies.
  public func lock() throws(StateError) {
    let path = directory + "/lock"
    // O_NOFOLLOW: a symlink planted at <dir>/lock must not make watcher create or open another file.
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw .unusable(path: path, reason: String(cString: strerror(errno))) }
    if flock(fd, LOCK_EX | LOCK_NB) != 0 {
      close(fd)
      throw .locked(path: directory)
    }
    lockDescriptor = fd
  }

  /// Why the lock this store holds no longer guards its directory, or `nil` while it does.
  ///
  /// The directory, or its lock file, was removed or replaced. Without its lock another watcher could take
  /// the directory, and without its directory nothing can be saved.
  public func lockProblem() -> String? {
    guard lockDescriptor >= 0 else { return nil }
    var held = stat()
    var there = stat()
    guard fstat(lockDescriptor, &held) == 0 else { return nil }
    guard lstat(directory + "/lock", &there) == 0 else {
      return access(directory, F_OK) == 0 ? "its lock file was removed" : "it was removed"
    }
    return held.st_ino == there.st_ino && held.st_dev == there.st_dev ? nil : "it was replaced"
  }

  /// Releases the lock.
  public func unlock() {
    if lockDescriptor >= 0 {
      close(lockDescriptor)
      lockDescriptor = -1
    }
  }

  /// The file name for a feed URL: `feed-<16 hex digits>.json`.
  public static func fileName(for url: String) -> String { "feed-\(StableHash.hex(of: url)).json" }

  /// The path of a feed's state file.
  public func path(for url: String) -> String { directory + "/" + Self.fileName(for: url) }

  /// A feed's state as read from its file.
  public struct Loaded: Sendable {
    /// The state (a fresh one when there was no file, or when the file was corrupt).
    public var state: FeedState
    /// Set when the file was corrupt: it was moved aside (unless read-only) and the feed starts again,
    /// silently whatever `first_poll` says, so that items already handled are not acted on again.
    public var restarted: String?
    /// The file as it was read, when its known items were not read and the caller asked to keep it
    /// (`keepingBytes`), so that they can be read from memory later (`whole(from:…)`), not from the file.
    public var bytes: Data?
  }

  /// A feed's state: a fresh one when there is no file, a fresh one marked `restarted` when the file is
  /// corrupt (moved aside as `<name>.corrupt-<time>` unless `readOnly`).
  ///
  /// Throws `.unreadable` when the file exists but cannot be read (no permission, a FIFO, a device, a
  /// directory, a symlink): such a file is never replaced, and the feed is not polled.
  public func load(url: String, readOnly: Bool = false, items: Bool = true) throws(StateError) -> Loaded {
    try Self.load(url: url, directory: directory, readOnly: readOnly, items: items)
  }

  /// `load` for the state directory `directory`, without a store: it touches only the feed's own file, so
  /// the states of many feeds can be read at once, on several threads.
  ///
  /// With `items: false` the known items are not read (`FeedState.itemsSkipped`): the rest is what a pass
  /// needs to schedule the feed, at a fraction of the cost; such a state cannot be saved. `keepingBytes`
  /// then keeps the file's bytes in `Loaded.bytes`, for a caller that will want the items soon.
  public static func load(
    url: String, directory: String, readOnly: Bool = false, items: Bool = true, keepingBytes: Bool = false
  ) throws(StateError) -> Loaded {
    let path = directory + "/" + fileName(for: url)
    let data: Data
    switch ChunkedFile.readRegularFile(path, maxBytes: Self.maxFileBytes, followSymlinks: false) {
    case .missing: return Loaded(state: FeedState(url: url))
    case .failed(let reason): throw .unreadable(path: path, reason: reason)
    case .read(let bytes): data = bytes
    }
    var loaded = decoded(data, path: path, url: url, directory: directory, readOnly: readOnly, items: items)
    if !items, keepingBytes, loaded.restarted == nil { loaded.bytes = data }
    return loaded
  }

  /// `load` with the items, from the bytes a `load` without them kept (`Loaded.bytes`): what a load would
  /// read from the file, which nothing else writes meanwhile (the state directory has one process).
  public static func whole(from bytes: Data, url: String, directory: String, readOnly: Bool = false) -> Loaded {
    decoded(bytes, path: directory + "/" + fileName(for: url), url: url, directory: directory, readOnly: readOnly)
  }

  /// The state `data` holds, with the newer poll times laid over it; a fresh one when it cannot be read (the
  /// file moved aside unless `readOnly`).
  private static func decoded(
    _ data: Data, path: String, url: String, directory: String, readOnly: Bool, items: Bool = true
  ) -> Loaded {
    do {
      var state = try decode(data, items: items)
      state.url = url
      PollTimes.overlay(&state, name: fileName(for: url), directory: directory)
      return Loaded(state: state)
    } catch {
      let reason = describe(error)
      guard !readOnly else {
        return Loaded(state: FeedState(url: url), restarted: "state file \(path) is unreadable (\(reason))")
      }
      let aside = Self.asidePath(path)
      let moved = rename(path, aside) == 0
      let warning =
        "state file \(path) is unreadable (\(reason)); "
        + (moved ? "moved it to \(aside) and " : "could not move it aside; ")
        + "starting the feed again as first-polled, without notifying"
      return Loaded(state: FeedState(url: url), restarted: warning)
    }
  }

  /// A state file's contents, checked (a newer version is refused) and with its numbers in safe ranges.
  package static func decode(_ data: Data, items: Bool = true) throws -> FeedState {
    var state = try JSONReader.read(data) { try FeedState(reading: &$0, items: items) }
    guard state.version <= FeedState.currentVersion else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: [], debugDescription: "version \(state.version) is newer than this watcher"))
    }
    state.sanitize()
    return state
  }

  /// The largest state file read (a feed of 10,000 items takes about 1 MB); every budget is well under it, so
  /// that no save writes a file the loader refuses.
  package static let maxFileBytes = 256 << 20

  /// The most bytes a file of the state directory is saved with.
  ///
  /// What each entry keeps of an item is cut first (`FeedItem.stored`); past the budget the oldest entries
  /// are dropped, journaled and reported.
  public struct Budget: Sendable {
    /// `notifications.json` and `digests.json`, which every feed shares.
    public var sharedFile: Int
    /// One feed's state file (its pending actions are what can grow).
    public var feedFile: Int

    public init(sharedFile: Int = 32 << 20, feedFile: Int = 64 << 20) {
      self.sharedFile = min(sharedFile, StateStore.maxFileBytes / 2)
      self.feedFile = min(feedFile, StateStore.maxFileBytes / 2)
    }
  }

  /// Whether the directory can be written (a poll records nothing, and so acts on nothing, until it can).
  ///
  /// Beyond permissions (which root passes, and a read-only mount fails), it writes and syncs a small
  /// probe file and removes it: a full disk shows only when a write fails.
  public func writeProblem() -> String? {
    guard access(directory, W_OK) == 0 else { return String(cString: strerror(errno)) }
    var template = Array((directory + "/.write-probe-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
    guard fd >= 0 else { return String(cString: strerror(errno)) }
    let path = String(cString: template)
    defer {
      close(fd)
      unlink(path)
    }
    // A page: what one state file needs at the least.
    let page = [UInt8](repeating: 0x20, count: 4_096)
    let written = page.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    if written != page.count { return written < 0 ? String(cString: strerror(errno)) : "the disk is full" }
    return fsync(fd) == 0 ? nil : String(cString: strerror(errno))
  }

  /// Writes a feed's state durably and atomically.
  ///
  /// With `syncDirectory: false` the directory's fsync is left to one `syncDirectory()` call after a batch of saves
  /// (the poller's pass): every file is still whole and synced, and a crash can at worst roll a feed back to its
  /// previous state, which repeats actions but never loses one.
  public func save(_ state: FeedState, syncDirectory: Bool = true) throws(StateError) {
    try Self.save(state, directory: directory, syncDirectory: syncDirectory)
  }

  /// `save` into the state directory `directory`, without a store: it touches only the feed's own file, so
  /// the states of many feeds can be written at once, on several threads.
  public static func save(_ state: FeedState, directory: String, syncDirectory: Bool = true) throws(StateError) {
    let path = directory + "/" + fileName(for: state.url)
    // Saving a state read without its items would forget them, and every item would be new again.
    guard !state.itemsSkipped else {
      throw .writeFailed(path: path, reason: "only part of the state was read; nothing was written")
    }
    try writeAtomically(Data(state.pretty), to: path, directory: directory, syncDirectory: syncDirectory)
  }

  /// fsyncs the state directory, making every rename before it durable.
  public func syncDirectory() {
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd >= 0 {
      fsync(fd)
      close(fd)
    }
  }

  /// Every readable state file in the directory.
  public func allStates() -> [FeedState] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasPrefix("feed-") && $0.hasSuffix(".json") }.sorted().compactMap { name in
      guard case .read(let data) = ChunkedFile.readRegularFile(directory + "/" + name, maxBytes: Self.maxFileBytes)
      else { return nil }
      return try? Self.decode(data)
    }
  }

  /// Writes a file of the state directory durably and atomically (`AtomicFile`), as a `StateError`.
  package static func writeAtomically(
    _ data: Data, to path: String, directory: String, syncDirectory: Bool = true
  ) throws(StateError) {
    // Never a file the reader would refuse (every budget is well under this: a backstop).
    guard data.count <= maxFileBytes else {
      throw .writeFailed(
        path: path,
        reason: "it would be \(ByteCount.format(data.count)), more than the \(ByteCount.format(maxFileBytes)) "
          + "a state file may hold; the file was left as it was")
    }
    do {
      try AtomicFile.write(data, to: path, directory: directory, syncDirectory: syncDirectory)
    } catch {
      throw .writeFailed(path: error.path, reason: error.reason)
    }
  }

  package static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let container = try decoder.singleValueContainer()
      let text = try container.decode(String.self)
      guard let date = DateParser.parse(text) else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a date: \(text)")
      }
      return date
    }
    return decoder
  }()

  private static func describe(_ error: any Error) -> String {
    switch error {
    case let failure as JSONReader.Failure: return failure.description
    case DecodingError.dataCorrupted(let context): return context.debugDescription
    case DecodingError.keyNotFound(let key, _): return "missing '\(key.stringValue)'"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      return "bad value at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
    default: return "\(error)"
    }
  }
}

extension StateStore {
  /// Where a corrupt file is moved aside: `<path>.corrupt-<time>`.
  static func asidePath(_ path: String) -> String {
    path + ".corrupt-" + ISODate.format(Date()).replacing(":", with: "")
  }

  /// A file the feeds share (`notifications.json`, `digests.json`), read with `parse`: `nil` when it is
  /// missing or corrupt (a corrupt one is moved aside unless `readOnly`); a file that cannot be read throws
  /// and is left alone.
  package func readShared<T>(_ path: String, readOnly: Bool, _ parse: (inout JSONReader) throws -> T) throws(StateError)
    -> T?
  {
    let data: Data
    switch ChunkedFile.readRegularFile(path, maxBytes: Self.maxFileBytes, followSymlinks: false) {
    case .missing: return nil
    case .failed(let reason): throw .unreadable(path: path, reason: reason)
    case .read(let bytes): data = bytes
    }
    do {
      return try JSONReader.read(data, parse)
    } catch {
      if !readOnly { _ = rename(path, Self.asidePath(path)) }
      return nil
    }
  }
}
