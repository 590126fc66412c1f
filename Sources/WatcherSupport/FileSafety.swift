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

  /// Why the directory `path`, which watcher keeps its own files in and deletes from (the picture cache),
  /// is unsafe to use, or `nil` when it is safe or does not exist yet: a symbolic link (it could lead
  /// anywhere), not a directory, another user's, or writable by group or others.
  package static func privateDirectoryProblem(_ path: String) -> String? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    let kind = info.st_mode & S_IFMT
    if kind == S_IFLNK { return "\(path) is a symbolic link; watcher keeps its files only in a directory of its own" }
    if kind != S_IFDIR { return "\(path) is not a directory" }
    if info.st_uid != geteuid() { return "\(path) belongs to another user (uid \(info.st_uid))" }
    if info.st_mode & 0o022 != 0 {
      return
        "\(path) is writable by other users (mode \(String(info.st_mode & 0o7777, radix: 8))); fix: chmod go-w '\(path)'"
    }
    return nil
  }

  /// Why a file of secrets or code (a hook's script, a webhook's secret, an Apprise URL file, a header's
  /// token) is unsafe to use, or `nil`: another user's (root excepted), or writable by group or others.
  package static func trustedFileProblem(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    if info.st_uid != geteuid(), info.st_uid != 0 {
      return "\(path) belongs to another user (uid \(info.st_uid)), who could change it; use a copy of your own"
    }
    if info.st_mode & 0o022 != 0 {
      let who = info.st_mode & 0o002 != 0 ? "every user of this machine" : "its group"
      return "\(path) is writable by \(who) (mode \(String(info.st_mode & 0o7777, radix: 8))), who could change it; "
        + "fix: chmod go-w '\(path)'"
    }
    return nil
  }

  /// Why the directory `path` that holds a file watcher trusts (the config) lets another user replace that
  /// file, or `nil`: another user's (root excepted), or writable by every user without the sticky bit (as
  /// `/tmp` has, where only a file's owner can replace it).
  package static func directoryProblem(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    if info.st_uid != geteuid(), info.st_uid != 0 {
      return "its directory \(path) belongs to another user (uid \(info.st_uid)), who could replace it"
    }
    if info.st_mode & 0o002 != 0, info.st_mode & 0o1000 == 0 {
      return "its directory \(path) is writable by every user of this machine "
        + "(mode \(String(info.st_mode & 0o7777, radix: 8))), who could replace it; fix: chmod o-w '\(path)'"
    }
    return nil
  }
}
