// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Tells the daemon when its config file may have changed: inotify on the directory that holds it (and on
/// the directory of its target, when it is a symlink), so an editor that writes a new file and renames it
/// over the old one is seen as surely as one that writes in place.
///
/// Each event naming the file calls `changed` (the daemon debounces: a save is often several events).
final class ConfigWatcher: @unchecked Sendable {
  private let fd: Int32

  /// Starts watching `path`, or returns nil (said by the caller) when inotify is not available.
  init?(path: String, changed: @escaping @Sendable () -> Void) {
    let fd = inotify_init1(Int32(IN_CLOEXEC))
    guard fd >= 0 else { return nil }
    self.fd = fd
    var watched: [Int32: String] = [:]
    var places = [path]
    let resolved = DaemonSocket.canonical(path)
    if resolved != path { places.append(resolved) }
    let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)
    for place in places {
      let directory = FilePath.directory(place)
      let descriptor = inotify_add_watch(fd, directory.isEmpty ? "." : directory, mask)
      if descriptor >= 0 { watched[descriptor] = FilePath.name(place) }
    }
    guard !watched.isEmpty else {
      close(fd)
      return nil
    }
    let names = watched
    Threads.spawn {
      var buffer = [UInt8](repeating: 0, count: 16_384)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return }
        // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[len]; }
        var offset = 0
        var relevant = false
        while offset + 16 <= count {
          let (descriptor, length) = buffer.withUnsafeBytes { raw in
            (
              raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
              Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            )
          }
          let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
          if let name = names[descriptor], String(decoding: nameBytes, as: UTF8.self) == name { relevant = true }
          offset += 16 + length
        }
        if relevant { changed() }
      }
    }
  }

  deinit { close(fd) }
}
