// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Notification urgency (Desktop Notifications spec), ordered low < normal < critical.
public enum Urgency: String, Sendable, Equatable, CaseIterable, Comparable, Codable {
  case low, normal, critical

  /// Reads an urgency from a state file; a value this version does not know is `normal`, so a pending
  /// notification is never lost over it.
  public init(from decoder: any Decoder) throws {
    self = Urgency(rawValue: try decoder.singleValueContainer().decode(String.self)) ?? .normal
  }

  public static func < (a: Urgency, b: Urgency) -> Bool {
    allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
  }
}
