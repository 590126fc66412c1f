// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// The process exit statuses watcher uses.
public enum ExitCode: Int32, Sendable {
  /// Everything worked.
  case success = 0
  /// Some feed or action failed; the rest still ran.
  case failure = 1
  /// Another watcher holds the state directory; try again later (`EX_TEMPFAIL`).
  case tempfail = 75
  /// Bad command-line usage (`EX_USAGE`).
  case usage = 64
  /// An invalid configuration (`EX_CONFIG`).
  case config = 78
  /// Stopped by SIGINT or SIGTERM while waiting for the daemon (128 + SIGINT, as shells count it).
  case interrupted = 130
}
