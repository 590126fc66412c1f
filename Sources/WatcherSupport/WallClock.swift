// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

/// The time commands act at: the system clock, moved by `WATCHER_CLOCK_OFFSET` seconds when that is set.
///
/// The offset exists so that tests of the built binary can inject time (a hook's retry a day later, a digest
/// due at 08:00) instead of sleeping through it; nothing else should set it.
public enum WallClock {
  /// The offset, read once from the process environment (0 when unset or not a number).
  public static let offset: TimeInterval = {
    guard let text = ProcessInfo.processInfo.environment["WATCHER_CLOCK_OFFSET"],
      let seconds = Double(text), seconds.isFinite, abs(seconds) < 1e10
    else { return 0 }
    return seconds
  }()

  /// Now, as watcher counts it.
  public static func now() -> Date { Date().addingTimeInterval(offset) }

  /// `date` as the local clock shows it ("07:00").
  public static func local(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.dateFormat = "HH:mm"
    return formatter.string(from: date)
  }
}
