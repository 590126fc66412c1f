// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

#if canImport(Glibc)
  import Glibc
#endif

/// Whether another user of a shared machine could change a file watcher trusts.
///
/// The config holds hook commands, and the state holds hook commands still to retry: whoever can write
/// either runs code as the user. Like ssh with its keys, watcher refuses them when they belong to another
/// user (root excepted) or are writable by other users.
package enum FileSafety {
  /// Why `path` is unsafe to trust, or `nil` when it is safe (or does not exist).
  ///
  /// `groupMayWrite` allows group write (a config in a user-private-group setup); a state directory never
  /// allows it.
  package static func problem(_ path: String, groupMayWrite: Bool) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    let mode = info.st_mode & 0o7777
    let octal = String(mode, radix: 8)
    if info.st_uid != geteuid(), info.st_uid != 0 {
      return "it belongs to another user (uid \(info.st_uid)), who could change it; use a copy of your own"
    }
    if mode & 0o002 != 0 || (!groupMayWrite && mode & 0o020 != 0) {
      let who = mode & 0o002 != 0 ? "every user of this machine" : "its group"
      return "it is writable by \(who) (mode \(octal)), so others could make watcher run commands as you; "
        + "fix: chmod go-w '\(path)'"
    }
    return nil
  }
}
