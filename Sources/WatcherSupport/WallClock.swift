// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

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

  /// A date and time as every command's text shows one: local, to the minute ("2026-12-02 07:00").
  ///
  /// JSON output keeps ISO 8601 UTC (`ISODate`).
  public static func shown(_ date: Date) -> String {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    localtime_r(&seconds, &parts)
    func two(_ value: Int32) -> String { (value < 10 ? "0" : "") + String(value) }
    return
      "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min))"
  }

  /// `date` as the local clock shows it ("07:00").
  public static func local(_ date: Date) -> String {
    let (hour, minute) = SystemLocalTime().clock(date)
    return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
  }
}

/// Local clock times: what quiet hours and digests at "08:00" are read against.
public protocol LocalTime: Sendable {
  /// The hour and minute `date` shows on the local clock.
  func clock(_ date: Date) -> (hour: Int, minute: Int)
  /// `hour:minute` on the local clock, `days` days after the day of `date`.
  func date(hour: Int, minute: Int, daysAfter days: Int, of date: Date) -> Date
}

extension LocalTime where Self == SystemLocalTime {
  /// The system's time zone (`TZ`, else /etc/localtime).
  public static var current: SystemLocalTime { SystemLocalTime() }
}

/// The C library's local time: its time zone database, `TZ` and daylight saving time.
///
/// The corresponding C functions are `localtime_r` and `mktime`.
public struct SystemLocalTime: LocalTime {
  public init() {}

  private func parts(_ date: Date) -> tm {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    localtime_r(&seconds, &parts)
    return parts
  }

  public func clock(_ date: Date) -> (hour: Int, minute: Int) {
    let parts = parts(date)
    return (Int(parts.tm_hour), Int(parts.tm_min))
  }

  public func date(hour: Int, minute: Int, daysAfter days: Int, of date: Date) -> Date {
    var parts = parts(date)
    parts.tm_mday += Int32(days)
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    parts.tm_sec = 0
    // Whether daylight saving time applies at that time is for mktime to find out.
    parts.tm_isdst = -1
    let seconds = mktime(&parts)
    return seconds == -1 ? date : Date(timeIntervalSince1970: Double(seconds))
  }
}

/// Times read back from state, checked against now.
///
/// A clock that was ahead and is set right must not leave watcher waiting for a future that will not come:
/// a time something happened that lies in the future beyond `skew` is taken as now, and a deadline further
/// ahead than any wait watcher sets is due now (docs/design.md, "Time").
public enum StoredTime {
  /// How far ahead a stored time may be before it is not believed (clocks of one machine drift by less).
  public static let skew: TimeInterval = 300

  /// Whether `date`, a time something happened, lies in the future beyond the skew.
  public static func isAhead(_ date: Date, now: Date) -> Bool { date > now.addingTimeInterval(skew) }

  /// `date`, a time something happened: now when it lies in the future beyond the skew.
  public static func happened(_ date: Date, now: Date) -> Date { isAhead(date, now: now) ? now : date }

  /// `date`, a deadline no wait of watcher's puts further than `longest` from when it was set: now when it
  /// lies further ahead than that (and the skew).
  public static func deadline(_ date: Date, longest: TimeInterval, now: Date) -> Date {
    date > now.addingTimeInterval(longest + skew) ? now : date
  }
}
