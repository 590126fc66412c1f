// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// What a running daemon says about itself, beside its socket (`daemon-<hash>.info`, JSON): its pid, the
/// config it runs and when it loaded it, and the errors of the file on disk when a reload failed.
///
/// `status`, a second `run` and every handed-over command read it; it goes when the daemon stops.
struct DaemonRecord: Equatable {
  var pid: Int32
  /// The config file, as the daemon resolved it.
  var config: String
  var started: Date
  /// When the config the daemon runs was loaded.
  var loaded: Date
  /// The errors of the config file on disk, when it changed and does not load (the daemon runs the old one).
  var errors: String?
  /// The text of the config the daemon runs: what the dry runs read while the file has errors.
  var text: String? = nil

  /// The record's path for the daemon whose socket is `socket`.
  static func path(socket: String) -> String {
    (socket.hasSuffix(".sock") ? String(socket.dropLast(5)) : socket) + ".info"
  }

  /// "the daemon (pid 42) runs the config loaded at 2026-12-01T10:00:00Z; the file has errors: …".
  var configNote: String? {
    guard let errors else { return nil }
    return "the daemon (pid \(pid)) runs the config loaded at \(WallClock.shown(loaded)); the file has errors:\n"
      + errors
  }

  func write(to path: String) {
    let object = JSONOutput.object([
      ("config", .string(config)), ("errors", .optional(errors)), ("loaded", .string(ISODate.format(loaded))),
      ("pid", .int(Int(pid))), ("started", .string(ISODate.format(started))), ("text", .optional(text)),
    ])
    try? AtomicFile.write(Data(object.compact), to: path, directory: FilePath.directory(path))
  }

  /// The record at `path`, when its daemon still runs.
  static func read(_ path: String) -> DaemonRecord? {
    guard let data = FileManager.default.contents(atPath: path), data.count < 40_000_000,
      let object = try? JSONReader.members(data),
      let pid = object["pid"]?.int, let config = object["config"]?.string,
      let started = object["started"]?.string.flatMap(DateParser.parse),
      let loaded = object["loaded"]?.string.flatMap(DateParser.parse),
      pid > 0, pid < Int(Int32.max), kill(Int32(pid), 0) == 0 || errno == EPERM
    else { return nil }
    return DaemonRecord(
      pid: Int32(pid), config: config, started: started, loaded: loaded, errors: object["errors"]?.string,
      text: object["text"]?.string)
  }

  /// The record of the daemon that uses `directory`, when one runs.
  static func find(stateDirectory directory: String, environment: [String: String]) -> DaemonRecord? {
    read(path(socket: DaemonSocket.path(stateDirectory: directory, environment: environment)))
  }
}
