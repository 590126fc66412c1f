// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// Loads and validates the config: YAML nodes mapped by hand into `Config`, every mistake collected.
///
/// Strict on purpose: unknown keys (with did-you-mean), duplicate keys, wrong types, booleans
/// other than `true`/`false`, bad durations and sizes, invalid regexes, unknown feeds or tags in a rule's
/// scope, duplicate feed names or URLs, rules with no match or no action, unknown template fields, unknown
/// urgencies. Nothing invalid is ever silently ignored.
public enum ConfigLoader {
  /// Reads and validates the config at `path`.
  public static func load(path: String) throws(ConfigError) -> Config {
    // Only a regular file is read (a FIFO would hang, a directory or a device is never a config), and at
    // most `maxConfigBytes` of it.
    let data: Data
    switch ChunkedFile.readRegularFile(path, maxBytes: maxConfigBytes) {
    case .missing: throw .notFound(tried: [path])
    case .failed(let reason): throw .unreadable(path: path, reason: reason)
    case .read(let bytes): data = bytes
    }
    if let problem = FileSafety.problem(path, groupMayWrite: true) { throw .unsafe(path: path, reason: problem) }
    let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    if let problem = FileSafety.directoryProblem(folder.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : folder) {
      throw .unsafe(path: path, reason: problem)
    }
    guard let text = String(validating: data, as: UTF8.self) else {
      // A byte that is not UTF-8 would become U+FFFD, and a rule with it would never match: say where.
      let text = String(decoding: data, as: UTF8.self)
      throw .invalid(path: path, diagnostics: [invalidUTF8(data)], source: text)
    }
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    return try parse(text, path: path, baseDirectory: directory)
  }

  /// The largest config read (16 MB; a config with 10,000 feeds is about 1 MB).
  package static let maxConfigBytes = 16 << 20

  /// The diagnostic for the first byte sequence in `data` that is not UTF-8, at its line and column.
  package static func invalidUTF8(_ data: Data) -> Diagnostic {
    var line = 1
    var column = 1
    var iterator = data.makeIterator()
    var decoder = UTF8()
    var count = 0
    var first: Mark?
    var firstByte: UInt8 = 0
    var offset = 0
    loop: while true {
      let before = offset
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar):
        offset += UTF8.width(scalar)
        if scalar == "\n" {
          line += 1
          column = 1
        } else {
          column += 1
        }
      case .emptyInput: break loop
      case .error:
        offset = before + 1
        count += 1
        if first == nil {
          first = Mark(line: line, column: column)
          firstByte = data[data.startIndex + before]
        }
        column += 1
      }
    }
    let hex = String(firstByte, radix: 16, uppercase: true)
    return Diagnostic(
      message: "the config is not valid UTF-8: byte 0x\(hex.count == 1 ? "0" + hex : hex) here"
        + (count > 1 ? " (and \(count - 1) more)" : ""),
      mark: first,
      notes: ["save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8); text that is not UTF-8 can never match"])
  }

  /// Validates config text; `path` is only used in messages.
  ///
  /// Relative feed paths are resolved against `baseDirectory` (the config's directory) when it is given.
  public static func parse(_ text: String, path: String, baseDirectory: String? = nil) throws(ConfigError)
    -> Config
  {
    let root: YAMLNode?
    do {
      root = try YAMLReader.read(text)
    } catch {
      throw .invalid(path: path, diagnostics: [error], source: text)
    }
    var mapper = ConfigMapper(baseDirectory: baseDirectory)
    var config = mapper.config(root)
    let errors = mapper.diagnostics.filter { $0.severity == .error }
    if !errors.isEmpty {
      throw .invalid(
        path: path,
        diagnostics: mapper.diagnostics.sorted {
          ($0.mark ?? Mark(line: 0, column: 0)) < ($1.mark ?? Mark(line: 0, column: 0))
        }, source: text)
    }
    config.notices = mapper.diagnostics
    return config
  }

  /// The feeds, rules and settings of a config with errors, as far as they are valid.
  ///
  /// What is not valid is left out; `check` looks at the hooks of the rest too. Empty when the text is not
  /// YAML.
  public static func partial(_ text: String, path: String) -> Config {
    guard let root = try? YAMLReader.read(text) else { return Config() }
    var mapper = ConfigMapper(baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path)
    return mapper.config(root)
  }
}
