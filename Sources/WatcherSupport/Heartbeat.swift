// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Synchronization

/// Signs of life for a supervisor such as systemd's watchdog.
///
/// The daemon installs what a beat does (send `WATCHDOG=1`) and how often at most. The loops that wait on
/// work with a bound of its own (a hook under its timeout, a webhook or picture under its deadline) call
/// `beat()` as they wait, so a batch of hooks longer than the watchdog's interval is not taken for a hang;
/// a thread that is truly stuck (not in such a loop) stops beating, and the supervisor restarts it.
public enum Heartbeat {
  private struct Installed: Sendable {
    var send: @Sendable () -> Void
    var every: Duration
    var last: ContinuousClock.Instant
  }

  private static let installed = Mutex<Installed?>(nil)

  /// Makes `beat()` call `send`, at most once every `every` seconds; nil: beats do nothing.
  public static func install(every: TimeInterval?, _ send: @escaping @Sendable () -> Void) {
    installed.withLock {
      $0 = every.map {
        Installed(send: send, every: .milliseconds(Int64($0 * 1_000)), last: ContinuousClock.now - .seconds(3_600))
      }
    }
  }

  /// A sign of life: sends one when the last was long enough ago.
  ///
  /// Cheap enough for a loop's every turn.
  public static func beat() {
    let now = ContinuousClock.now
    let send: (@Sendable () -> Void)? = installed.withLock { installed in
      guard let current = installed, now - current.last >= current.every else { return nil }
      installed?.last = now
      return current.send
    }
    send?()
  }
}
