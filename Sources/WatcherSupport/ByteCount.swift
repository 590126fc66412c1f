// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Human-readable byte counts ("20 MB") for messages.
public enum ByteCount {
  /// Formats `bytes` with a decimal unit, as users write sizes in the config ("20 MB", "512 KB").
  public static func format(_ bytes: Int) -> String {
    let units: [(Int, String)] = [(1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB")]
    for (size, unit) in units where bytes >= size {
      let value = Double(bytes) / Double(size)
      return value == value.rounded() ? "\(Int(value)) \(unit)" : "\((value * 10).rounded() / 10) \(unit)"
    }
    return "\(bytes) bytes"
  }
}
