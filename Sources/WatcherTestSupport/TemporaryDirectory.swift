// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

/// A fresh directory under the system temporary directory, removed when released.
public final class TemporaryDirectory {
  /// Its location.
  public let url: URL

  /// Creates the directory.
  public init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("watcher-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }
}
