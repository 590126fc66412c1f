// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherSupport

/// The shell's own syntax check of a hook's command: `/bin/sh -n -c COMMAND`, which reads it without running
/// any of it.
///
/// One process (posix_spawn), not a hook's supervisor and shell: `check` runs it for every hook, and the
/// command never runs, so there is no process tree to contain. It still ends in `timeout` seconds.
enum ShellSyntax {
  /// nil when the command is valid shell, else the shell's message (or what stopped it).
  static func problem(_ command: String, timeout: Double = 5) -> String? {
    var attributes = HookRunner.spawnAttributes(newProcessGroup: true, newSession: false)
    defer { posix_spawnattr_destroy(&attributes) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var errors: [Int32] = [-1, -1]
    guard pipe(&errors) == 0 else { return "no pipe for the shell: \(String(cString: strerror(errno)))" }
    defer { close(errors[0]) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
    var argv: [UnsafeMutablePointer<CChar>?] =
      ["/bin/sh", "-n", "-c", command].map { (word: String) in strdup(word) } + [nil]
    var envp: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, &envp)
    close(errors[1])
    guard spawned == 0 else { return "/bin/sh could not start: \(String(cString: strerror(spawned)))" }
    // The shell's message (the first 4 KB), until it closes stderr or the time is up.
    var message: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4_096)
    let deadline = Date().addingTimeInterval(timeout)
    var timedOut = false
    while true {
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else {
        timedOut = true
        break
      }
      var poller = pollfd(fd: errors[0], events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(min(left * 1_000, 1_000).rounded(.up)))
      if ready < 0, errno == EINTR { continue }
      if ready == 0 { continue }
      let n = buffer.withUnsafeMutableBytes { read(errors[0], $0.baseAddress, $0.count) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { break }
      if message.count < 4_096 { message += buffer[..<n] }
    }
    if timedOut { kill(-pid, SIGKILL) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    if timedOut { return "the syntax check did not finish in \(Int(timeout)) seconds" }
    let exited = status & 0x7f == 0
    if exited, (status >> 8) & 0xff == 0 { return nil }
    let text = String(decoding: message, as: UTF8.self).replacing("/bin/sh: ", with: "").trimming()
    if !text.isEmpty { return text }
    return exited
      ? "the shell exited with status \((status >> 8) & 0xff)" : "the shell was killed by signal \(status & 0x7f)"
  }
}
