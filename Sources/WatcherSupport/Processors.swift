// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// How many processors this process may use at once: what threads and hooks are sized by.
///
/// `ProcessInfo.activeProcessorCount` counts the processors online, also for a process pinned to fewer
/// (`taskset -c 0`, a systemd unit's `CPUAffinity=`) or held to less by its cgroup (`docker --cpus=1`,
/// `CPUQuota=`). A parse there kept a second thread that could only take turns with the first on one
/// processor, handing every batch of items over and switching back (docs/benchmarks.md).
public enum Processors {
  /// The processors the process may run on, fewer when its cgroup's CPU quota allows less; at least 1.
  public static let available: Int = count(
    allowedList: line(named: "Cpus_allowed_list:", inFile: "/proc/self/status"),
    quotas: cgroupQuotas(),
    online: ProcessInfo.processInfo.activeProcessorCount)

  /// `allowedList` is `/proc/self/status`'s `Cpus_allowed_list` (`0-3,8`); each of `quotas` a cgroup v2
  /// `cpu.max` (`max 100000`, `150000 100000`): the processors listed, no more than the smallest quota
  /// rounded up, and `online` when the list cannot be read.
  package static func count(allowedList: String?, quotas: [String], online: Int) -> Int {
    var processors = allowedList.flatMap(countListed) ?? online
    for quota in quotas {
      let fields = quota.split(separator: " ")
      guard fields.count == 2, let limit = Int(fields[0]), let period = Int(fields[1]), limit > 0, period > 0
      else { continue }
      processors = min(processors, limit / period + (limit % period == 0 ? 0 : 1))
    }
    return max(1, processors)
  }

  /// The number of processors in a list such as `0-3,8,10-11`; `nil` if it is not one.
  private static func countListed(_ list: String) -> Int? {
    var total = 0
    for part in list.split(separator: ",") {
      let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
      guard let first = bounds.first.flatMap({ Int($0) }) else { return nil }
      let last = bounds.count == 2 ? Int(bounds[1]) : (bounds.count == 1 ? first : nil)
      guard let last, last >= first, last - first < 1 << 20 else { return nil }
      total += last - first + 1
    }
    return total > 0 ? total : nil
  }

  /// The `cpu.max` of the process's cgroup (v2) and of each one above it.
  private static func cgroupQuotas() -> [String] {
    guard let entry = line(named: "0::", inFile: "/proc/self/cgroup"), entry.hasPrefix("/") else { return [] }
    var quotas: [String] = []
    var path = entry
    while true {
      if let quota = line(named: "", inFile: "/sys/fs/cgroup" + (path == "/" ? "" : path) + "/cpu.max") {
        quotas.append(quota)
      }
      guard path != "/", let slash = path.lastIndex(of: "/") else { break }
      path = slash == path.startIndex ? "/" : String(path[..<slash])
    }
    return quotas
  }

  /// What follows `name` on the first line of `path` that starts with it (the first line for ""), trimmed.
  private static func line(named name: String, inFile path: String) -> String? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
    return text.split(separator: "\n").first { $0.hasPrefix(name) }?.dropFirst(name.count).trimming(.spaces)
  }
}
