// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
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

  /// The record's path for the daemon whose socket is `socket`.
  static func path(socket: String) -> String {
    (socket.hasSuffix(".sock") ? String(socket.dropLast(5)) : socket) + ".info"
  }

  /// "the daemon (pid 42) runs the config loaded at 2026-12-01T10:00:00Z; the file has errors: …".
  var configNote: String? {
    guard let errors else { return nil }
    return "the daemon (pid \(pid)) runs the config loaded at \(ISODate.format(loaded)); the file has errors:\n"
      + errors
  }

  func write(to path: String) {
    let object: [String: Any] = [
      "pid": Int(pid), "config": config, "started": ISODate.format(started), "loaded": ISODate.format(loaded),
      "errors": errors ?? NSNull(),
    ]
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    try? AtomicFile.write(data, to: path, directory: (path as NSString).deletingLastPathComponent)
  }

  /// The record at `path`, when its daemon still runs.
  static func read(_ path: String) -> DaemonRecord? {
    guard let data = FileManager.default.contents(atPath: path), data.count < 1_000_000,
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let pid = object["pid"] as? Int, let config = object["config"] as? String,
      let started = (object["started"] as? String).flatMap(DateParser.parse),
      let loaded = (object["loaded"] as? String).flatMap(DateParser.parse),
      pid > 0, pid < Int(Int32.max), kill(Int32(pid), 0) == 0 || errno == EPERM
    else { return nil }
    return DaemonRecord(
      pid: Int32(pid), config: config, started: started, loaded: loaded, errors: object["errors"] as? String)
  }

  /// The record of the daemon that uses `directory`, when one runs.
  static func find(stateDirectory directory: String, environment: [String: String]) -> DaemonRecord? {
    read(path(socket: DaemonSocket.path(stateDirectory: directory, environment: environment)))
  }
}
