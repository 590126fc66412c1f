// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
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
      let directory = (place as NSString).deletingLastPathComponent
      let descriptor = inotify_add_watch(fd, directory.isEmpty ? "." : directory, mask)
      if descriptor >= 0 { watched[descriptor] = (place as NSString).lastPathComponent }
    }
    guard !watched.isEmpty else {
      close(fd)
      return nil
    }
    let names = watched
    Thread.detachNewThread {
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

/// systemd's notify protocol, spoken directly.
///
/// One datagram to `$NOTIFY_SOCKET` per message (`READY=1`, `STATUS=…`, `RELOADING=1`, `WATCHDOG=1`).
/// Nothing happens when the daemon was not started by systemd.
struct SystemdNotifier: Sendable {
  /// The socket's address (a path, or `@name` for the abstract namespace), nil without systemd.
  let socketPath: String?
  /// How often to ping the watchdog (half of `WATCHDOG_USEC`), nil without one.
  let watchdogInterval: TimeInterval?

  init(environment: [String: String]) {
    let path = environment["NOTIFY_SOCKET"].flatMap { $0.hasPrefix("/") || $0.hasPrefix("@") ? $0 : nil }
    socketPath = path
    let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
    if path != nil, forUs, let micro = environment["WATCHDOG_USEC"].flatMap(Double.init), micro > 0 {
      watchdogInterval = micro / 2_000_000
    } else {
      watchdogInterval = nil
    }
  }

  /// Sends `message` (lines such as `READY=1\nSTATUS=…`); best effort.
  func send(_ message: String) {
    guard let socketPath else { return }
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(socketPath.utf8)
    let abstract = bytes.first == UInt8(ascii: "@")
    if abstract { bytes[0] = 0 }
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    // An abstract address's length counts its bytes exactly; a path's, the whole structure.
    let length =
      abstract
      ? socklen_t(MemoryLayout<sa_family_t>.size + bytes.count) : socklen_t(MemoryLayout<sockaddr_un>.size)
    let payload = Array(message.utf8)
    _ = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        payload.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length) }
      }
    }
  }

  /// `RELOADING=1` with the monotonic time systemd asks for beside it.
  func reloading() {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    send("RELOADING=1\nMONOTONIC_USEC=\(Int(now.tv_sec) * 1_000_000 + Int(now.tv_nsec) / 1_000)")
  }
}
