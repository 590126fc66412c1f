// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// Times of day when notifications wait: `settings.notify.quiet`.
///
/// `"22:00-07:00"` or a list of such ranges, in local time. A range whose end is before its start runs past
/// midnight.
public struct QuietHours: Sendable, Equatable {
  /// One range, in minutes after midnight; `end` is exclusive.
  public struct Range: Sendable, Equatable {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
      self.start = start
      self.end = end
    }

    /// Whether the minute of the day `minute` is inside.
    func contains(_ minute: Int) -> Bool {
      start < end ? (start..<end).contains(minute) : minute >= start || minute < end
    }
  }

  /// The ranges; none means never quiet.
  public var ranges: [Range]
  /// The urgency that is let through quiet hours, and what is more urgent (`quiet_allows`); `nil`: none.
  public var allows: Urgency?

  public init(ranges: [Range] = [], allows: Urgency? = nil) {
    self.ranges = ranges
    self.allows = allows
  }

  /// Reads "HH:MM-HH:MM"; nil when it is not that.
  public static func range(_ text: String) -> Range? {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false).map {
      $0.trimming(.spaces)
    }
    guard parts.count == 2, let start = minutes(parts[0]), let end = minutes(parts[1]), start != end else {
      return nil
    }
    return Range(start: start, end: end)
  }

  /// Minutes after midnight of a local time written "HH:MM"; nil when it is not that.
  public static func timeOfDay(_ text: String) -> Int? { minutes(text) }

  private static func minutes(_ text: String) -> Int? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[1].count == 2, (1...2).contains(parts[0].count), let hours = Int(parts[0]),
      let minutes = Int(parts[1]), (0...23).contains(hours), (0...59).contains(minutes)
    else { return nil }
    return hours * 60 + minutes
  }

  /// Whether `date` falls in quiet hours (local time).
  public func isQuiet(_ date: Date, calendar: some LocalTime = .current) -> Bool {
    guard !ranges.isEmpty else { return false }
    let clock = calendar.clock(date)
    return ranges.contains { $0.contains(clock.hour * 60 + clock.minute) }
  }

  /// Whether a notification of `urgency` waits at `date`.
  public func holds(_ urgency: Urgency, at date: Date, calendar: some LocalTime = .current) -> Bool {
    guard isQuiet(date, calendar: calendar) else { return false }
    return allows.map { urgency < $0 } ?? true
  }

  /// When the quiet time around `date` ends: the first minute after it that is not quiet (at most a day on).
  public func end(after date: Date, calendar: some LocalTime = .current) -> Date {
    var start = Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 60).rounded(.down) * 60)
    for _ in 0..<(24 * 60 + 1) {
      start = start.addingTimeInterval(60)
      if !isQuiet(start, calendar: calendar) { return start }
    }
    return start
  }
}
