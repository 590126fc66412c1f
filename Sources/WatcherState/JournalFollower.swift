// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

#if canImport(Glibc)
  import Glibc
#endif

/// Follows the journal as any poll or the daemon writes it (`watcher log --follow`): each call to `next()`
/// returns the entries appended since the last, across rotation (the file renamed aside and a new one
/// started), never a torn line (a line is returned once its newline is written).
public final class JournalFollower {
  private let path: String
  private var descriptor: Int32 = -1
  private var inode: ino_t = 0
  private var partial: [UInt8] = []
  /// The longest line kept while waiting for its end (a journal line is at most about 30 KB).
  private static let maxLine = 1 << 20

  /// Starts at the journal's end (`fromStart`: at its beginning), or at its creation when there is none.
  public init(path: String, fromStart: Bool = false) {
    self.path = path
    open(seekToEnd: !fromStart)
  }

  deinit { if descriptor >= 0 { close(descriptor) } }

  /// The entries written since the last call (or since it started).
  public func next() -> [JournalEntry] {
    var bytes = readAvailable()
    // Rotated: the file at the path is another one. What the old one still had is read, then the new one
    // from its start.
    var info = stat()
    if lstat(path, &info) == 0, descriptor < 0 || info.st_ino != inode {
      if descriptor >= 0 { close(descriptor) }
      descriptor = -1
      open(seekToEnd: false)
      bytes += readAvailable()
    }
    return lines(bytes)
  }

  private func open(seekToEnd: Bool) {
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard fd >= 0 else { return }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      return
    }
    if seekToEnd { lseek(fd, 0, SEEK_END) }
    descriptor = fd
    inode = info.st_ino
  }

  private func readAvailable() -> [UInt8] {
    guard descriptor >= 0 else { return [] }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      out += buffer.prefix(count)
    }
    return out
  }

  private func lines(_ bytes: [UInt8]) -> [JournalEntry] {
    partial += bytes
    guard let last = partial.lastIndex(of: 10) else {
      if partial.count > Self.maxLine { partial = [] }
      return []
    }
    let complete = partial[..<last]
    partial = Array(partial[(last + 1)...])
    return String(decoding: complete, as: UTF8.self).split(separator: "\n").compactMap { JournalEntry(line: $0) }
  }
}
