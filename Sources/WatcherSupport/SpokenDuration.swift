// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// A length of time as messages say it: "40 s", "3 min", "5 h", "2 d".
public enum SpokenDuration {
  /// `seconds` rounded down to its largest unit (seconds below a minute, hours from one to 48, then days).
  public static func text(_ seconds: TimeInterval) -> String {
    let magnitude = Int(min(abs(seconds), 1e12))
    switch magnitude {
    case ..<60: return "\(magnitude) s"
    case ..<3_600: return "\(magnitude / 60) min"
    case ..<172_800: return "\(magnitude / 3_600) h"
    default: return "\(magnitude / 86_400) d"
    }
  }
}
