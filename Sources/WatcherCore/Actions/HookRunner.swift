// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What a hook run came to.
public struct HookResult: Sendable, Equatable {
  /// The exit status, when the hook exited.
  public var exitStatus: Int32?
  /// The signal that ended it, when one did.
  public var signal: Int32?
  /// Whether watcher ended it for running past its timeout.
  public var timedOut: Bool
  /// The last few lines of its standard error (for the log).
  public var stderrTail: String
  /// How much it wrote to standard output (kept only as a count; its output is not used).
  public var stdoutBytes: Int

  /// Whether the hook succeeded (exit 0).
  public var succeeded: Bool { exitStatus == 0 && !timedOut }

  /// "exit 3", "killed by signal 9", "timed out after 30 s".
  public func describe(timeout: Int) -> String {
    if timedOut { return "timed out after \(timeout) s; its process group was killed" }
    if let signal { return "killed by signal \(signal)" }
    return "exit \(exitStatus ?? -1)"
  }
}

/// Runs a hook: `/bin/sh -c COMMAND` with COMMAND exactly as the user wrote it (SPEC §8).
///
/// Item data reaches the hook only through its environment and standard input, never through the command
/// text, so a title such as `$(rm -rf ~)` is data. The child starts with an empty signal mask and default
/// signal dispositions (watcher blocks or ignores some), in a process group of its own; on timeout the whole
/// group gets SIGTERM, then SIGKILL a second later. Standard output and error are read while the hook runs,
/// so a chatty hook never blocks on a full pipe. The corresponding C functions are `posix_spawn`, `poll`,
/// `kill` and `waitpid`.
public enum HookRunner {
  /// Spawn attributes for a child that starts clean.
  ///
  /// An empty signal mask and every signal at its default (the daemon blocks SIGINT/SIGTERM/SIGHUP for its
  /// signal thread; a child must not inherit that), and optionally a process group of its own so a timeout
  /// can kill all of it. The caller destroys them.
  static func spawnAttributes(newProcessGroup: Bool) -> posix_spawnattr_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    var empty = sigset_t()
    sigemptyset(&empty)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &all)
    var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
    if newProcessGroup {
      posix_spawnattr_setpgroup(&attributes, 0)
      flags |= POSIX_SPAWN_SETPGROUP
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))
    return attributes
  }

  /// Runs `command` with `environment` (the whole environment of the child) and `input` on its stdin.
  public static func run(command: String, environment: [String: String], input: Data, timeout: Int) -> HookResult {
    var stdinPipe: [Int32] = [0, 0]
    var stdoutPipe: [Int32] = [0, 0]
    var stderrPipe: [Int32] = [0, 0]
    guard makePipe(&stdinPipe), makePipe(&stdoutPipe), makePipe(&stderrPipe) else {
      return HookResult(
        timedOut: false, stderrTail: "cannot create pipes: \(String(cString: strerror(errno)))", stdoutBytes: 0)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
    posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
    var attributes = Self.spawnAttributes(newProcessGroup: true)
    defer { posix_spawnattr_destroy(&attributes) }

    let arguments = ["/bin/sh", "-c", command]
    let environmentStrings = environment.map { "\($0.key)=\($0.value)" }
    var pid: pid_t = 0
    let spawned = withCStrings(arguments) { argv in
      withCStrings(environmentStrings) { envp in
        posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
      }
    }
    close(stdinPipe[0])
    close(stdoutPipe[1])
    close(stderrPipe[1])
    guard spawned == 0 else {
      close(stdinPipe[1])
      close(stdoutPipe[0])
      close(stderrPipe[0])
      return HookResult(
        timedOut: false, stderrTail: "cannot start /bin/sh: \(String(cString: strerror(spawned)))", stdoutBytes: 0)
    }

    // Feed stdin, drain stdout and stderr, all from one poll loop, until both outputs close or time runs out.
    let deadline = Date().addingTimeInterval(Double(timeout))
    var pending = [UInt8](input)
    var inputFD: Int32 = stdinPipe[1]
    if pending.isEmpty {
      close(inputFD)
      inputFD = -1
    } else {
      _ = fcntl(inputFD, F_SETFL, fcntl(inputFD, F_GETFL) | O_NONBLOCK)
    }
    var open = [stdoutPipe[0], stderrPipe[0]]
    var stderr: [UInt8] = []
    var stdoutBytes = 0
    var timedOut = false
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while !open.isEmpty {
      let remaining = deadline.timeIntervalSinceNow
      if remaining <= 0 {
        timedOut = true
        break
      }
      var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      if inputFD >= 0 { fds.append(pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0)) }
      let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining, 1) * 1_000))
      if ready < 0, errno != EINTR { break }
      for entry in fds where entry.revents != 0 {
        if entry.fd == inputFD {
          let written = pending.withUnsafeBytes { write(inputFD, $0.baseAddress, $0.count) }
          if written > 0 { pending.removeFirst(written) }
          if written < 0 && errno != EAGAIN || pending.isEmpty {
            close(inputFD)
            inputFD = -1
          }
          continue
        }
        let n = read(entry.fd, &buffer, buffer.count)
        if n <= 0 {
          close(entry.fd)
          open.removeAll { $0 == entry.fd }
        } else if entry.fd == stderrPipe[0] {
          stderr.append(contentsOf: buffer[0..<n])
          if stderr.count > 8_192 { stderr.removeFirst(stderr.count - 8_192) }
        } else {
          stdoutBytes += n
        }
      }
    }
    if inputFD >= 0 { close(inputFD) }
    if timedOut {
      kill(-pid, SIGTERM)
      for _ in 0..<20 where waitpid(pid, nil, WNOHANG) == 0 { usleep(50_000) }
      kill(-pid, SIGKILL)
    }
    for fd in open { close(fd) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    let exited = status & 0x7F == 0
    let tail = String(decoding: stderr, as: UTF8.self).split(separator: "\n").suffix(5).joined(separator: "\n")
    return HookResult(
      exitStatus: exited ? (status >> 8) & 0xFF : nil, signal: exited ? nil : status & 0x7F, timedOut: timedOut,
      stderrTail: tail, stdoutBytes: stdoutBytes)
  }

  /// A pipe whose ends are closed on exec (the child gets only the dup2'd copies), so no other hook or
  /// child inherits them.
  private static func makePipe(_ fds: inout [Int32]) -> Bool {
    guard pipe(&fds) == 0 else { return false }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return true
  }

  /// A NULL-terminated `char *[]` for the duration of `body`.
  private static func withCStrings<R>(
    _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R
  ) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeBufferPointer { buffer in
      // A non-empty array always has a base address.
      body(buffer.baseAddress.unsafelyUnwrapped)
    }
  }
}
