// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A problem found in a file the user wrote, with its place: rendered as
/// `path:line:col: error: message`, the source line, a caret, and `note:` lines.
public struct Diagnostic: Error, Sendable, Equatable {
  /// How bad it is.
  public enum Severity: String, Sendable {
    /// The file cannot be used.
    case error
    /// Worth knowing; the file still works.
    case warning
  }

  /// How bad it is.
  public var severity: Severity
  /// What is wrong, in one line.
  public var message: String
  /// Where, when known.
  public var mark: Mark?
  /// Further lines: did-you-mean, the valid choices, where the first definition was.
  public var notes: [String]

  /// Creates a diagnostic.
  public init(_ severity: Severity = .error, message: String, mark: Mark?, notes: [String] = []) {
    self.severity = severity
    self.message = message
    self.mark = mark
    self.notes = notes
  }
}

/// Renders diagnostics the way compilers do, so editors, CI and grep understand them.
public enum DiagnosticRenderer {
  /// The diagnostic for `path`, with the source line and a caret when `source` is given.
  public static func render(_ diagnostic: Diagnostic, path: String, source: String?) -> String {
    var out = path
    if let mark = diagnostic.mark { out += ":\(mark.line):\(mark.column)" }
    out += ": \(diagnostic.severity.rawValue): \(diagnostic.message)\n"
    if let mark = diagnostic.mark, let source, let line = line(mark.line, of: source) {
      out += line + "\n"
      // Pad by scalars, as libyaml counts columns; tabs stay tabs so the caret lines up.
      var pad = ""
      for (index, scalar) in line.unicodeScalars.enumerated() where index < mark.column - 1 {
        pad.append(scalar == "\t" ? "\t" : " ")
      }
      out += pad + "^\n"
    }
    for note in diagnostic.notes { out += "note: \(note)\n" }
    return out
  }

  private static func line(_ number: Int, of source: String) -> String? {
    var current = 1
    for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == number { return String(line.hasSuffix("\r") ? line.dropLast() : line) }
      current += 1
    }
    return nil
  }
}
