// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// A host that answered 429 or 503: none of its feeds is polled before `until`.
///
/// Kept in `hosts.json` of the state directory, so that a `watcher poll` from cron holds the host as the
/// daemon does. Without `Retry-After` a host is held a minute, doubling with each throttled pass in a row
/// (up to an hour); a success from the host clears it.
public struct HostHold: Sendable, Equatable {
  public var until: Date
  /// Throttled passes in a row.
  public var throttles: Int

  public init(until: Date, throttles: Int) {
    self.until = until
    self.throttles = throttles
  }

  /// The most hosts kept (those held longest).
  public static let maxCount = 10_000

  /// The hold after another 429/503 from a host held `before` times in a row.
  public static func next(after before: HostHold?, retryAfter: Int?, now: Date) -> HostHold {
    let throttles = min((before?.throttles ?? 0) + 1, 1_000)
    let backoff = min(60 << min(throttles - 1, 6), 3_600)
    let seconds = retryAfter.map { min(max($0, 1), 7 * 86_400) } ?? backoff
    return HostHold(until: now.addingTimeInterval(Double(seconds)), throttles: throttles)
  }
}

extension StateStore {
  /// The held hosts' file.
  public var hostsPath: String { directory + "/hosts.json" }

  /// The hosts held, by host; none when the file is missing or corrupt.
  public func hostHolds(readOnly: Bool = false) throws(StateError) -> [String: HostHold] {
    try readShared(hostsPath, readOnly: readOnly) { json in
      var holds: [String: HostHold] = [:]
      try json.object { json, key in
        guard key == "hosts" else { return try json.skipValue() }
        try json.object { json, host in
          var (until, throttles): (Date?, Int) = (nil, 1)
          try json.object { json, member in
            switch member {
            case "until": until = try json.optional { try $0.date() }
            case "throttles": throttles = min(max(try json.optional { try $0.int() } ?? 1, 1), 1_000)
            default: try json.skipValue()
            }
          }
          if let until, holds.count < HostHold.maxCount { holds[host] = HostHold(until: until, throttles: throttles) }
        }
      }
      return holds
    } ?? [:]
  }

  /// Saves the holds that have not ended by `now` (or whose host was throttled again since), at most
  /// `HostHold.maxCount`; removes the file when none is left.
  public func saveHostHolds(_ holds: [String: HostHold], now: Date) throws(StateError) {
    let kept = holds.filter { $0.value.until > now.addingTimeInterval(-86_400) }.sorted {
      $0.value.until > $1.value.until
    }
    .prefix(HostHold.maxCount)
    guard !kept.isEmpty else {
      unlink(hostsPath)
      return
    }
    var json = PrettyJSON()
    json.object { json in
      json.key("hosts")
      json.object { json in
        for (host, hold) in kept.sorted(by: { $0.key < $1.key }) {
          json.key(host)
          json.object { json in
            json.member("throttles", hold.throttles)
            json.member("until", hold.until)
          }
        }
      }
      json.member("version", 1)
    }
    try Self.writeAtomically(Data(json.document()), to: hostsPath, directory: directory)
  }
}
