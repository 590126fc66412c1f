// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Glibc

/// `~` in paths, the way a shell expands it: `$HOME` when it is set (Foundation's own expansion reads the
/// password database instead, so a scratch `HOME=/tmp/x` would be ignored), else the account's home.
public enum HomePath {
  /// The home directory: `$HOME` (of `environment`, else of the process), else the account's.
  public static func home(_ environment: [String: String]? = nil) -> String {
    // Not `ProcessInfo.processInfo.environment` by default: it copies the whole environment into a new
    // dictionary on every call (a third of a million instructions), and paths are expanded for every feed.
    let home = environment.map { $0["HOME"] } ?? getenv("HOME").map { String(cString: $0) }
    if let home, !home.isEmpty { return home }
    return getpwuid(getuid()).map { String(cString: $0.pointee.pw_dir) } ?? "/"
  }

  /// `path` with a leading `~` or `~/` replaced by the home directory; other paths (and `~user`) unchanged.
  public static func expand(_ path: String, environment: [String: String]? = nil) -> String {
    if path == "~" { return home(environment) }
    if path.hasPrefix("~/") {
      let home = home(environment)
      return (home.hasSuffix("/") ? String(home.dropLast()) : home) + path.dropFirst()
    }
    if path.hasPrefix("~") {
      // ~user or ~user/rest: that account's home, else the path unchanged.
      let user = path.dropFirst().prefix { $0 != "/" }
      guard let entry = getpwnam(String(user)) else { return path }
      return String(cString: entry.pointee.pw_dir) + path.dropFirst(1 + user.count)
    }
    return path
  }
}
