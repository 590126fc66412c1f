// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// How `watcher poll` and `catch-up` talk to a running daemon: a Unix socket only its user can reach.
///
/// The daemon listens at `$XDG_RUNTIME_DIR/watcher/daemon-<hash of the state directory>.sock` (else in the
/// state directory). A client that finds the state locked connects, sends one request line (JSON), and
/// receives what the daemon's pass printed, line by line: `1 text` for standard output, `2 text` for
/// standard error, and last `x STATUS`. The daemon serves requests between its own passes, so nothing runs
/// twice at once; it checks that the peer is the same user (`SO_PEERCRED`).
enum DaemonSocket {
  /// What a client asks for.
  struct Request: Sendable, Equatable {
    /// `poll` or `catch-up`.
    var command: String
    /// Feed names (none: the due feeds for a poll, every feed for a catch-up).
    var feeds: [String]
    /// `--force`: poll named feeds even when their server asked to wait.
    var force: Bool

    var line: String {
      JSONOutput.object([
        ("command", .string(command)), ("feeds", .array(feeds.map { .string($0) })), ("force", .bool(force)),
      ]).text
    }

    init(command: String, feeds: [String], force: Bool) {
      self.command = command
      self.feeds = feeds
      self.force = force
    }

    init?(line: String) {
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let command = object["command"] as? String, ["poll", "catch-up"].contains(command)
      else { return nil }
      self.init(command: command, feeds: object["feeds"] as? [String] ?? [], force: object["force"] as? Bool ?? false)
    }
  }

  /// The socket's path for the daemon that uses `stateDirectory`.
  static func path(stateDirectory: String, environment: [String: String]) -> String {
    let name = "daemon-\(StableHash.hex(of: stateDirectory).prefix(16)).sock"
    if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty, runtime.hasPrefix("/") {
      return runtime + "/watcher/" + name
    }
    return stateDirectory + "/" + name
  }

  /// Fills a `sockaddr_un` with `path`; nil when the path is too long for one.
  private static func address(_ path: String) -> sockaddr_un? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    return address
  }

  // MARK: - The client

  /// Sends `request` to the daemon at `path` and copies what it prints to `terminal`; its exit status, or
  /// nil when no daemon listens there.
  static func ask(_ request: Request, path: String, terminal: Terminal) -> Int32? {
    guard var address = address(path) else { return nil }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else { return nil }
    Terminal.writeAll(fd, Array((request.line + "\n").utf8))
    var status: Int32 = 1
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
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
    return status
  }

  // MARK: - The daemon

  /// A connected client waiting for its answer.
  final class Client: Sendable {
    let fd: Int32
    let request: Request

    init(fd: Int32, request: Request) {
      self.fd = fd
      self.request = request
    }

    /// A terminal whose output goes to the client, line by line (`1 `/`2 ` framed); never a TTY.
    var terminal: Terminal {
      let fd = fd
      let buffers = Locked<[[UInt8]]>([[], []])
      func framed(_ stream: Int) -> @Sendable ([UInt8]) -> Void {
        { bytes in
          let lines: [[UInt8]] = buffers.withLock { buffers in
            buffers[stream] += bytes.filter { $0 != 13 }
            var complete: [[UInt8]] = []
            while let newline = buffers[stream].firstIndex(of: 10) {
              complete.append(Array(buffers[stream][..<newline]))
              buffers[stream].removeSubrange(...newline)
            }
            return complete
          }
          for line in lines { Terminal.writeAll(fd, Array("\(stream + 1) ".utf8) + line + [10]) }
        }
      }
      return Terminal(output: framed(0), errors: framed(1))
    }

    /// Sends the exit status and hangs up.
    func finish(_ status: Int32) {
      Terminal.writeAll(fd, Array("x \(status)\n".utf8))
      close(fd)
    }
  }

  /// Listens at `path` on a thread of its own; each request is handed to `received` (which must answer it
  /// with `Client.finish`).
  final class Listener: @unchecked Sendable {
    let path: String
    private let fd: Int32

    /// Binds the socket (replacing a stale one), or throws why it cannot.
    init(path: String, received: @escaping @Sendable (Client) -> Void) throws {
      self.path = path
      let directory = (path as NSString).deletingLastPathComponent
      mkdir(directory, 0o700)
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
      Thread.detachNewThread {
        while true {
          let client = accept(fd, nil, nil)
          if client < 0 {
            if errno == EINTR || errno == ECONNABORTED { continue }
            return
          }
          _ = fcntl(client, F_SETFD, FD_CLOEXEC)
          guard Self.sameUser(client), let request = Self.readRequest(client) else {
            close(client)
            continue
          }
          received(Client(fd: client, request: request))
        }
      }
    }

    /// Stops listening and removes the socket.
    func stop() {
      unlink(path)
      shutdown(fd, Int32(SHUT_RDWR))
    }

    private static func sameUser(_ fd: Int32) -> Bool {
      // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Glibc hides the type without _GNU_SOURCE).
      var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
      var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
      guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return false }
      return credentials.1 == getuid()
    }

    /// One request line, read within 5 s and 64 KiB.
    private static func readRequest(_ fd: Int32) -> Request? {
      var timeout = timeval(tv_sec: 5, tv_usec: 0)
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      var line: [UInt8] = []
      var byte: UInt8 = 0
      while line.count < 65_536 {
        let count = read(fd, &byte, 1)
        guard count == 1 else { return nil }
        if byte == 10 { return Request(line: String(decoding: line, as: UTF8.self)) }
        line.append(byte)
      }
      return nil
    }
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }
}
