// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A JSON value with ordered object keys, for the documented `--json` outputs (key order is part of them).
public indirect enum JSONOutput: Sendable, Equatable {
  case null
  case bool(Bool)
  case int(Int)
  case string(String)
  case array([JSONOutput])
  case object([(String, JSONOutput)])

  /// Whether this is `null`.
  public var isNull: Bool {
    if case .null = self { return true }
    return false
  }

  /// The document a command prints with `--json`: an object whose first member is the schema's `version`
  /// (1; a change that is not an addition makes it 2).
  public static func document(_ members: [(String, JSONOutput)]) -> JSONOutput {
    .object([("version", .int(1))] + members)
  }

  /// A string, or `null` for `nil`.
  public static func optional(_ value: String?) -> JSONOutput { value.map { .string($0) } ?? .null }

  /// Compact JSON text.
  public var text: String { String(decoding: compact, as: UTF8.self) }

  /// Compact JSON text as UTF-8.
  public var compact: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(256)
    write(to: &out)
    return out
  }

  /// JSON text indented by two spaces, one member per line, as UTF-8.
  public var pretty: [UInt8] {
    var json = PrettyJSON()
    json.value(self)
    return json.document()
  }

  /// Appends compact JSON text to `out`.
  public func write(to out: inout [UInt8]) {
    switch self {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
    case .int(let value): out.append(contentsOf: String(value).utf8)
    case .string(let value): JSONString.append(value, to: &out)
    case .array(let values):
      out.append(UInt8(ascii: "["))
      for (index, value) in values.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        value.write(to: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let members):
      out.append(UInt8(ascii: "{"))
      for (index, (key, value)) in members.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        JSONString.append(key, to: &out)
        out.append(UInt8(ascii: ":"))
        value.write(to: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  public static func == (a: JSONOutput, b: JSONOutput) -> Bool { a.text == b.text }
}
