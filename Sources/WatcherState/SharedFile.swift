// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Glibc

extension StateStore {
  /// Runs `change` holding the lock of the shared file at `path` (`flock` on `<path>.lock`).
  ///
  /// Commands and the daemon change some files by reading them and writing them back (the labels, the
  /// snoozes) without the directory's lock, which a poll holds: two changes at once (a 👍 clicked in a
  /// bubble while `watcher like` runs) would each write back what they read, and one would be lost. A
  /// change takes milliseconds; one that waits `wait` seconds for another holder gives up with `.locked`.
  package func changing<T>(_ path: String, wait: Double = 10, _ change: () throws(StateError) -> T)
    throws(StateError) -> T
  {
    let lockPath = path + ".lock"
    // O_NOFOLLOW: a symlink planted there must not make watcher create or open another file.
    let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw .unusable(path: lockPath, reason: String(cString: strerror(errno))) }
    defer { close(fd) }
    var waited = 0.0
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR, waited < wait else { throw .locked(path: path) }
      usleep(10_000)
      waited += 0.01
    }
    return try change()
  }
}
