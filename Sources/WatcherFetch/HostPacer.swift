// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import Synchronization

/// Politeness to hosts: requests to one host start at least `gap` apart, and a host that answered 429 or
/// 503 gets no more requests while it asked to wait (the rest of the pass, or its `Retry-After`).
///
/// Shared by every fetch of a process (the batches of a pass, the passes of the daemon). Hosts on this
/// machine (localhost, 127.0.0.0/8, ::1) have a gap of their own, none by default: they are the user's.
public final class HostPacer: Sendable {
  private let gap: Duration
  private let localGap: Duration
  private struct Host {
    var nextStart: ContinuousClock.Instant
    var heldUntil: ContinuousClock.Instant?
  }
  private let hosts = Mutex<[String: Host]>([:])

  /// `gap` and `localGap` in seconds.
  public init(gap: Double, localGap: Double = 0) {
    self.gap = .milliseconds(Int64(max(0, gap) * 1_000))
    self.localGap = .milliseconds(Int64(max(0, localGap) * 1_000))
  }

  /// The pacer the settings ask for.
  ///
  /// `host_gap` for every host when written, else 1 s for other hosts and none for this machine's. A 429 or
  /// 503 holds any host, this machine's too.
  public convenience init(hostGap: Double?) {
    self.init(gap: hostGap ?? 1, localGap: hostGap ?? 0)
  }

  /// Whether `host` (as `host(of:)` gives it) names this machine.
  public static func isLocal(_ host: String) -> Bool {
    var bare = host.lowercased()
    if bare.hasPrefix("[") {
      bare = String(bare.dropFirst().prefix { $0 != "]" })
    } else if let colon = bare.lastIndex(of: ":") {
      bare = String(bare[..<colon])
    }
    return bare == "localhost" || bare.hasSuffix(".localhost") || bare == "::1" || bare.hasPrefix("127.")
  }

  /// What a request to `host` may do now.
  public enum Slot: Equatable, Sendable {
    /// Start now (the slot is taken).
    case start
    /// Wait this long first.
    case wait(Duration)
    /// Not at all: the host asked to wait (429/503) this much longer.
    case held(seconds: Int)
  }

  /// Takes the next slot for `host` when it is free.
  public func reserve(_ host: String, now: ContinuousClock.Instant = .now) -> Slot {
    let gap = Self.isLocal(host) ? localGap : gap
    return hosts.withLock { hosts in
      var entry = hosts[host] ?? Host(nextStart: now)
      if let held = entry.heldUntil, held > now {
        return .held(seconds: Int((held - now).components.seconds) + 1)
      }
      if entry.nextStart > now { return .wait(entry.nextStart - now) }
      entry.nextStart = now + gap
      hosts[host] = entry
      return .start
    }
  }

  /// Holds `host` for `seconds` (it answered 429 or 503).
  public func hold(_ host: String, seconds: Int, now: ContinuousClock.Instant = .now) {
    hosts.withLock { hosts in
      var entry = hosts[host] ?? Host(nextStart: now)
      let until = now + .seconds(max(1, seconds))
      entry.heldUntil = max(entry.heldUntil ?? until, until)
      hosts[host] = entry
    }
  }

  /// The server a URL names ("" when there is none).
  ///
  /// Its host, lower-cased, with its port unless it is the scheme's default (`example.org`,
  /// `127.0.0.1:8080`, `[::1]:8080`). Two ports of one machine are two servers.
  public static func host(of url: String) -> String {
    guard let parts = URLComponents(string: url), let host = parts.host?.lowercased(), !host.isEmpty else { return "" }
    let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    let standard = parts.scheme?.lowercased() == "https" ? 443 : 80
    guard let port = parts.port, port != standard else { return name }
    return "\(name):\(port)"
  }
}
