// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherSupport

/// `watcher mcp [--allow-edits]`: a Model Context Protocol server on standard input and output, for AI
/// assistants and scripts (docs/mcp.md).
struct MCPCommand: Command {
  let name = "mcp"
  let summary = "answer AI assistants and scripts over the Model Context Protocol (stdio)"
  let positionals = Positionals.none()
  static let allowEdits = OptionSpec(
    name: "allow-edits", help: "offer the tools that add feeds and rules (each edit needs the client to confirm)")
  let options = [Options.config, Options.stateDir, Self.allowEdits]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let path = ConfigLocator.candidates(explicit: arguments.value(Options.config), environment: terminal.environment)[0]
    var server = MCPServer(
      tools: MCPTools(
        configPath: path, stateDirectory: arguments.value(Options.stateDir),
        allowEdits: arguments.has(Self.allowEdits), environment: terminal.environment))
    var lines = LineReader(maxLine: JSONRPC.maxLine)
    var buffer = [UInt8](repeating: 0, count: 64 * 1_024)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      for line in lines.add(buffer[..<count]) { answer(line, server: &server, terminal: terminal) }
    }
    if let last = lines.finish() { answer(last, server: &server, terminal: terminal) }
    return .success
  }

  private func answer(_ line: LineReader.Line, server: inout MCPServer, terminal: Terminal) {
    let reply: JSONOutput?
    switch line {
    case .tooLong:
      reply = JSONRPC.error(
        .null, JSONRPC.Failure(code: .invalidRequest, message: "the request is over \(JSONRPC.maxLine) bytes"))
    case .line(let bytes):
      guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
      reply = server.handle(bytes)
    }
    if let reply { terminal.print(reply.text) }
  }
}

/// Lines out of a byte stream, each at most `maxLine` bytes (a longer one is reported, not kept).
struct LineReader {
  enum Line: Equatable {
    case line([UInt8])
    case tooLong
  }

  let maxLine: Int
  private var current: [UInt8] = []
  private var overflowed = false

  init(maxLine: Int) { self.maxLine = maxLine }

  mutating func add(_ bytes: ArraySlice<UInt8>) -> [Line] {
    var done: [Line] = []
    var rest = bytes
    while let newline = rest.firstIndex(of: 0x0A) {
      take(rest[..<newline])
      done.append(overflowed ? .tooLong : .line(current))
      (current, overflowed) = ([], false)
      rest = rest[(newline + 1)...]
    }
    take(rest)
    return done
  }

  mutating func finish() -> Line? {
    defer { (current, overflowed) = ([], false) }
    if overflowed { return .tooLong }
    return current.isEmpty ? nil : .line(current)
  }

  private mutating func take(_ bytes: ArraySlice<UInt8>) {
    guard !overflowed else { return }
    if current.count + bytes.count > maxLine {
      (current, overflowed) = ([], true)
    } else {
      current += bytes
    }
  }
}
