// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

// What the program needs of Foundation beyond FoundationEssentials, in a few lines each: the full
// Foundation brings ICU's 30 MB of data and its start-up cost into every run (docs/benchmarks.md, "Size
// and start-up"), for a handful of string and thread helpers.

/// A pthread mutex (which ThreadSanitizer intercepts, unlike `Synchronization.Mutex`; see `Locked`).
public final class Lock: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

  public init() { pthread_mutex_init(mutex, nil) }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  public func lock() { pthread_mutex_lock(mutex) }
  public func unlock() { pthread_mutex_unlock(mutex) }
  /// Takes the lock when it is free; false (without waiting) when another thread holds it.
  public func `try`() -> Bool { pthread_mutex_trylock(mutex) == 0 }

  /// Runs `body` holding the lock.
  public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    lock()
    defer { unlock() }
    return try body()
  }
}

/// A mutex with a condition variable: `wait()` releases the lock until `signal()` or `broadcast()`.
public final class ConditionLock: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

  public init() {
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(cond, nil)
  }

  deinit {
    pthread_cond_destroy(cond)
    pthread_mutex_destroy(mutex)
    cond.deallocate()
    mutex.deallocate()
  }

  public func lock() { pthread_mutex_lock(mutex) }
  public func unlock() { pthread_mutex_unlock(mutex) }
  /// Waits for a signal; the lock must be held, and is held again on return.
  public func wait() { pthread_cond_wait(cond, mutex) }
  public func signal() { pthread_cond_signal(cond) }
  public func broadcast() { pthread_cond_broadcast(cond) }
}

/// Plain detached threads.
public enum Threads {
  private final class Box {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
  }

  /// Runs `body` on a new detached thread with `stackSize` bytes of stack (the system's default when 0).
  ///
  /// The corresponding C function is `pthread_create`.
  public static func spawn(stackSize: Int = 0, _ body: @escaping @Sendable () -> Void) {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    if stackSize > 0 { pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN))) }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let made = pthread_create(
      &thread, &attributes,
      { raw in
        guard let raw else { return nil }
        Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
        return nil
      }, box)
    precondition(made == 0, "pthread_create: \(String(cString: strerror(made)))")
  }
}

/// Path arithmetic on strings, as `NSString`'s path methods do it.
public enum FilePath {
  /// The last component: "c" for "/a/b/c" and "/a/b/c/"; "/" for "/".
  public static func name(_ path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    if trimmed == "/" { return "/" }
    if let slash = trimmed.lastIndex(of: "/") { return String(trimmed[trimmed.index(after: slash)...]) }
    return String(trimmed)
  }

  /// Everything before the last component: "/a/b" for "/a/b/c", "/" for "/a", "" for "a".
  public static func directory(_ path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return "" }
    var parent = trimmed[..<slash]
    while parent.count > 1, parent.hasSuffix("/") { parent = parent.dropLast() }
    return parent.isEmpty ? "/" : String(parent)
  }

  /// `component` under `directory`, with one slash between.
  public static func join(_ directory: String, _ component: String) -> String {
    if directory.isEmpty { return component }
    return directory.hasSuffix("/") ? directory + component : directory + "/" + component
  }
}

/// The characters `trimming` removes.
public enum TrimmedCharacters: Sendable {
  /// Spaces and tabs (Unicode white space that does not break a line).
  case spaces
  /// White space and line breaks.
  case spacesAndNewlines
  /// Line breaks only.
  case newlines
  /// The characters of a string.
  case these(String)

  func contains(_ character: Character) -> Bool {
    switch self {
    case .spaces: character.isWhitespace && !character.isNewline
    case .spacesAndNewlines: character.isWhitespace
    case .newlines: character.isNewline
    case .these(let set): set.contains(character)
    }
  }
}

extension StringProtocol {
  /// The text without the given characters at either end (white space and line breaks by default).
  public func trimming(_ set: TrimmedCharacters = .spacesAndNewlines) -> String {
    guard let first = firstIndex(where: { !set.contains($0) }) else { return "" }
    let last = lastIndex(where: { !set.contains($0) }) ?? first
    return String(self[first...last])
  }
}

extension StringProtocol {
  /// The text cut or padded with spaces to `width` characters (for columns).
  public func padded(to width: Int) -> String {
    let count = count
    if count >= width { return String(prefix(width)) }
    return String(self) + String(repeating: " ", count: width - count)
  }

  /// What follows the first `needle` (ASCII, matched without regard to ASCII case), or nil.
  public func after(caseInsensitive needle: String) -> SubSequence? {
    let wanted = Array(needle.lowercased().utf8)
    guard !wanted.isEmpty else { return self[...] }
    let bytes = utf8
    var start = bytes.startIndex
    while start != bytes.endIndex {
      var here = start
      var matched = 0
      while matched < wanted.count, here != bytes.endIndex {
        var byte = bytes[here]
        if byte >= 0x41, byte <= 0x5A { byte += 0x20 }
        guard byte == wanted[matched] else { break }
        matched += 1
        here = bytes.index(after: here)
      }
      if matched == wanted.count { return self[here...] }
      start = bytes.index(after: start)
    }
    return nil
  }
}

extension String.UTF8View {
  /// Whether the text holds `needle`'s bytes (a plain byte search).
  public func contains(bytes needle: String) -> Bool {
    var needle = needle
    return needle.withUTF8 { wanted in
      withContiguousStorageIfAvailable {
        ByteSearch.contains(UnsafeRawBufferPointer($0), UnsafeRawBufferPointer(wanted))
      }
        ?? Array(self).withUnsafeBytes { ByteSearch.contains($0, UnsafeRawBufferPointer(wanted)) }
    }
  }
}

/// A plain byte search: memchr to each candidate first byte, then memcmp (Glibc's module does not export
/// memmem).
enum ByteSearch {
  static func contains(_ text: UnsafeRawBufferPointer, _ wanted: UnsafeRawBufferPointer) -> Bool {
    guard let first = wanted.first else { return true }
    guard let base = text.baseAddress, let want = wanted.baseAddress, text.count >= wanted.count else { return false }
    var offset = 0
    let last = text.count - wanted.count
    while offset <= last, let hit = memchr(base + offset, Int32(first), last - offset + 1) {
      offset = base.distance(to: UnsafeRawPointer(hit))
      if memcmp(base + offset, want, wanted.count) == 0 { return true }
      offset += 1
    }
    return false
  }
}

extension Error {
  /// What went wrong, in words: the system's reason for a file error ("No such file or directory").
  public var message: String {
    if let error = self as? CocoaError {
      if let posix = error.underlying as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
      switch error.code {
      case .fileReadNoSuchFile, .fileNoSuchFile: return "No such file or directory"
      case .fileReadNoPermission, .fileWriteNoPermission: return "Permission denied"
      case .fileReadCorruptFile: return "the data is not valid"
      default: return "file error \(error.code.rawValue)"
      }
    }
    if let error = self as? POSIXError { return String(cString: strerror(error.code.rawValue)) }
    if let error = self as? any CustomStringConvertible { return error.description }
    return String(describing: self)
  }
}

/// A failed system call on a file: the path, the errno and what it means.
public struct FileError: Error, CustomStringConvertible, Sendable {
  public let path: String
  public let code: Int32
  public let reason: String

  public init(path: String, code: Int32, reason: String? = nil) {
    self.path = path
    self.code = code
    self.reason = reason ?? String(cString: strerror(code))
  }

  public var description: String { reason }
}

/// Bytes with their ASCII letters lowered, for case-insensitive searches in markup without decoding it.
///
/// A String search compares characters (grapheme clusters), which costs about a hundred times a byte
/// search: on 64 KB of a feed, milliseconds.
public struct LowercasedASCII: Sendable {
  public let bytes: [UInt8]

  public init(_ data: Data) {
    bytes = data.withUnsafeBytes { raw in
      [UInt8](unsafeUninitializedCapacity: raw.count) { lowered, count in
        for index in 0..<raw.count {
          let byte = raw[index]
          lowered[index] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
        }
        count = raw.count
      }
    }
  }

  /// Whether the bytes hold `needle` (give it in lower case).
  public func contains(_ needle: String) -> Bool {
    var needle = needle
    return needle.withUTF8 { wanted in bytes.withUnsafeBytes { ByteSearch.contains($0, UnsafeRawBufferPointer(wanted)) }
    }
  }
}
