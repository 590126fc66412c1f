// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A real HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for tests, on Glibc sockets: scripted responses
/// per path, and a record of every request so tests can check the headers watcher sent.
public final class LoopbackHTTPServer: Sendable {
  /// A request as received.
  public struct Request: Sendable {
    /// The path (with query).
    public var path: String
    /// Headers, names lowercased.
    public var headers: [String: String]
    /// When it arrived.
    public var time: Date
    /// The method (`GET`, `POST`).
    public var method = "GET"
    /// The body it carried (`Content-Length` bytes; empty for a GET).
    public var body = Data()
  }

  /// What to answer.
  public struct Response: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data
    /// Send the body this many bytes at a time, sleeping `trickleDelay` between pieces.
    public var trickle: Int?
    public var trickleDelay: TimeInterval
    /// Close the connection after this many body bytes (a truncated response).
    public var truncateAt: Int?
    /// Never answer (hold the connection until the server stops).
    public var silent: Bool

    public init(
      status: Int = 200, headers: [(String, String)] = [], body: Data = Data(), trickle: Int? = nil,
      trickleDelay: TimeInterval = 0.5, truncateAt: Int? = nil, silent: Bool = false
    ) {
      self.status = status
      self.headers = headers
      self.body = body
      self.trickle = trickle
      self.trickleDelay = trickleDelay
      self.truncateAt = truncateAt
      self.silent = silent
    }

    /// A 200 with a text body and headers.
    public static func ok(_ body: String, headers: [(String, String)] = []) -> Response {
      Response(status: 200, headers: headers, body: Data(body.utf8))
    }
  }

  /// The port it listens on.
  public let port: Int
  private let socketFD: Int32
  private let handler: @Sendable (Request) -> Response
  private let log = Locked<[Request]>([])
  private let stopped = Locked(false)

  /// Starts listening on 127.0.0.1 (or, with `everyAddress`, on every address of the machine);
  /// `handler` answers each request (called on the server's threads).
  public init(everyAddress: Bool = false, handler: @escaping @Sendable (Request) -> Response) throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = everyAddress ? INADDR_ANY : inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(fd, 256) == 0 else {
      close(fd)
      throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    socketFD = fd
    self.handler = handler
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  /// The URL of a path on this server.
  public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

  /// Every request received so far.
  public var requests: [Request] { log.withLock { $0 } }

  /// Stops accepting connections.
  public func stop() {
    // Once only: closing the descriptor twice could close a socket that reused the number.
    let wasStopped = stopped.withLock { state in
      defer { state = true }
      return state
    }
    guard !wasStopped else { return }
    shutdown(socketFD, Int32(SHUT_RDWR))
    close(socketFD)
  }

  deinit { stop() }

  private func acceptLoop() {
    while !stopped.withLock({ $0 }) {
      let client = accept(socketFD, nil, nil)
      guard client >= 0 else {
        if stopped.withLock({ $0 }) { return }
        continue
      }
      let connection = Thread { [self] in serve(client) }
      connection.start()
    }
  }

  private func serve(_ client: Int32) {
    defer { close(client) }
    var data = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while !data.containsHeaderEnd {
      let n = read(client, &buffer, buffer.count)
      guard n > 0 else { return }
      data.append(contentsOf: buffer[0..<n])
      if data.count > 65_536 { return }
    }
    let text = String(decoding: data, as: UTF8.self)
    let lines = text.components(separatedBy: "\r\n")
    let requestLine = lines.first?.split(separator: " ") ?? []
    let path = requestLine.count > 1 ? String(requestLine[1]) : "/"
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    var request = Request(path: path, headers: headers, time: Date())
    request.method = requestLine.first.map(String.init) ?? "GET"
    if let length = headers["content-length"].flatMap(Int.init), length > 0, length <= 8 << 20,
      let end = data.headerEnd
    {
      var body = Array(data[end...])
      while body.count < length {
        let n = read(client, &buffer, buffer.count)
        guard n > 0 else { break }
        body.append(contentsOf: buffer[0..<n])
      }
      request.body = Data(body.prefix(length))
    }
    log.withLock { $0.append(request) }
    let response = handler(request)
    if response.silent {
      while !stopped.withLock({ $0 }) { usleep(50_000) }
      return
    }
    var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
    var hasLength = false
    for (name, value) in response.headers {
      head += "\(name): \(value)\r\n"
      if name.lowercased() == "content-length" { hasLength = true }
    }
    if !hasLength { head += "Content-Length: \(response.body.count)\r\n" }
    head += "Connection: close\r\n\r\n"
    guard send(client, Array(head.utf8)) else { return }
    var body = [UInt8](response.body)
    if let cut = response.truncateAt { body = Array(body.prefix(cut)) }
    if let piece = response.trickle {
      var offset = 0
      while offset < body.count, !stopped.withLock({ $0 }) {
        guard send(client, Array(body[offset..<min(body.count, offset + piece)])) else { return }
        offset += piece
        Thread.sleep(forTimeInterval: response.trickleDelay)
      }
    } else {
      _ = send(client, body)
    }
  }

  private func send(_ client: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      // MSG_NOSIGNAL: a client that hung up must not kill the test process with SIGPIPE.
      let n = bytes[offset...].withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n <= 0 { return false }
      offset += n
    }
    return true
  }

  private static func reason(_ status: Int) -> String {
    switch status {
    case 200: "OK"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 304: "Not Modified"
    case 308: "Permanent Redirect"
    case 404: "Not Found"
    case 410: "Gone"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 503: "Service Unavailable"
    default: "Status"
    }
  }
}

extension [UInt8] {
  fileprivate var containsHeaderEnd: Bool { headerEnd != nil }

  /// Where the body starts: just after the first blank line.
  fileprivate var headerEnd: Int? {
    guard count >= 4 else { return nil }
    for i in 0...(count - 4) where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 {
      return i + 4
    }
    return nil
  }
}
