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
    /// Information (where a relative path points).
    case note
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
///
/// The source is split into lines once, however many diagnostics point into it, and a long line is shown
/// as a window around the column, so the output stays small whatever the input.
public enum DiagnosticRenderer {
  /// How many characters of a source line are shown at most (a window around the column).
  package static let window = 120

  /// Every diagnostic for `path`, each with its source line and a caret when `source` is given.
  ///
  /// The source lines shown have inline credentials redacted (a secret header's value, a proxy's password),
  /// as an edit's `.bak` has.
  public static func render(_ diagnostics: [Diagnostic], path: String, source: String?) -> String {
    let lines =
      source.map {
        ConfigEditor.redactedForBackup($0).split(separator: "\n", omittingEmptySubsequences: false)
      } ?? []
    var out = ""
    for diagnostic in diagnostics { out += render(diagnostic, path: path, lines: lines) }
    return out
  }

  /// One diagnostic for `path`, with the source line and a caret when `source` is given.
  public static func render(_ diagnostic: Diagnostic, path: String, source: String?) -> String {
    render([diagnostic], path: path, source: source)
  }

  private static func render(_ diagnostic: Diagnostic, path: String, lines: [Substring]) -> String {
    var out = path
    if let mark = diagnostic.mark { out += ":\(mark.line):\(mark.column)" }
    out += ": \(diagnostic.severity.rawValue): \(diagnostic.message)\n"
    if let mark = diagnostic.mark, mark.line >= 1, mark.line <= lines.count {
      var line = lines[mark.line - 1]
      if line.hasSuffix("\r") { line = line.dropLast() }
      var scalars = Array(line.unicodeScalars)
      var column = max(mark.column - 1, 0)
      var lead = ""
      if scalars.count > window {
        // A window around the column, marked with … where it cuts.
        let start = max(0, min(column - window / 2, scalars.count - window))
        let end = min(scalars.count, start + window)
        let cutEnd = end < scalars.count
        scalars = Array(scalars[start..<end])
        if start > 0 {
          lead = "…"
          column -= start
        }
        if cutEnd { scalars.append("…") }
      }
      var text = lead
      text.unicodeScalars.append(contentsOf: scalars)
      out += text + "\n"
      // Pad by scalars, as libyaml counts columns; tabs stay tabs so the caret lines up.
      var pad = lead.isEmpty ? "" : " "
      for (index, scalar) in scalars.enumerated() where index < column {
        pad.append(scalar == "\t" ? "\t" : " ")
      }
      out += pad + "^\n"
    }
    for note in diagnostic.notes { out += "note: \(note)\n" }
    return out
  }
}
