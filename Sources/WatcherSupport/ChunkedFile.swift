// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

#if canImport(Glibc)
  import Glibc
#endif

/// A regular file read in chunks with `read(2)`, closed when released.
///
/// Only regular files are opened: a FIFO would block the reader forever, and a device or a directory is
/// never a feed, a config or a state file. The open never blocks (`O_NONBLOCK`), and the type is checked on
/// the open descriptor (`fstat`), so nothing can be swapped in between.
package final class ChunkedFile {
  private let fd: Int32
  private let path: String
  /// The file's size when it was opened.
  package let size: Int

  /// Opens `path` for reading.
  ///
  /// Throws the POSIX error with the path, or says what the path is when it is not a regular file. With
  /// `followSymlinks: false` a symlink is refused too.
  package init(path: String, followSymlinks: Bool = true) throws {
    self.path = path
    let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followSymlinks ? 0 : O_NOFOLLOW)
    let opened = open(path, flags)
    guard opened >= 0 else {
      let code = errno
      if code == ELOOP, !followSymlinks {
        throw FileError(path: path, code: code, reason: "it is a symbolic link")
      }
      throw Self.error(code, path: path)
    }
    var info = stat()
    guard fstat(opened, &info) == 0 else {
      let code = errno
      close(opened)
      throw Self.error(code, path: path)
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      close(opened)
      throw FileError(path: path, code: EINVAL, reason: Self.kind(info.st_mode))
    }
    _ = fcntl(opened, F_SETFL, fcntl(opened, F_GETFL) & ~O_NONBLOCK)
    fd = opened
    size = Int(info.st_size)
  }

  deinit { close(fd) }

  /// "it is a directory, not a file", and the like.
  package static func kind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFDIR: return "it is a directory, not a file"
    case S_IFIFO: return "it is a FIFO (named pipe), not a regular file"
    case S_IFCHR: return "it is a character device, not a regular file"
    case S_IFBLK: return "it is a block device, not a regular file"
    case S_IFSOCK: return "it is a socket, not a regular file"
    default: return "it is not a regular file"
    }
  }

  /// What reading a whole small file came to.
  package enum WholeFile {
    /// There is no file at the path.
    case missing
    /// It exists but cannot be read; the reason.
    case failed(String)
    /// Its bytes.
    case read(Data)
  }

  /// Reads a whole regular file of at most `maxBytes`.
  package static func readRegularFile(_ path: String, maxBytes: Int, followSymlinks: Bool = true) -> WholeFile {
    do {
      let file = try ChunkedFile(path: path, followSymlinks: followSymlinks)
      guard file.size <= maxBytes else {
        return .failed("it is \(ByteCount.format(file.size)), more than the limit of \(ByteCount.format(maxBytes))")
      }
      // One read of the size fstat gave (plus one byte, to see a file that grew), more only if it did.
      let expected = min(file.size, maxBytes) + 1
      var data = Data(try file.read(upTo: expected))
      if data.count < expected { return .read(data) }  // a short read is the end of the file
      while data.count <= maxBytes {
        let chunk = try file.read(upTo: 64 * 1_024)
        if chunk.isEmpty { return .read(data) }
        data.append(contentsOf: chunk)
      }
      return .failed("it is more than \(ByteCount.format(maxBytes))")
    } catch {
      if let error = error as? FileError, error.code == ENOENT { return .missing }
      return .failed(error.message)
    }
  }

  /// Up to `count` bytes: fewer only at the end of the file, none at the end.
  ///
  /// The corresponding C function is `read`.
  package func read(upTo count: Int) throws -> [UInt8] {
    guard count > 0 else { return [] }
    // Read straight into the array's storage: zeroing it first cost as much as a copy of every byte read.
    return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      guard let base = buffer.baseAddress else { return }
      initialized = try read(into: base, count: count)
    }
  }

  /// Back to the file's first byte.
  package func rewind() throws {
    guard lseek(fd, 0, SEEK_SET) == 0 else { throw Self.error(errno, path: path) }
  }

  /// Reads up to `count` bytes to `base`: how many, fewer only at the end of the file.
  package func read(into base: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
    var done = 0
    while done < count {
      let n = Glibc.read(fd, base + done, count - done)
      if n < 0 {
        if errno == EINTR { continue }
        throw Self.error(errno, path: path)
      }
      if n == 0 { break }
      done += n
    }
    return done
  }

  private static func error(_ code: Int32, path: String) -> any Error {
    FileError(path: path, code: code, reason: String(cString: strerror(code)))
  }
}

/// Reads small whole files (an OPML export, a config) the safe way: regular files only, size-capped.
public enum RegularFile {
  /// Why a file could not be read, in words.
  public struct ReadError: Error, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// The bytes of the regular file at `path`, at most `maxBytes`.
  public static func read(_ path: String, maxBytes: Int) -> Result<Data, ReadError> {
    switch ChunkedFile.readRegularFile(path, maxBytes: maxBytes) {
    case .missing: return .failure(ReadError(description: "No such file or directory"))
    case .failed(let reason): return .failure(ReadError(description: reason))
    case .read(let data): return .success(data)
    }
  }
}
