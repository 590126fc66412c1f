// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// How commands talk to a running daemon: a Unix socket only its user can reach.
///
/// The daemon listens at `$XDG_RUNTIME_DIR/watcher/daemon-<hash of the state directory>.sock` (else in the
/// state directory; the directory is resolved first, so a trailing slash or a symlink names the same
/// socket). A client that finds the state locked connects, sends one request line (JSON), and receives
/// what the daemon did, line by line: `1 text` for standard output, `2 text` for standard error, and last
/// `x STATUS`. The daemon serves requests between its own passes, so nothing runs twice at once. Each side
/// checks that the other is the same user (`SO_PEERCRED`); the client also checks that the socket's
/// directory is the user's own and closed to others.
enum DaemonSocket {
  /// What a client asks for, and the config it read.
  struct Request: Sendable, Equatable {
    /// What the daemon is to do.
    enum Ask: Sendable, Equatable {
      /// `poll` (`catchUp`: `catch-up`) of the named feeds (none: the due feeds for a poll, every feed for a
      /// catch-up); `force` polls named feeds even when their server asked to wait; `all` is `poll --all`.
      /// `json`: the client asked for `--json`, and is sent the pass's JSON document after its lines.
      case poll(feeds: [String], force: Bool = false, all: Bool = false, catchUp: Bool = false, json: Bool = false)
      /// `pending --retry` or `--drop` of the items with these keys (none: all).
      case pending(drop: Bool, keys: [String])
      /// `reload`: read the config again, and say what runs.
      case reload
      /// `remove --purge`: delete the state of the feed at this URL, which the config no longer has.
      case purge(url: String)
      /// `digest --send-now` of this rule's digest.
      case digest(rule: String)
      /// `items FEED --announce KEY`: act on an item after all.
      case announce(feed: String, key: String)

      /// The command's name, as the user typed it and as the request line carries it.
      var command: String {
        switch self {
        case .poll(_, _, _, let catchUp, _): catchUp ? "catch-up" : "poll"
        case .pending: "pending"
        case .reload: "reload"
        case .purge: "purge"
        case .digest: "digest"
        case .announce: "announce"
        }
      }
    }

    var ask: Ask
    /// The config the client read (an absolute path): the daemon refuses a request for another config.
    var config: String?

    var command: String { ask.command }

    /// The request line.
    ///
    /// Its fields are those of every release (a daemon and a command of different
    /// versions meet across an upgrade): `command`, `feeds`, `force`, `all`, `keys`, `config`, and `action`
    /// (`retry` or `drop` for `pending`, the URL for `purge`, the rule for `digest`).
    var line: String {
      var (feeds, keys, force, all, action): ([String], [String], Bool, Bool, String?) = ([], [], false, false, nil)
      var json = false
      switch ask {
      case .poll(let names, let forced, let every, _, let asJSON):
        (feeds, force, all, json) = (names, forced, every, asJSON)
      case .pending(let drop, let items): (action, keys) = (drop ? "drop" : "retry", items)
      case .reload: break
      case .purge(let url): action = url
      case .digest(let rule): action = rule
      case .announce(let feed, let key): (feeds, keys) = ([feed], [key])
      }
      return JSONOutput.object(
        [
          ("command", .string(command)), ("feeds", .array(feeds.map { .string($0) })), ("force", .bool(force)),
          ("all", .bool(all)), ("action", .optional(action)), ("keys", .array(keys.map { .string($0) })),
          ("config", .optional(config)),
        ] + (json ? [("json", .bool(true))] : [])
      ).text
    }

    init(_ ask: Ask, config: String? = nil) {
      self.ask = ask
      self.config = config
    }

    init?(line: String) {
      var scalars: [String: JSONScalar] = [:]
      var lists: [String: [String]] = [:]
      let read: ()? = try? JSONReader.read(line.utf8) { json in
        try json.object { json, key in
          guard key == "feeds" || key == "keys" else {
            scalars[key] = try json.scalar()
            return
          }
          // A list of strings; anything else in it makes the request unreadable.
          var list: [String] = []
          try json.array { json in list.append(try json.string()) }
          lists[key] = list
        }
      }
      guard read != nil, let command = scalars["command"]?.string else { return nil }
      let (feeds, keys, action) = (lists["feeds"] ?? [], lists["keys"] ?? [], scalars["action"]?.string)
      let ask: Ask
      switch command {
      case "poll", "catch-up":
        ask = .poll(
          feeds: feeds, force: scalars["force"]?.bool ?? false, all: scalars["all"]?.bool ?? false,
          catchUp: command == "catch-up", json: scalars["json"]?.bool ?? false)
      case "pending": ask = .pending(drop: action == "drop", keys: keys)
      case "reload": ask = .reload
      case "purge":
        guard let action else { return nil }
        ask = .purge(url: action)
      case "digest":
        guard let action else { return nil }
        ask = .digest(rule: action)
      case "announce":
        guard let feed = feeds.first, let key = keys.first else { return nil }
        ask = .announce(feed: feed, key: key)
      default: return nil
      }
      self.init(ask, config: scalars["config"]?.string)
    }
  }

  /// The socket's path for the daemon that uses `stateDirectory` (however it is spelled).
  static func path(stateDirectory: String, environment: [String: String]) -> String {
    let name = "daemon-\(StableHash.hex(of: canonical(stateDirectory)).prefix(16)).sock"
    if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty, runtime.hasPrefix("/") {
      return runtime + "/watcher/" + name
    }
    return stateDirectory + "/" + name
  }

  /// A path with symlinks resolved and without a trailing slash (as given, cleaned, when it does not exist).
  static func canonical(_ path: String) -> String {
    // Foundation's resolution, not realpath(3): the fortified C declaration clashes between modules in the
    // static release build.
    var cleaned = URL(fileURLWithPath: HomePath.expand(path)).standardizedFileURL.path
    if FileManager.default.fileExists(atPath: cleaned) {
      cleaned = URL(fileURLWithPath: cleaned).resolvingSymlinksInPath().path
    }
    while cleaned.count > 1, cleaned.hasSuffix("/") { cleaned.removeLast() }
    return cleaned
  }

  /// Fills a `sockaddr_un` with `path`; nil when the path is too long for one.
  static func address(_ path: String) -> sockaddr_un? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    return address
  }

  /// The user id of the process at the other end of a connected socket.
  static func peerUser(_ fd: Int32) -> UInt32? {
    // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Glibc hides the type without _GNU_SOURCE).
    var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
    var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
    guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
    return credentials.1
  }

  /// Why the socket's directory cannot be trusted (not the user's own, or open to others), or nil.
  static func untrustedDirectory(of path: String) -> String? {
    let directory = FilePath.directory(path)
    var info = stat()
    guard lstat(directory, &info) == 0 else { return nil }  // no daemon has been there
    if info.st_mode & S_IFMT != S_IFDIR { return "\(directory) is not a directory" }
    if info.st_uid != getuid() { return "\(directory) belongs to another user (uid \(info.st_uid))" }
    if info.st_mode & 0o022 != 0 {
      return "\(directory) can be written by other users (mode \(String(info.st_mode & 0o777, radix: 8)))"
    }
    return nil
  }

  // MARK: - The client

  /// What became of a request.
  enum Answer: Equatable {
    /// The daemon answered with this exit status.
    case status(Int32)
    /// No daemon listens there.
    case noDaemon
    /// The socket cannot be trusted (said why on the terminal).
    case refused
  }

  /// Sends `request` to the daemon at `path` and copies what it prints to `terminal`.
  ///
  /// SIGINT or SIGTERM (routed to `interrupted` by the caller) ends the wait at once: the daemon finishes
  /// the pass on its own.
  ///
  /// A daemon that stops before it answers is said to have (exit 75, "try again"), and one silent for
  /// `silence` seconds is said to be (once), so a handed-over command never waits without a word.
  static func ask(
    _ request: Request, path: String, terminal: Terminal, interrupted: Cancellation? = nil,
    silence: TimeInterval = 60
  ) -> Answer {
    if let reason = untrustedDirectory(of: path) {
      terminal.error("error: not asking the daemon: \(reason)")
      return .refused
    }
    guard var address = address(path) else { return .noDaemon }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return .noDaemon }
    defer { close(fd) }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else { return .noDaemon }
    guard peerUser(fd) == getuid() else {
      terminal.error("error: not asking the daemon: another user answers at \(path)")
      return .refused
    }
    Terminal.writeAll(fd, Array((request.line + "\n").utf8))
    var status: Int32?
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var heard = Date()
    var saidSilent = false
    while true {
      if interrupted?.isCancelled == true {
        terminal.error("\(request.command): interrupted; the daemon finishes the pass")
        return .status(130)
      }
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = Glibc.poll(&poller, 1, 100)
      if ready < 0, errno == EINTR { continue }
      guard ready != 0 else {
        if !saidSilent, Date().timeIntervalSince(heard) >= silence {
          saidSilent = true
          terminal.error(
            "note: the daemon has said nothing for \(SpokenDuration.text(silence)) about this \(request.command); it may be "
              + "running long hooks, or be stuck ('watcher status'; its log: journalctl --user -u watcher). "
              + "Ctrl-C stops waiting; the daemon finishes the pass")
        }
        continue
      }
      heard = Date()
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      pending += buffer[..<count]
      while let newline = pending.firstIndex(of: 10) {
        let line = pending[..<newline]
        pending.removeSubrange(...newline)
        guard line.count >= 2 else { continue }
        let text = Array(line.dropFirst(2)) + [10]
        switch line.first {
        case UInt8(ascii: "1"): terminal.output(text)
        case UInt8(ascii: "2"): terminal.errors(text)
        case UInt8(ascii: "x"): status = Int32(String(decoding: line.dropFirst(2), as: UTF8.self)) ?? 1
        default: break
        }
      }
    }
    guard let status else {
      terminal.error(
        "error: the daemon stopped before it finished this \(request.command) (its log: journalctl --user -u "
          + "watcher); run it again")
      return .status(75)
    }
    return .status(status)
  }

  // MARK: - The daemon

  /// A connected client waiting for its answer.
  ///
  /// Every write has a deadline: a client that stops reading (`watcher poll | less`, left open) is dropped
  /// after `writeDeadline` and the daemon goes on; what it would have been sent is not.
  final class Client: Sendable {
    let fd: Int32
    let request: Request
    private let gone = Locked(false)
    /// How long one write may wait for the client to read.
    static let writeDeadline: TimeInterval = 2

    init(fd: Int32, request: Request) {
      self.fd = fd
      self.request = request
    }

    /// Whether the client went away or stopped reading.
    var isGone: Bool { gone.withLock { $0 } }

    /// Writes `bytes` within the deadline, or marks the client gone.
    func send(_ bytes: [UInt8]) {
      guard !isGone else { return }
      let deadline = Date().addingTimeInterval(Self.writeDeadline)
      let sent = bytes.withUnsafeBytes { raw -> Bool in
        guard var p = raw.baseAddress else { return true }
        var left = raw.count
        while left > 0 {
          let n = Glibc.send(fd, p, left, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
          if n >= 0 {
            p += n
            left -= n
            continue
          }
          guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { return false }
          let wait = Int32(max(0, deadline.timeIntervalSinceNow) * 1_000)
          guard wait > 0 else { return false }
          var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
          _ = Glibc.poll(&poller, 1, wait)
        }
        return true
      }
      if !sent { gone.withLock { $0 = true } }
    }

    /// A terminal whose output goes to the client, line by line (`1 `/`2 ` framed); never a TTY.
    var terminal: Terminal {
      let buffers = Locked<[[UInt8]]>([[], []])
      func framed(_ stream: Int) -> @Sendable ([UInt8]) -> Void {
        { [self] bytes in
          let lines: [[UInt8]] = buffers.withLock { buffers in
            buffers[stream] += bytes.filter { $0 != 13 }
            var complete: [[UInt8]] = []
            while let newline = buffers[stream].firstIndex(of: 10) {
              complete.append(Array(buffers[stream][..<newline]))
              buffers[stream].removeSubrange(...newline)
            }
            return complete
          }
          for line in lines { send(Array("\(stream + 1) ".utf8) + line + [10]) }
        }
      }
      return Terminal(output: framed(0), errors: framed(1))
    }

    /// Sends the exit status and hangs up.
    func finish(_ status: Int32) {
      send(Array("x \(status)\n".utf8))
      close(fd)
    }
  }

  /// Listens at `path` on a thread of its own; each client is read on a thread of its own (a silent one is
  /// dropped after `readDeadline`), and its request handed to `received` (which must answer it with
  /// `Client.finish`).
  final class Listener: @unchecked Sendable {
    let path: String
    private let fd: Int32
    /// How long a client may take to send its request.
    static let readDeadline = 3

    /// Binds the socket (replacing a stale one), or throws why it cannot.
    init(path: String, received: @escaping @Sendable (Client) -> Void) throws {
      self.path = path
      let directory = FilePath.directory(path)
      mkdir(directory, 0o700)
      if let reason = untrustedDirectory(of: path) { throw Failure(description: reason) }
      guard var address = DaemonSocket.address(path) else {
        throw Failure(description: "the socket path is too long: \(path)")
      }
      // A socket left by a daemon that died: nobody answers on it, so it is replaced.
      var info = stat()
      if lstat(path, &info) == 0 {
        guard info.st_mode & S_IFMT == S_IFSOCK else {
          throw Failure(description: "\(path) exists and is not a socket")
        }
        unlink(path)
      }
      let listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
      guard listening >= 0 else { throw Failure(description: String(cString: strerror(errno))) }
      let mask = umask(0o077)
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(listening, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      umask(mask)
      guard bound == 0, listen(listening, 16) == 0 else {
        let reason = String(cString: strerror(errno))
        Glibc.close(listening)
        throw Failure(description: "cannot listen at \(path): \(reason)")
      }
      fd = listening
      let fd = listening
      Threads.spawn {
        while true {
          let client = accept(fd, nil, nil)
          if client < 0 {
            if errno == EINTR || errno == ECONNABORTED { continue }
            return
          }
          _ = fcntl(client, F_SETFD, FD_CLOEXEC)
          Threads.spawn {
            guard DaemonSocket.peerUser(client) == getuid(), let request = Self.readRequest(client) else {
              close(client)
              return
            }
            received(Client(fd: client, request: request))
          }
        }
      }
    }

    /// Stops listening and removes the socket.
    func stop() {
      unlink(path)
      shutdown(fd, Int32(SHUT_RDWR))
    }

    /// One request line, read within `readDeadline` and 64 KiB.
    private static func readRequest(_ fd: Int32) -> Request? {
      var timeout = timeval(tv_sec: readDeadline, tv_usec: 0)
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      var line: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4_096)
      let deadline = Date().addingTimeInterval(Double(readDeadline))
      while line.count < 65_536, Date() < deadline {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return nil }
        line += buffer[..<count]
        if let newline = line.firstIndex(of: 10) {
          return Request(line: String(decoding: line[..<newline], as: UTF8.self))
        }
      }
      return nil
    }
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }
}
