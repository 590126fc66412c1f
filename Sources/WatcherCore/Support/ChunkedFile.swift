// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A file read in chunks with `read(2)`, closed when released.
final class ChunkedFile {
  private let fd: Int32
  private let path: String

  /// Opens `path` for reading; throws the POSIX error with the path.
  init(path: String) throws {
    self.path = path
    fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw Self.error(errno, path: path) }
  }

  deinit { close(fd) }

  /// Up to `count` bytes (fewer only at the end of the file.
  ///
  /// empty at the end). The corresponding C function is `read`.
  func read(upTo count: Int) throws -> [UInt8] {
    guard count > 0 else { return [] }
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let n = bytes.withUnsafeMutableBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return Glibc.read(fd, base + filled, count - filled)
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw Self.error(errno, path: path)
      }
      if n == 0 { break }
      filled += n
    }
    bytes.removeLast(count - filled)
    return bytes
  }

  private static func error(_ code: Int32, path: String) -> any Error {
    NSError(
      domain: NSPOSIXErrorDomain, code: Int(code),
      userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: String(cString: strerror(code))])
  }
}
