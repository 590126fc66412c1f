// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// What SIGINT and SIGTERM do to `poll`, `catch-up` and `run`.
///
/// At once: no new fetch, no new hook (`stopping`). Running hooks get `hookGrace` to finish; then they and
/// every process they started are killed (`killing`). Whatever did not finish stays pending in the state
/// and runs on the next poll.
final class Shutdown: Sendable {
  /// How long running hooks may go on after SIGINT/SIGTERM.
  static let hookGrace: TimeInterval = 2

  /// Set at the first SIGINT/SIGTERM: start nothing new.
  let stopping = Cancellation()
  /// Set `hookGrace` later: kill the hooks still running.
  let killing = Cancellation()
  private let received = Atomic<Int32>(0)

  /// The signal that started the shutdown, if one did.
  var signal: Int32? {
    let value = received.load(ordering: .relaxed)
    return value == 0 ? nil : value
  }

  /// Starts the shutdown (once; a second signal kills running hooks at once).
  func begin(signal: Int32) {
    if received.compareExchange(expected: 0, desired: signal, ordering: .relaxed).exchanged {
      stopping.cancel()
      let killing = killing
      DispatchQueue.global().asyncAfter(deadline: .now() + Self.hookGrace) { killing.cancel() }
    } else {
      killing.cancel()
    }
  }

  /// Routes SIGINT and SIGTERM (and `extra`) to this shutdown, when the process blocked them at start
  /// (the built binary does; in-process tests do not, and get no signal thread).
  func install(extra: [Int32] = [], handler: (@Sendable (Int32) -> Void)? = nil) {
    guard SignalWaiter.signalsBlocked else { return }
    SignalWaiter.start([SIGINT, SIGTERM] + extra) { [self] signal in
      if signal == SIGINT || signal == SIGTERM || handler == nil { begin(signal: signal) }
      handler?(signal)
    }
  }
}

/// Receives signals on a dedicated thread with `sigwait`: the signals are blocked in every thread from the
/// start of the process (`WatcherCLI.prepareProcess`), so none is ever delivered elsewhere or missed.
/// (A DispatchSource signal handler missed one SIGTERM in three runs here; sigwait never did.)
enum SignalWaiter {
  private static let blocked = Atomic<Bool>(false)

  /// Whether `block` ran in this process.
  static var signalsBlocked: Bool { blocked.load(ordering: .relaxed) }

  static func start(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
    Threads.spawn {
      var set = sigset_t()
      sigemptyset(&set)
      for signal in signals { sigaddset(&set, signal) }
      while true {
        var received: Int32 = 0
        if sigwait(&set, &received) == 0 { handler(received) }
      }
    }
  }

  /// Blocks `signals` in the calling thread (and so in every thread it starts afterwards).
  static func block(_ signals: [Int32]) {
    var set = sigset_t()
    sigemptyset(&set)
    for signal in signals { sigaddset(&set, signal) }
    pthread_sigmask(SIG_BLOCK, &set, nil)
    blocked.store(true, ordering: .relaxed)
  }
}
