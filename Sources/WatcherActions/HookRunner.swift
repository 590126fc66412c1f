// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CHookSupervisor
import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherSupport

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
  /// Whether watcher ended it because watcher itself was stopping (the action stays pending).
  public var cancelled = false
  /// Why it could not be started, when it could not.
  public var startError: String?
  /// The last few lines of its standard error (for the log).
  public var stderrTail: String
  /// How much it wrote to standard output (kept only as a count; its output is not used).
  public var stdoutBytes: Int

  /// Whether the hook succeeded (exit 0).
  public var succeeded: Bool { exitStatus == 0 && !timedOut && !cancelled && startError == nil }

  /// "exit 3", "killed by signal 9", "timed out after 30 s", "cannot start …".
  public func describe(timeout: Int) -> String {
    if let startError { return startError }
    if timedOut { return "timed out after \(timeout) s; it and every process it started were killed" }
    if cancelled { return "stopped because watcher was stopping" }
    if let signal { return "killed by signal \(signal)" }
    return "exit \(exitStatus ?? -1)"
  }
}

/// Runs a hook: `/bin/sh -c COMMAND` with COMMAND exactly as the user wrote it.
///
/// Item data reaches the hook only through its environment and standard input, never through the command
/// text, so a title such as `$(rm -rf ~)` is data.
///
/// Each hook runs under a supervisor, a small forked process (CHookSupervisor) that is a child subreaper:
/// every process the hook starts stays below it, even one that leaves the hook's process group with
/// `setsid`. The supervisor measures the timeout from start to exit, whatever the hook does with its
/// output, and on timeout (or when watcher stops, or dies) it kills every process below it: SIGTERM, a
/// short grace, then SIGKILL. The hook's own exit decides its outcome: once it has exited, watcher reads
/// what is left of its output for a short, bounded grace and stops, so a background child that keeps
/// the output pipe open never holds watcher up. Standard output and error are read while the hook runs,
/// so a chatty hook never blocks on a full pipe.
public enum HookRunner {
  /// How long processes get between SIGTERM and SIGKILL.
  package static let killGraceMilliseconds = 1_000
  /// How long watcher keeps reading a hook's output after the hook exited.
  package static let outputGrace: TimeInterval = 0.25

  /// Starts the process that forks hook supervisors, while this process is still small and has one
  /// thread (call it first thing in `main`; otherwise it starts on the first hook).
  public static func prepare() { watcher_hook_zygote_start() }

  /// Ends the supervisors and waits for them, 2 s at most.
  ///
  /// The hooks' CPU time is then counted as this process's children's (`time watcher poll`). Call last.
  public static func finish() { watcher_hook_zygote_finish() }

  /// Spawn attributes for a child that starts clean (used by `LinkOpener`).
  ///
  /// An empty signal mask and every signal at its default (the daemon blocks SIGINT/SIGTERM/SIGHUP for its
  /// signal thread; a child must not inherit that), and optionally a process group or a session of its own. The caller
  /// destroys them.
  package static func spawnAttributes(newProcessGroup: Bool, newSession: Bool = false) -> posix_spawnattr_t {
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
    // A session of its own (glibc's POSIX_SPAWN_SETSID): detached from the terminal and its signals.
    if newSession { flags |= 0x80 }
    posix_spawnattr_setflags(&attributes, Int16(flags))
    return attributes
  }

  /// Runs `command` with `environment` (the whole environment of the child) and `input` on its stdin.
  ///
  /// A command that only starts one program with literal words (`sh -c 'CODE'`, `~/bin/hook.sh`) starts it
  /// without a shell in between (`HookProgram.directProgram`). Setting `stop` ends the hook and everything
  /// it started at once (the result is `cancelled`).
  public static func run(
    command: String, environment: [String: String], input: Data, timeout: Int, stop: Cancellation? = nil
  ) -> HookResult {
    let (program, arguments) =
      HookProgram.directProgram(of: command, environment: environment) ?? ("/bin/sh", ["/bin/sh", "-c", command])
    return run(
      program: program, arguments: arguments, environment: environment, input: input, timeout: timeout, stop: stop)
  }

  /// Interpreters whose first argument, when it is a file, is the code they run.
  static let interpreters: Set<String> = [
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "python", "python3", "perl", "ruby", "node", "lua", "php",
  ]

  /// Why the hook's program (or the script an interpreter is given) must not run: a file another user owns
  /// or can write could run their code as you (SECURITY.md, "Files other users control").
  static func untrusted(program: String, arguments: [String]) -> String? {
    if let problem = FileSafety.trustedFileProblem(program) { return "not run: the hook's program \(problem)" }
    let name = program.split(separator: "/").last.map(String.init) ?? program
    guard interpreters.contains(name) || name.hasPrefix("python3."), arguments.count > 1,
      !arguments[1].hasPrefix("-"), FileManager.default.fileExists(atPath: arguments[1])
    else { return nil }
    return FileSafety.trustedFileProblem(arguments[1]).map { "not run: the hook's script \($0)" }
  }

  /// Runs `program` (an absolute path) with `arguments` (argv, its own name first).
  ///
  /// The supervisor runs a shell script, or the system shell under any name on code or a script, in its
  /// kept shell.
  public static func run(
    program: String, arguments: [String], environment: [String: String], input: Data, timeout: Int,
    stop: Cancellation? = nil
  ) -> HookResult {
    if let problem = untrusted(program: program, arguments: arguments) {
      return HookResult(timedOut: false, startError: problem, stderrTail: "", stdoutBytes: 0)
    }
    // stdin, stdout and stderr; the supervisor reports on its own socket.
    var pipes: [[Int32]] = []
    defer { for fd in pipes.joined() where fd >= 0 { close(fd) } }
    for _ in 0..<3 {
      var fds: [Int32] = [-1, -1]
      guard watcher_cloexec_pipe(&fds) == 0 else {
        return HookResult(
          timedOut: false, startError: "cannot create pipes: \(String(cString: strerror(errno)))", stderrTail: "",
          stdoutBytes: 0)
      }
      pipes.append(fds)
    }
    var argv = CStringList(capacity: arguments.count)
    for argument in arguments { argv.append(argument) }
    var envp = CStringList(capacity: environment.count)
    for (name, value) in environment { envp.append(name, value) }
    let supervisor = argv.withPointers { argv in
      envp.withPointers { envp in
        watcher_hook_spawn(
          program, argv, envp, pipes[0][0], pipes[1][1], pipes[2][1], timeout * 1_000, killGraceMilliseconds)
      }
    }
    guard supervisor >= 0 else {
      return HookResult(
        timedOut: false, startError: "cannot start a hook: \(String(cString: strerror(-supervisor)))",
        stderrTail: "", stdoutBytes: 0)
    }
    // The child's ends belong to the supervisor now; watcher keeps the others.
    func take(_ pipe: Int, _ end: Int) -> Int32 {
      let fd = pipes[pipe][end]
      pipes[pipe][end] = -1
      return fd
    }
    for (pipe, end) in [(0, 0), (1, 1), (2, 1)] { close(take(pipe, end)) }
    var session = Session(
      input: [UInt8](input), inputFD: take(0, 1), outputFD: take(1, 0), errorFD: take(2, 0), supervisor: supervisor)
    session.run(timeout: timeout, stop: stop)
    // A supervisor whose hook is done takes the next one, unless it retired, was stopped or never reported.
    let reusable = !session.stopSent && session.report.map { $0.reusable != 0 } == true
    watcher_hook_release(supervisor, reusable ? 1 : 0)
    return session.result(program: program)
  }

  /// The watcher side of one hook: feeds stdin, drains stdout and stderr, and reads the supervisor's report.
  private struct Session {
    package var input: [UInt8]
    package var inputFD: Int32
    package var outputFD: Int32
    package var errorFD: Int32
    /// The supervisor's socket: its report arrives here (not closed by the session).
    package let supervisor: Int32
    package var reportOpen = true
    package var stopSent = false
    package var report: watcher_hook_report?
    package var stderr: [UInt8] = []
    package var stdoutBytes = 0
    package var lostSupervisor = false

    package mutating func run(timeout: Int, stop: Cancellation?) {
      if input.isEmpty {
        closeFD(&inputFD)
      } else {
        _ = fcntl(inputFD, F_SETFL, fcntl(inputFD, F_GETFL) | O_NONBLOCK)
      }
      // A last resort should the supervisor itself hang: it enforces the timeout, so this never fires.
      let hardDeadline = Date().addingTimeInterval(Double(timeout) + Double(killGraceMilliseconds) / 1_000 + 10)
      var drainUntil: Date?
      // Output is only counted and its stderr tail kept: the buffer is never read before it is written.
      var buffer = [UInt8](unsafeUninitializedCapacity: 65_536) { _, count in count = 65_536 }
      while true {
        // Waiting on a hook its timeout bounds is progress (systemd's watchdog: Heartbeat).
        Heartbeat.beat()
        if let drainUntil, outputFD < 0 && errorFD < 0 || Date() >= drainUntil { break }
        if report == nil, !reportOpen {
          lostSupervisor = true
          break
        }
        if !stopSent, report == nil, stop?.isCancelled == true {
          watcher_hook_stop(supervisor)
          stopSent = true
        }
        if Date() >= hardDeadline {
          lostSupervisor = true
          break
        }
        var fds: [pollfd] = []
        for fd in [outputFD, errorFD] where fd >= 0 { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        if report == nil { fds.append(pollfd(fd: supervisor, events: Int16(POLLIN), revents: 0)) }
        if inputFD >= 0 { fds.append(pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0)) }
        let wait = drainUntil.map { max(0, $0.timeIntervalSinceNow) } ?? 0.1
        let ready = poll(&fds, nfds_t(fds.count), Int32(min(wait, 0.1) * 1_000) + 1)
        if ready < 0, errno != EINTR { break }
        for entry in fds where entry.revents != 0 {
          if entry.fd == inputFD {
            let written = input.withUnsafeBytes { write(inputFD, $0.baseAddress, $0.count) }
            if written > 0 { input.removeFirst(written) }
            if written < 0 && errno != EAGAIN || input.isEmpty { closeFD(&inputFD) }
            continue
          }
          if entry.fd == supervisor {
            var message = watcher_hook_report()
            let n = read(supervisor, &message, MemoryLayout<watcher_hook_report>.size)
            if n == MemoryLayout<watcher_hook_report>.size {
              report = message
              // The hook is done: what is left of its output gets a short grace, and stdin is closed.
              drainUntil = Date().addingTimeInterval(HookRunner.outputGrace)
              closeFD(&inputFD)
            } else if n == 0 || n < 0 && errno != EINTR && errno != EAGAIN {
              reportOpen = false
            }
            continue
          }
          let n = read(entry.fd, &buffer, buffer.count)
          if n <= 0 {
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            if entry.fd == outputFD { closeFD(&outputFD) }
            if entry.fd == errorFD { closeFD(&errorFD) }
          } else if entry.fd == errorFD {
            stderr.append(contentsOf: buffer[0..<n])
            if stderr.count > 8_192 { stderr.removeFirst(stderr.count - 8_192) }
          } else {
            stdoutBytes += n
          }
        }
      }
      closeFD(&inputFD)
      closeFD(&outputFD)
      closeFD(&errorFD)
    }

    package func result(program: String) -> HookResult {
      // Printable: it is shown on terminals (poll, pending, status, log) and kept in the journal.
      let tail = Printable.lines(
        String(decoding: stderr, as: UTF8.self).split(separator: "\n").suffix(5).joined(separator: "\n"))
      var result = HookResult(timedOut: false, stderrTail: tail, stdoutBytes: stdoutBytes)
      guard let report else {
        result.startError = "the hook's supervisor ended unexpectedly"
        return result
      }
      let status = report.status
      switch UInt8(bitPattern: report.kind) {
      case UInt8(ascii: "X"):
        result.startError = "cannot start \(program): \(String(cString: strerror(report.error)))"
        return result
      case UInt8(ascii: "T"): result.timedOut = true
      case UInt8(ascii: "C"): result.cancelled = true
      default: break
      }
      if status != -1 {
        let exited = status & 0x7F == 0
        result.exitStatus = exited ? (status >> 8) & 0xFF : nil
        result.signal = exited ? nil : status & 0x7F
      }
      return result
    }

    private func closeFD(_ fd: inout Int32) {
      if fd >= 0 { close(fd) }
      fd = -1
    }
  }
}

/// Strings for `execve`'s `argv` or `envp`: copied once, each NUL-terminated, into one buffer.
private struct CStringList {
  private var bytes: [UInt8] = []
  private var starts: [Int] = []

  init(capacity: Int) {
    starts.reserveCapacity(capacity)
    bytes.reserveCapacity(capacity * 64)
  }

  /// Adds `string`, or `name=value` when a value is given.
  mutating func append(_ string: String, _ value: String? = nil) {
    starts.append(bytes.count)
    bytes.append(contentsOf: string.utf8)
    if let value {
      bytes.append(UInt8(ascii: "="))
      bytes.append(contentsOf: value.utf8)
    }
    bytes.append(0)
  }

  /// A NULL-terminated `char *[]` of the strings, for the duration of `body`.
  ///
  /// The pointers are mutable only because that is `execve`'s type; nothing writes through them.
  func withPointers<R>(_ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    bytes.withUnsafeBytes { buffer in
      let base = buffer.bindMemory(to: CChar.self).baseAddress.map(UnsafeMutablePointer.init(mutating:))
      var pointers: [UnsafeMutablePointer<CChar>?] = starts.map { start in base.map { $0 + start } }
      pointers.append(nil)
      return pointers.withUnsafeBufferPointer { pointers in
        // A non-empty array always has a base address.
        body(pointers.baseAddress.unsafelyUnwrapped)
      }
    }
  }
}
