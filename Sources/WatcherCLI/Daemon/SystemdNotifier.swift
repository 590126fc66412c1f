// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

#if canImport(Glibc)
  import Glibc
#endif

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
    guard var address = DaemonSocket.address(socketPath) else { return }
    // `@name` is in the abstract namespace: a leading NUL, and a length that counts its bytes exactly (a
    // path's counts the whole structure).
    let abstract = socketPath.hasPrefix("@")
    if abstract { withUnsafeMutableBytes(of: &address.sun_path) { $0[0] = 0 } }
    let length =
      abstract
      ? socklen_t(MemoryLayout<sa_family_t>.size + socketPath.utf8.count) : socklen_t(MemoryLayout<sockaddr_un>.size)
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
