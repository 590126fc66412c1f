// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

/// Locates test fixtures in the source tree (not `Bundle.module`), so goldens can be rewritten in place.
public enum Fixtures {
  /// The repository root, found from this file's path.
  public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// `Tests/Fixtures/<relative>`, shared by the layers' test targets; with `target`,
  /// `Tests/<target>/Fixtures/<relative>`.
  public static func url(_ relative: String, target: String? = nil) -> URL {
    repositoryRoot.appendingPathComponent("Tests/\(target.map { $0 + "/" } ?? "")Fixtures/\(relative)")
  }

  /// Whether goldens should be rewritten (`WATCHER_RECORD=1 swift test`).
  public static var recording: Bool { ProcessInfo.processInfo.environment["WATCHER_RECORD"] == "1" }
}
