// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Why a config could not be used.
public enum ConfigError: Error, Sendable, Equatable {
  /// No config file exists at any of the places looked at, in order.
  case notFound(tried: [String])
  /// The file exists but cannot be read; the payload is the path and the system's reason.
  case unreadable(path: String, reason: String)
  /// Another user could change the file (and so the hooks it runs); the payload says who and the fix.
  case unsafe(path: String, reason: String)
  /// The file has mistakes: every one of them, in file order, and the text they point into.
  case invalid(path: String, diagnostics: [Diagnostic], source: String)
}

extension ConfigError {
  /// The full rendering: diagnostics with source lines and carets, or the paths tried and how to start.
  public var rendered: String {
    switch self {
    case .notFound(let tried):
      var out = "error: no config file found; looked at:\n"
      for path in tried { out += "  \(path)\n" }
      out += "note: 'watcher init' writes a starter config there (or name one with --config FILE)\n"
      return out
    case .unreadable(let path, let reason):
      return "error: \(path): cannot read the config: \(reason)\n"
    case .unsafe(let path, let reason):
      return "error: \(path): refusing to use this config: \(reason)\n"
    case .invalid(let path, let diagnostics, let source):
      var out = DiagnosticRenderer.render(diagnostics, path: path, source: source)
      let errors = diagnostics.filter { $0.severity == .error }.count
      out += "\(errors) error\(errors == 1 ? "" : "s") in \(path)\n"
      return out
    }
  }
}
