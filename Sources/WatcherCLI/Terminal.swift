// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Where a command writes: data to `output`, diagnostics to `errors`.
///
/// Tests pass recording closures.
public struct Terminal: Sendable {
  /// Writes bytes to standard output.
  public var output: @Sendable ([UInt8]) -> Void
  /// Writes bytes to standard output from where they are (a streamed parse's chunks, never copied into an
  /// array); by default through `output`.
  var outputBytes: @Sendable (UnsafeBufferPointer<UInt8>) -> Void
  /// Writes bytes to standard error.
  public var errors: @Sendable ([UInt8]) -> Void
  /// Reads up to the given number of bytes more of standard input, fewer only at its end: each call goes on
  /// where the last one stopped (`watcher parse -` reads it in pieces).
  public var readInput: @Sendable (Int) -> Data
  /// The environment (config discovery, `NO_COLOR`).
  public var environment: [String: String]
  /// Whether standard output is a terminal (for highlighting).
  public var outputIsTerminal: Bool
  /// Whether standard error is a terminal (for the progress line).
  public var errorsIsTerminal: Bool

  /// Creates a terminal from its parts.
  public init(
    output: @escaping @Sendable ([UInt8]) -> Void, errors: @escaping @Sendable ([UInt8]) -> Void,
    readInput: @escaping @Sendable (Int) -> Data = { _ in Data() }, environment: [String: String] = [:],
    outputIsTerminal: Bool = false, errorsIsTerminal: Bool = false,
    outputBytes: (@Sendable (UnsafeBufferPointer<UInt8>) -> Void)? = nil
  ) {
    self.output = output
    self.outputBytes = outputBytes ?? { output(Array($0)) }
    self.errors = errors
    self.readInput = readInput
    self.environment = environment
    self.outputIsTerminal = outputIsTerminal
    self.errorsIsTerminal = errorsIsTerminal
  }

  /// The process's own standard streams.
  public static let standard = Terminal(
    output: { writeAll(1, $0) }, errors: { writeAll(2, $0) },
    readInput: { limit in readAll(0, limit: limit) },
    environment: ProcessInfo.processInfo.environment, outputIsTerminal: isatty(1) == 1,
    errorsIsTerminal: isatty(2) == 1, outputBytes: { writeAll(1, UnsafeRawBufferPointer($0)) })

  /// Writes a line of data.
  public func print(_ line: String) {
    output(Array((line + "\n").utf8))
  }

  /// Writes a line of a command's report where it belongs: a diagnostic (`error:`, `warning:`, `note:`) on
  /// stderr, a result (what was polled, found, done) on stdout, so `watcher poll > out` keeps the results.
  public func report(_ line: String) {
    if line.hasPrefix("error:") || line.hasPrefix("warning:") || line.hasPrefix("note:") {
      error(line)
    } else {
      print(line)
    }
  }

  /// Writes a line of diagnostics.
  public func error(_ line: String) {
    errors(Array((line + "\n").utf8))
  }

  /// Up to `limit` bytes from `fd`, until its end (or an error).
  static func readAll(_ fd: Int32, limit: Int) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 64 * 1_024)
    while data.count < limit {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, min($0.count, limit - data.count)) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { break }
      data.append(contentsOf: buffer[..<n])
    }
    return data
  }

  /// Writes all of `bytes` to a file descriptor (`write`), retrying on EINTR and short writes.
  static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { writeAll(fd, $0) }
  }

  /// `writeAll` of bytes where they are.
  static func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer) {
    guard var p = raw.baseAddress else { return }
    var left = raw.count
    while left > 0 {
      let n = write(fd, p, left)
      if n < 0 {
        if errno == EINTR { continue }
        return
      }
      p += n
      left -= n
    }
  }
}

extension Terminal {
  /// The width the output may take, in columns: `COLUMNS` when set, else the terminal's; nil when the
  /// output is not a terminal (piped: every column whole).
  var width: Int? {
    if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return max(columns, 40) }
    guard outputIsTerminal else { return nil }
    var size = winsize()
    guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return max(Int(size.ws_col), 40)
  }

  /// Text from outside (a page, a file) made safe to print as one line: every control character (C0,
  /// tab and line breaks included, DEL, C1, and U+2028/U+2029) becomes a space, so it cannot drive the
  /// terminal or forge a line.
  static func field(_ text: String) -> String { Printable.line(text) }

  /// `text` cut to `width` characters, with "…" when cut.
  static func clip(_ text: String, _ width: Int) -> String {
    text.count > width ? String(text.prefix(width - 1)) + "…" : text
  }

  /// Rows as aligned columns, two spaces apart, without trailing spaces.
  static func columns(_ rows: [[String]]) -> String {
    let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
      zip(row, widths).map { $0.padded(to: $1) }.joined(separator: "  ")
        .trimming(.spaces)
    }.joined(separator: "\n")
  }
}
