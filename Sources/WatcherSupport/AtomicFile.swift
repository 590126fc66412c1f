// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

#if canImport(Glibc)
  import Glibc
#endif

/// Why a file could not be written.
public struct AtomicFileError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file.
  public var path: String
  /// The system's reason.
  public var reason: String

  public var description: String { "cannot write \(path): \(reason)" }
}

/// Durable, atomic file writes: the state files, the config editor's output.
///
/// `Data.write(options: .atomic)` fsyncs the file but not its directory (so the rename may not survive a
/// power loss) and resets the mode to 0644; this does both right.
public enum AtomicFile {
  /// Writes `data` to `path` in `directory`: a temporary file (mkstemp, `mode`, default 0600), the whole
  /// write, fsync, rename over the old file, fsync of the directory (unless `syncDirectory` is false).
  ///
  /// A crash leaves the old file or the new one, never a torn one; the temporary file is removed on
  /// failure. The corresponding C functions are `mkstemp`, `write`, `fsync`, `rename` and `open`.
  public static func write(
    _ data: Data, to path: String, directory: String, syncDirectory: Bool = true, mode: mode_t = 0o600
  ) throws(AtomicFileError) {
    let name = FilePath.name(path)
    var template = Array("\(directory)/.\(name).XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
      guard let base = buffer.baseAddress else { return -1 }
      return mkstemp(base)
    }
    guard fd >= 0 else { throw AtomicFileError(path: path, reason: String(cString: strerror(errno))) }
    let temp = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var ok = false
    defer {
      if !ok { unlink(temp) }
    }
    fchmod(fd, mode)
    let written = data.withUnsafeBytes { raw -> Bool in
      guard var pointer = raw.baseAddress else { return true }
      var left = raw.count
      while left > 0 {
        let n = Glibc.write(fd, pointer, left)
        if n < 0 {
          if errno == EINTR { continue }
          return false
        }
        pointer += n
        left -= n
      }
      return true
    }
    let synced = written && fsync(fd) == 0
    let error = errno
    close(fd)
    guard synced else { throw AtomicFileError(path: path, reason: String(cString: strerror(error))) }
    guard rename(temp, path) == 0 else { throw AtomicFileError(path: path, reason: String(cString: strerror(errno))) }
    ok = true
    guard syncDirectory else { return }
    let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if dirFD >= 0 {
      fsync(dirFD)
      close(dirFD)
    }
  }
}
