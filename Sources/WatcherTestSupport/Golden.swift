// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

/// Golden-file comparison: the expected output lives next to the fixture in the source tree.
///
/// `WATCHER_RECORD=1 swift test` rewrites every golden that differs and reports it as a failure, so a
/// person reviews the diff before committing; CI fails on any golden change (`git status` check).
public enum Golden {
  /// Compares `actual` with the file at `url`; returns a failure message, or `nil` when they match.
  public static func check(_ actual: String, against url: URL) -> String? {
    let expected = try? String(contentsOf: url, encoding: .utf8)
    if expected == actual { return nil }
    if Fixtures.recording {
      try? actual.write(to: url, atomically: true, encoding: .utf8)
      return "recorded \(url.path); review the diff and run the tests again"
    }
    guard let expected else {
      return "missing golden \(url.path); run WATCHER_RECORD=1 swift test to create it"
    }
    return "output differs from \(url.lastPathComponent):\n" + firstDifference(expected, actual)
  }

  /// The first differing line of two texts, for a readable failure.
  static func firstDifference(_ expected: String, _ actual: String) -> String {
    let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
    for index in 0..<max(e.count, a.count) {
      let left = index < e.count ? String(e[index]) : "<end>"
      let right = index < a.count ? String(a[index]) : "<end>"
      if left != right { return "line \(index + 1):\n  expected: \(left)\n  actual:   \(right)" }
    }
    return "(texts differ only in line endings)"
  }
}
