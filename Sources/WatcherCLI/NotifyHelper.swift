// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherState
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The notifications of a `watcher poll`, held after it exits so that their buttons and clicks still work.
///
/// A notification's clicks reach only the bus connection that sent it, and a poll exits at once. So when the
/// server has buttons (`actions`), the poll hands its notifications to a helper: `watcher` itself, started
/// detached (its own session) with the internal first argument `__notify-helper`. The helper shows each
/// notification it reads on stdin (one JSON object a line) and answers "ok" or "error: WHY" on stdout, so
/// the poll still knows what was shown. Once the poll closes the pipe, the helper stays until every
/// notification with buttons is closed (clicked, dismissed or expired), at most `maxLife`, then exits.
enum NotifyHelper {
  static let argument = "__notify-helper"
  /// The longest a helper holds notifications.
  static let maxLife: TimeInterval = 3_600

  /// The helper's main: `__notify-helper STATE_DIR SNOOZE_SECONDS CONFIG`.
  static func main(_ arguments: [String], terminal: Terminal) -> Int32 {
    guard arguments.count == 4, let snooze = Int(arguments[2]) else { return ExitCode.usage.rawValue }
    let (directory, config) = (arguments[1], arguments[3])
    let environment = terminal.environment
    let notifier = LibnotifyNotifier(
      environment: environment,
      clicks: StoreClicks(directory: directory, snoozeFor: snooze) { click in
        // The click is recorded; its hook runs now, as `watcher pending --retry KEY` runs an item's pending
        // actions (or at the next poll, if that cannot start now).
        Self.spawn(["pending", "--retry", click.key, "--config", config, "--state-dir", directory], pipes: false)
      }, bubbles: directory + "/bubbles.json")
    let started = Date()
    while let line = readLine(strippingNewline: true) {
      guard let data = line.data(using: .utf8),
        let notification = try? JSONDecoder().decode(DesktopNotification.self, from: data)
      else {
        answer("error: the helper could not read the notification")
        continue
      }
      do {
        try notifier.show(notification)
        answer("ok")
      } catch {
        answer("error: \(error)".replacing("\n", with: " "))
      }
    }
    // The poll is done: hold the notifications until they are closed, or for at most an hour, or until the
    // session ends (the bus or its server is gone: nothing can be clicked any more).
    var checked = Date()
    while notifier.openWithButtons > 0, Date().timeIntervalSince(started) < maxLife {
      sleep(1)
      if Date().timeIntervalSince(checked) >= 5 {
        checked = Date()
        if (try? notifier.serverInfo()) == nil { break }
      }
    }
    return ExitCode.success.rawValue
  }

  /// One answer line to the poll, unbuffered.
  private static func answer(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
  }

  /// Starts `watcher ARGUMENTS` detached (a session of its own, every signal at its default), with pipes to
  /// its stdin and from its stdout when `pipes`.
  @discardableResult
  static func spawn(_ arguments: [String], pipes: Bool) -> (pid: pid_t, input: Int32, output: Int32)? {
    var attributes = HookRunner.spawnAttributes(newProcessGroup: false, newSession: true)
    defer { posix_spawnattr_destroy(&attributes) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var toChild: [Int32] = [-1, -1]
    var fromChild: [Int32] = [-1, -1]
    if pipes {
      guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { return nil }
      posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
      posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
      for fd in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, fd) }
    } else {
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    }
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let program = "/proc/self/exe"
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: program)) ?? program
    var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let failed = posix_spawn(&pid, executable, &actions, &attributes, &argv, environ) != 0
    if pipes {
      close(toChild[0])
      close(fromChild[1])
    }
    guard !failed else {
      if pipes { for fd in [toChild[1], fromChild[0]] { close(fd) } }
      return nil
    }
    // Reaped while this process lives; once it exits, init takes over.
    let child = pid
    Threads.spawn { waitpid(child, nil, 0) }
    return (pid, toChild[1], fromChild[0])
  }
}

/// A notifier that hands each notification to a `NotifyHelper` (started at the first one), so that its
/// clicks outlive the poll; when no helper can be started or answers, it shows them itself.
final class HelperNotifier: Notifier, @unchecked Sendable {
  private let direct: LibnotifyNotifier
  private let arguments: [String]
  private let lock = Lock()
  private var helper: (input: Int32, output: Int32)?
  private var failed = false

  init(direct: LibnotifyNotifier, stateDirectory: String, snooze: Int, configPath: String) {
    self.direct = direct
    arguments = [NotifyHelper.argument, stateDirectory, String(snooze), configPath]
  }

  deinit {
    if let helper {
      close(helper.input)
      close(helper.output)
    }
  }

  func show(_ notification: DesktopNotification) throws(ActionError) {
    let answer: String? = lock.withLock {
      // A server without buttons gets the notifications from here: there is nothing to click.
      if helper == nil, !failed, !direct.serverCapabilities().actions { failed = true }
      if helper == nil, !failed {
        if let started = NotifyHelper.spawn(arguments, pipes: true) {
          helper = (started.input, started.output)
        } else {
          failed = true
        }
      }
      guard let helper, let json = try? JSONEncoder().encode(notification) else { return nil }
      let line = Array(json) + [10]
      guard line.withUnsafeBytes({ write(helper.input, $0.baseAddress, $0.count) }) == line.count else {
        return nil
      }
      return Self.readLine(helper.output, timeout: 15)
    }
    switch answer {
    case "ok": return
    case let text? where text.hasPrefix("error: "):
      throw .notificationService(String(text.dropFirst("error: ".count)))
    default:
      // No helper, or it did not answer: shown here (its buttons work only while this process lives).
      lock.withLock { failed = true }
      try direct.show(notification)
    }
  }

  /// One line from `fd`, within `timeout` seconds; nil at its end or on timeout.
  private static func readLine(_ fd: Int32, timeout: Int) -> String? {
    var bytes: [UInt8] = []
    let deadline = Date().addingTimeInterval(Double(timeout))
    while bytes.count < 65_536 {
      var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let left = Int32(max(0, deadline.timeIntervalSinceNow * 1_000))
      guard poll(&ready, 1, left) > 0 else { return nil }
      var byte: UInt8 = 0
      guard read(fd, &byte, 1) == 1 else { return nil }
      if byte == 10 { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
    return nil
  }
}
