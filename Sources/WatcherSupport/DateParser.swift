// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// The one place feed dates are read: RFC 822/1123/2822 in every variant seen in the wild, RFC 3339 and
/// ISO 8601 (W3C-DTF) with or without seconds, fraction and zone, and asctime.
///
/// It is a hand-written scanner, not a table of `DateFormatter` patterns: it is fast, `Sendable`, and
/// accepts the variants as they combine (weekday or none, day and month either way round, 2- or 4-digit
/// years, long or lowercase month names, missing seconds, named, military or numeric zones with or without
/// a colon, surrounding whitespace). A date with no zone is UTC. It never returns "now": what it cannot
/// read gives `nil`, and the caller reports it.
public enum DateParser {
  /// Parses `string`, or returns `nil` when it is not a date this parser can read.
  public static func parse(_ string: String) -> Date? {
    string.withUTF8Bytes { parse(bytes: $0) }
  }

  /// `parse` for a date given as UTF-8 bytes.
  static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
    var start = 0
    var end = bytes.count
    while start < end, isSpace(bytes[start]) { start += 1 }
    while end > start, isSpace(bytes[end - 1]) { end -= 1 }
    guard end > start else { return nil }
    let text = UnsafeBufferPointer(rebasing: bytes[start..<end])
    if let date = parseRFC822(text) ?? parseISO(text) { return date }
    return parseTokens(text)
  }

  /// Seconds since 1970 for a UTC civil date and time, or `nil` if a field is out of range.
  package static func timestamp(
    year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, offsetSeconds: Int = 0
  ) -> Date? {
    guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
      (0...24).contains(hour), (0...59).contains(minute), (0...60).contains(second),
      hour < 24 || (minute == 0 && second == 0), (1...9999).contains(year)
    else { return nil }
    // Days from civil (Howard Hinnant's algorithm): proleptic Gregorian, no Calendar needed.
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    let days = era * 146_097 + doe - 719_468
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + min(second, 59) - offsetSeconds
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }

  // MARK: - ISO 8601 / RFC 3339

  /// `YYYY-MM-DD`, optionally followed by `T` or a space, `hh:mm[:ss[.fff]]`, and `Z` or `±hh[:mm]`.
  ///
  /// Also the compact `YYYYMMDDThhmmss`.
  private static func parseISO(_ s: UnsafeBufferPointer<UInt8>) -> Date? {
    // A cursor of its own, not a local captured by nested functions: a captured `var` is boxed and every
    // access to it checked for exclusivity at run time, a third of what reading a state file's dates cost.
    var c = DateCursor(s: s)
    guard let year = c.digits(4) else { return nil }
    // W3C-DTF allows just the year ("2002") or year and month ("2002-10").
    if c.i == s.count { return timestamp(year: year, month: 1, day: 1) }
    let compact = !(c.i < s.count && s[c.i] == UInt8(ascii: "-"))
    if !compact { c.i += 1 }
    guard let month = c.digits(2) else { return nil }
    if c.i == s.count, !compact { return timestamp(year: year, month: month, day: 1) }
    if !compact, !c.accept(UInt8(ascii: "-")) { return nil }
    guard let day = c.digits(2) else { return nil }
    var hour = 0
    var minute = 0
    var second = 0
    var offset = 0
    if c.i < s.count {
      guard s[c.i] == UInt8(ascii: "T") || s[c.i] == UInt8(ascii: "t") || s[c.i] == UInt8(ascii: " ") else {
        return nil
      }
      c.i += 1
      while c.i < s.count, s[c.i] == UInt8(ascii: " ") { c.i += 1 }
      guard let h = c.digits(2) else { return nil }
      hour = h
      _ = c.accept(UInt8(ascii: ":"))
      guard let m = c.digits(2) else { return nil }
      minute = m
      if c.accept(UInt8(ascii: ":")) || (c.i < s.count && isDigit(s[c.i])) {
        // "12:35:9" happens; read one or two digits.
        guard let sec = c.digits(2) ?? c.digits(1) else { return nil }
        second = sec
        if c.accept(UInt8(ascii: ".")) || c.accept(UInt8(ascii: ",")) {
          while c.i < s.count, isDigit(s[c.i]) { c.i += 1 }
        }
      }
      while c.i < s.count, s[c.i] == UInt8(ascii: " ") { c.i += 1 }
      if c.i < s.count {
        if s[c.i] == UInt8(ascii: "Z") || s[c.i] == UInt8(ascii: "z") {
          c.i += 1
        } else if s[c.i] == UInt8(ascii: "+") || s[c.i] == UInt8(ascii: "-") {
          let sign = s[c.i] == UInt8(ascii: "-") ? -1 : 1
          c.i += 1
          guard let oh = c.digits(2) else { return nil }
          var om = 0
          if c.i < s.count {
            _ = c.accept(UInt8(ascii: ":"))
            // "+00:0" happens; read one or two digits.
            guard let m = c.digits(2) ?? c.digits(1) else { return nil }
            om = m
          }
          offset = sign * (oh * 3_600 + om * 60)
        } else {
          // A zone name after an ISO date ("2012-01-24 14:00:54 GMT").
          guard let z = zoneOffset(UnsafeBufferPointer(rebasing: s[c.i...])) else { return nil }
          offset = z
          c.i = s.count
        }
      }
      guard c.i == s.count else { return nil }
    }
    return timestamp(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second, offsetSeconds: offset)
  }

  // MARK: - RFC 822 as most feeds write it

  /// A date written `Mon, 02 Jan 2006 15:04:05 +0000` (or `GMT`, `UTC` for the zone), read by position.
  ///
  /// Most feeds write their dates so; reading them by tokens cost two and a half times as much. Any other
  /// shape, or a date this one cannot make, is `nil`, and `parseTokens` reads it as it always did (it gives
  /// the same date for this shape: `DateParserShapeTests`).
  @inline(__always)
  private static func parseRFC822(_ s: UnsafeBufferPointer<UInt8>) -> Date? {
    guard s.count == 31 || s.count == 29, s[3] == UInt8(ascii: ","), s[4] == 32, s[7] == 32, s[11] == 32,
      s[16] == 32, s[19] == UInt8(ascii: ":"), s[22] == UInt8(ascii: ":"), s[25] == 32,
      isLetter(s[0]), isLetter(s[1]), isLetter(s[2]), weekdayKeys.contains(key(s)),
      isLetter(s[8]), isLetter(s[9]), isLetter(s[10]),
      let month = monthKeys.firstIndex(of: key(UnsafeBufferPointer(rebasing: s[8..<11]))),
      let day = number(s, 5, 2), let year = number(s, 12, 4), let hour = number(s, 17, 2),
      let minute = number(s, 20, 2), let second = number(s, 23, 2)
    else { return nil }
    var offset = 0
    if s.count == 31 {
      guard s[26] == UInt8(ascii: "+") || s[26] == UInt8(ascii: "-"), let zone = number(s, 27, 4) else { return nil }
      offset = (s[26] == UInt8(ascii: "-") ? -1 : 1) * ((zone / 100) * 3_600 + (zone % 100) * 60)
    } else {
      let zone = (s[26], s[27], s[28])
      guard zone == (71, 77, 84) || zone == (85, 84, 67) else { return nil }  // GMT, UTC
    }
    return timestamp(
      year: year, month: month + 1, day: day, hour: hour, minute: minute, second: second, offsetSeconds: offset)
  }

  /// The number written in `count` digits at `at`, or `nil` when one is not a digit.
  @inline(__always)
  private static func number(_ s: UnsafeBufferPointer<UInt8>, _ at: Int, _ count: Int) -> Int? {
    var value = 0
    for i in at..<at + count {
      guard isDigit(s[i]) else { return nil }
      value = value &* 10 &+ Int(s[i] &- 48)
    }
    return value
  }

  // MARK: - RFC 822 and friends, by tokens

  /// Reads the date as tokens: words (weekday, month, zone), numbers (day, year), a `hh:mm[:ss]` time, and a numeric zone.
  ///
  /// Their order may vary, as it does in the wild.
  static func parseTokens(_ s: UnsafeBufferPointer<UInt8>) -> Date? {
    var day: Int?
    var month: Int?
    var year: Int?
    var yearDigits = 0
    var time: (Int, Int, Int)?
    var offset: Int?
    // Numbers with no month name ("22.11.2022", "2020/1/10"), in order, and the separator after the first.
    var numbers: [(value: Int, digits: Int)] = []
    var numericSeparator: UInt8 = 0
    var i = 0
    while i < s.count {
      let c = s[i]
      if isSpace(c) || c == UInt8(ascii: ",") || c == UInt8(ascii: ".") || c == UInt8(ascii: "/") {
        i += 1
        continue
      }
      if isDigit(c) {
        var j = i
        var value = 0
        while j < s.count, isDigit(s[j]) {
          value = value &* 10 &+ Int(s[j] - 48)
          j += 1
        }
        let count = j - i
        if j < s.count, s[j] == UInt8(ascii: ":") {
          guard time == nil, count <= 2, let parsed = parseTime(s, from: i, end: &j) else { return nil }
          time = parsed
        } else if month == nil, time == nil, numbers.count < 3,
          !numbers.isEmpty
            || (j < s.count && (s[j] == UInt8(ascii: ".") || s[j] == UInt8(ascii: "/") || s[j] == UInt8(ascii: "-")))
        {
          if numbers.isEmpty { numericSeparator = s[j] }
          numbers.append((value, count))
        } else if count == 4, year != nil, time == nil, value / 100 < 24, value % 100 < 60 {
          // "03 Apr 02 1500 GMT": a time without its colon.
          time = (value / 100, value % 100, 0)
        } else if count == 4 || count == 3 || (count == 2 && day != nil && year == nil) || (count == 2 && value > 31) {
          guard year == nil else { return nil }
          year = value
          yearDigits = count
        } else if count <= 2, day == nil {
          day = value
        } else if count <= 2, year == nil {
          year = value
          yearDigits = count
        } else {
          return nil
        }
        i = j
        continue
      }
      if c == UInt8(ascii: "-"), year == nil, time == nil {
        // A separator ("24-Jan-2012"), not a zone offset: no year or time has been read yet.
        i += 1
        continue
      }
      if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
        guard time != nil || year != nil, offset == nil else { return nil }
        var j = i
        guard let parsed = numericOffset(s, at: &j) else { return nil }
        offset = parsed
        i = j
        continue
      }
      if isLetter(c) {
        var j = i
        while j < s.count, isLetter(s[j]) || s[j] == UInt8(ascii: "/") { j += 1 }
        let word = UnsafeBufferPointer(rebasing: s[i..<j])
        if month == nil, let m = monthNumber(word) {
          month = m
        } else if isWeekday(word) {
          // Ignored: weekdays are often wrong in feeds, and the date says it anyway.
        } else if time != nil || year != nil, offset == nil, let z = zoneOffset(word) {
          offset = z
          // "GMT+2", "UTC-05:00": the numeric part follows as the next token.
          if j < s.count, s[j] == UInt8(ascii: "+") || s[j] == UInt8(ascii: "-") { offset = nil }
        } else if word.count <= 2, equalsIgnoringCase(word, "at") || equalsIgnoringCase(word, "t") {
          // "24 Jan 2012 at 14:00"
        } else {
          return nil
        }
        i = j
        continue
      }
      return nil
    }
    guard
      numbers.isEmpty
        || resolve(numbers, separator: numericSeparator, day: &day, month: &month, year: &year, yearDigits: &yearDigits)
    else { return nil }
    guard let d = day, let m = month, var y = year else { return nil }
    if yearDigits <= 2 { y += y < 90 ? 2000 : 1900 }
    let (h, mi, sec) = time ?? (0, 0, 0)
    return timestamp(year: y, month: m, day: d, hour: h, minute: mi, second: sec, offsetSeconds: offset ?? 0)
  }

  /// A numeric zone offset at `i` (its sign), in seconds: "+0200", "+02:00", "+2"; advances `i` past it.
  @inline(__always)
  private static func numericOffset(_ s: UnsafeBufferPointer<UInt8>, at i: inout Int) -> Int? {
    let sign = s[i] == UInt8(ascii: "-") ? -1 : 1
    var j = i + 1
    // The digits, colons skipped.
    var value = 0
    var count = 0
    while j < s.count, isDigit(s[j]) || s[j] == UInt8(ascii: ":") {
      if isDigit(s[j]) {
        value = value &* 10 &+ Int(s[j] - 48)
        count += 1
      }
      j += 1
    }
    i = j
    switch count {
    case 1, 2: return sign * value * 3_600
    case 4: return sign * ((value / 100) * 3_600 + (value % 100) * 60)
    default: return nil
    }
  }

  /// The day, month and year that numbers read without a month name give ("22.11.2022", "2020/1/10"), or,
  /// beside a month name, as the general rules read them; false when they make no date.
  @inline(__always)
  private static func resolve(
    _ numbers: [(value: Int, digits: Int)], separator: UInt8, day: inout Int?, month: inout Int?, year: inout Int?,
    yearDigits: inout Int
  ) -> Bool {
    if month == nil, numbers.count == 3, day == nil, year == nil {
      let (a, b, c) = (numbers[0], numbers[1], numbers[2])
      if a.digits == 4 {
        (year, month, day, yearDigits) = (a.value, b.value, c.value, 4)
      } else if separator != UInt8(ascii: "/") || a.value > 12 {
        // Day first ("22.11.2022"), as everywhere but the US.
        (day, month, year, yearDigits) = (a.value, b.value, c.value, c.digits)
      } else {
        (month, day, year, yearDigits) = (a.value, b.value, c.value, c.digits)
      }
      return true
    }
    // Numbers that were not a numeric date: read them as the general rules would have.
    guard numbers.count <= 2, month != nil else { return false }
    for number in numbers {
      if number.digits == 4 || (day != nil && year == nil) {
        guard year == nil else { return false }
        (year, yearDigits) = (number.value, number.digits)
      } else if day == nil {
        day = number.value
      } else {
        return false
      }
    }
    return true
  }

  /// `h:mm`, `hh:mm:ss`, optionally followed by a fraction; advances `end` past it.
  private static func parseTime(_ s: UnsafeBufferPointer<UInt8>, from start: Int, end: inout Int) -> (Int, Int, Int)? {
    // Hours, minutes and seconds as read (no array: this runs for every item's date).
    var parts = (0, 0, 0)
    var count = 0
    var i = start
    while count < 3 {
      var value = 0
      var n = 0
      while i < s.count, isDigit(s[i]), n < 2 {
        value = value * 10 + Int(s[i] - 48)
        i += 1
        n += 1
      }
      guard n > 0 else { return nil }
      switch count {
      case 0: parts.0 = value
      case 1: parts.1 = value
      default: parts.2 = value
      }
      count += 1
      guard i < s.count, s[i] == UInt8(ascii: ":") else { break }
      i += 1
    }
    guard count >= 2 else { return nil }
    if i < s.count, s[i] == UInt8(ascii: ".") {
      i += 1
      while i < s.count, isDigit(s[i]) { i += 1 }
    }
    // "2:30 PM"
    var k = i
    while k < s.count, s[k] == UInt8(ascii: " ") { k += 1 }
    if k + 1 < s.count, s[k + 1] | 0x20 == UInt8(ascii: "m"), k + 2 == s.count || !isLetter(s[k + 2]) {
      let marker = s[k] | 0x20
      if marker == UInt8(ascii: "p") || marker == UInt8(ascii: "a") {
        guard (1...12).contains(parts.0) else { return nil }
        parts.0 = parts.0 % 12 + (marker == UInt8(ascii: "p") ? 12 : 0)
        i = k + 2
      }
    }
    end = i
    return parts
  }

  private static let months: [StaticString] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
  ]
  private static let longMonths: [StaticString] = [
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december",
  ]

  /// 1–12 for a month name: its 3-letter form, the full name, or "Sept", in any case.
  private static func monthNumber(_ word: UnsafeBufferPointer<UInt8>) -> Int? {
    guard word.count >= 3, let index = monthKeys.firstIndex(of: key(word)) else { return nil }
    if word.count == 3 || equalsIgnoringCase(word, longMonths[index]) || equalsIgnoringCase(word, "sept") {
      return index + 1
    }
    return nil
  }

  private static func isWeekday(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
    guard word.count >= 3, let index = weekdayKeys.firstIndex(of: key(word)) else { return false }
    return word.count == 3 || equalsIgnoringCase(word, longWeekdays[index]) || word.count == 4
  }

  /// The first three letters of `word` (at least three), lowercased, as one number: each date has a month
  /// and a weekday to look up, one comparison a name instead of three.
  @inline(__always)
  private static func key(_ word: UnsafeBufferPointer<UInt8>) -> UInt32 {
    UInt32(word[0] | 0x20) | UInt32(word[1] | 0x20) << 8 | UInt32(word[2] | 0x20) << 16
  }

  private static let monthKeys = months.map { key(UnsafeBufferPointer(start: $0.utf8Start, count: 3)) }
  private static let weekdayKeys = weekdays.map { key(UnsafeBufferPointer(start: $0.utf8Start, count: 3)) }

  private static let weekdays: [StaticString] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
  private static let longWeekdays: [StaticString] = [
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
  ]

  /// Zone names: UT/UTC/GMT/Z, the US zones, a few common European and Asian ones, and the RFC 822
  /// military letters (with RFC 822's own signs, as feedparser reads them).
  private static let zones: [String: Int] = [
    "ut": 0, "utc": 0, "gmt": 0, "z": 0, "wet": 0, "bst": 1, "cet": 1, "met": 1, "cest": 2, "mest": 2,
    "eet": 2, "eest": 3, "msk": 3, "ist": 5 * 60 + 30, "jst": 9, "kst": 9, "hkt": 8, "sgt": 8,
    "aest": 10, "aedt": 11, "nzst": 12, "nzdt": 13,
    "adt": -3, "ast": -4, "edt": -4, "est": -5, "cdt": -5, "cst": -6, "mdt": -6, "mst": -7, "pdt": -7,
    "pst": -8, "akst": -9, "akdt": -8, "hst": -10, "et": -5, "ct": -6, "mt": -7, "pt": -8,
    "etc/gmt": 0, "etc/utc": 0,
  ]

  private static func zoneOffset(_ word: UnsafeBufferPointer<UInt8>) -> Int? {
    guard word.count <= 7 else { return nil }
    let name = String(decoding: word, as: UTF8.self).lowercased()
    if let hours = zones[name] {
      // IST is the only half-hour zone in the table; it is stored in minutes.
      return name == "ist" ? hours * 60 : hours * 3_600
    }
    if name.count == 1, let c = name.utf8.first {
      switch c {
      case UInt8(ascii: "a")...UInt8(ascii: "i"): return -Int(c - UInt8(ascii: "a") + 1) * 3_600
      case UInt8(ascii: "k")...UInt8(ascii: "m"): return -Int(c - UInt8(ascii: "k") + 10) * 3_600
      case UInt8(ascii: "n")...UInt8(ascii: "y"): return Int(c - UInt8(ascii: "n") + 1) * 3_600
      default: return nil
      }
    }
    return nil
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  private static func hasPrefixIgnoringCase(_ word: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
    let count = prefix.utf8CodeUnitCount
    guard word.count >= count else { return false }
    let p = prefix.utf8Start
    for k in 0..<count where word[k] | 0x20 != p[k] { return false }
    return true
  }

  private static func equalsIgnoringCase(_ word: UnsafeBufferPointer<UInt8>, _ other: StaticString) -> Bool {
    word.count == other.utf8CodeUnitCount && hasPrefixIgnoringCase(word, other)
  }

  @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
  @inline(__always) private static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 97 && (c | 0x20) <= 122 }
  @inline(__always) private static func isSpace(_ c: UInt8) -> Bool { c == 32 || (c >= 9 && c <= 13) }
}

/// Dates as the JSON schemas and the state print them: ISO 8601 UTC to the second.
public enum ISODate {
  /// `2012-01-24T14:00:54Z`.
  public static func format(_ date: Date) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(20)
    append(date, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The HTTP and RFC 822 form, in GMT: `Tue, 24 Jan 2012 14:00:54 GMT`.
  public static func http(_ date: Date) -> String {
    let total = Int(date.timeIntervalSince1970.rounded(.down))
    let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
    // 1970-01-01 was a Thursday.
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
    let iso = Array(format(date).utf8.dropLast())
    guard iso.count == 19 else { return format(date) }
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    let text = String(decoding: iso, as: UTF8.self)
    let month = months[(Int(text.dropFirst(5).prefix(2)) ?? 1) - 1]
    return "\(weekday), \(text.dropFirst(8).prefix(2)) \(month) \(text.prefix(4)) \(text.suffix(8)) GMT"
  }

  /// Appends `format(date)` to `bytes`.
  @inlinable
  public static func append<Out: ByteAppender>(_ date: Date, to bytes: inout Out) {
    let total = Int(date.timeIntervalSince1970.rounded(.down))
    var days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
    let secs = total - days * 86_400
    // Civil from days (Howard Hinnant).
    days += 719_468
    let era = (days >= 0 ? days : days - 146_096) / 146_097
    let doe = days - era * 146_097
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
    // Two digits at a time, from a division each: dates are written twice for every known item of a state.
    @inline(__always) func two(_ value: Int) {
      bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10))
      bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
    }
    if (0...9_999).contains(y) {
      two(y / 100)
      two(y % 100)
    } else {
      // A year outside 0...9999 (only a far-off or hand-edited date): written in full.
      bytes.append(bytes: String(y).utf8.span)
    }
    bytes.append(UInt8(ascii: "-"))
    two(m)
    bytes.append(UInt8(ascii: "-"))
    two(d)
    bytes.append(UInt8(ascii: "T"))
    two(secs / 3_600)
    bytes.append(UInt8(ascii: ":"))
    two(secs / 60 % 60)
    bytes.append(UInt8(ascii: ":"))
    two(secs % 60)
    bytes.append(UInt8(ascii: "Z"))
  }
}
