// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherPoll

/// The words for what became of notifications that could not be shown, shared by `poll` and `run`.
enum KeptReport {
  /// Lines for the end of a pass; `keptNow` is how many were kept during it.
  static func lines(_ pass: Poller.Pass, keptNow: Int) -> [String] {
    var lines: [String] = []
    if pass.keptShown > 0 {
      lines.append(
        pass.keptShown == 1
          ? "showed 1 notification kept from an earlier poll"
          : "showed \(pass.keptShown) notifications kept from earlier polls as one \"while you were away\" summary")
    }
    for (rule, items) in pass.digestsShown {
      lines.append("sent the digest of rule '\(rule)' (\(items) item\(items == 1 ? "" : "s"))")
    }
    for problem in pass.digestProblems + pass.clickProblems { lines.append("error: \(problem)") }
    if pass.keptDropped > 0 {
      lines.append(
        "warning: gave up on \(pass.keptDropped) kept notification\(pass.keptDropped == 1 ? "" : "s") "
          + "(older than settings.notify.keep_for, or more than keep_max)")
    }
    if keptNow > 0 || pass.keptError != nil && pass.keptWaiting > 0 {
      let count = pass.keptWaiting
      lines.append(
        "\(count) notification\(count == 1 ? " is" : "s are") kept; "
          + "they are shown when the notification service is back (on a later poll)")
    }
    return lines
  }
}

extension Poller.Outcome {
  /// The feed's failures in words, joined: a load error and the save error that followed it.
  var failureText: String { failures.map(\.description).joined(separator: "; ") }
}
