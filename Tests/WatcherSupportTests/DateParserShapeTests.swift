// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Testing

@testable import WatcherSupport

/// The common RFC 822 shape is read by position (`DateParser.parseRFC822`); whatever it makes of a date,
/// reading the same date by tokens makes too.
@Suite("Date parsing by position")
struct DateParserShapeTests {
  @Test("every date of the common shape, valid or not, reads as the general reading reads it")
  func sameAsTokens() {
    let weekdays = ["Mon", "tue", "SUN", "Xyz", "Mo1", "Jan"]
    let days = ["01", "31", "00", "29", "1x", "09"]
    let months = ["Jan", "feb", "DEC", "Foo", "Sep", "Mon"]
    let years = ["2020", "1999", "0000", "2024", "20x0"]
    let times = ["00:00:00", "23:59:60", "24:00:00", "12:60:00", "9a:00:00", "07:05:09"]
    let zones = ["+0000", "-0530", "+9999", "-0000", "GMT", "UTC", "gmt", "EST", "+00:0", "+0a00", "Z", "PDT"]
    var read = 0
    for weekday in weekdays {
      for day in days {
        for month in months {
          for year in years {
            for time in times {
              for zone in zones {
                let text = "\(weekday), \(day) \(month) \(year) \(time) \(zone)"
                let byTokens = Array(text.utf8).withUnsafeBufferPointer { DateParser.parseTokens($0) }
                #expect(DateParser.parse(text) == byTokens, "\(text)")
                if byTokens != nil { read += 1 }
              }
            }
          }
        }
      }
    }
    #expect(read > 5_000)
  }
}
