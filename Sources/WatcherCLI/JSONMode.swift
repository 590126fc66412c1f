// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport

/// A command run with `--json` speaks JSON on both streams: its document (or JSON lines) on standard
/// output, and every diagnostic and report line on standard error as one JSON object each, with the same
/// words as the text (`{"version":1,"level":"error","message":"…","details":["note: …"]}`).
enum JSONMode {
  /// `terminal` with its text lines turned into JSON objects on standard error.
  static func terminal(_ terminal: Terminal) -> Terminal {
    let errors = terminal.errors
    let asJSON: @Sendable ([UInt8]) -> Void = { bytes in
      guard bytes.first != UInt8(ascii: "{") else { return errors(bytes) }
      errors(Array((line(String(decoding: bytes, as: UTF8.self)).text + "\n").utf8))
    }
    let output = terminal.output
    return Terminal(
      output: { bytes in
        // The document (an object or an array, or one JSON line); a report line is a diagnostic here.
        if bytes.first == UInt8(ascii: "{") || bytes.first == UInt8(ascii: "[") { output(bytes) } else { asJSON(bytes) }
      },
      errors: asJSON, readInput: terminal.readInput, environment: terminal.environment,
      outputIsTerminal: terminal.outputIsTerminal, errorsIsTerminal: false, outputBytes: terminal.outputBytes)
  }

  /// A text diagnostic as a JSON object: its level from its prefix (`error:`, `warning:`, `note:`; else
  /// `info`), its first line as the message, its other lines as details.
  static func line(_ text: String) -> JSONOutput {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    while lines.last == "" { lines.removeLast() }
    var message = lines.first ?? ""
    var level = "info"
    for prefix in ["error", "warning", "note"] where message.hasPrefix(prefix + ": ") {
      level = prefix
      message = String(message.dropFirst(prefix.count + 2))
      break
    }
    return .object([
      ("version", .int(1)), ("level", .string(level)), ("message", .string(Printable.line(message))),
      ("details", .array(lines.dropFirst().map { .string(Printable.line($0)) })),
    ])
  }
}
