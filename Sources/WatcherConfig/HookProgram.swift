// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// Where a `run:` hook's program is: checked by `watcher check`, resolved again when the hook runs.
public enum HookProgram {
  /// The absolute path of `program`: itself when it has a `/` (after `~`), else the first executable of
  /// that name in `PATH` (`environment`'s, else this process's); `nil` when there is none.
  public static func resolve(_ program: String, environment: [String: String]? = nil) -> String? {
    let expanded = HomePath.expand(program, environment: environment)
    if expanded.contains("/") { return FileManager.default.isExecutableFile(atPath: expanded) ? expanded : nil }
    let path = (environment ?? ProcessInfo.processInfo.environment)["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") where !directory.isEmpty {
      let candidate = "\(directory)/\(expanded)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// What is wrong with an absolute program or script path, or `nil` when it is an executable file.
  public enum PathProblem: Sendable, Equatable {
    /// Nothing is there.
    case missing
    /// A file is there, but it is not executable.
    case notExecutable
  }

  /// Checks an absolute path (`~` expanded by the caller).
  public static func problem(at path: String) -> PathProblem? {
    if FileManager.default.isExecutableFile(atPath: path) { return nil }
    return FileManager.default.fileExists(atPath: path) ? .notExecutable : .missing
  }
}
