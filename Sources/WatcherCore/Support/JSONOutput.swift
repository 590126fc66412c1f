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

  /// A string, or `null` for `nil`.
  public static func optional(_ value: String?) -> JSONOutput { value.map { .string($0) } ?? .null }

  /// Compact JSON text.
  public var text: String {
    var out = ""
    write(to: &out)
    return out
  }

  private func write(to out: inout String) {
    switch self {
    case .null: out += "null"
    case .bool(let value): out += value ? "true" : "false"
    case .int(let value): out += String(value)
    case .string(let value): Self.escape(value, into: &out)
    case .array(let values):
      out += "["
      for (index, value) in values.enumerated() {
        if index > 0 { out += "," }
        value.write(to: &out)
      }
      out += "]"
    case .object(let members):
      out += "{"
      for (index, (key, value)) in members.enumerated() {
        if index > 0 { out += "," }
        Self.escape(key, into: &out)
        out += ":"
        value.write(to: &out)
      }
      out += "}"
    }
  }

  private static func escape(_ value: String, into out: inout String) {
    out += "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }

  public static func == (a: JSONOutput, b: JSONOutput) -> Bool { a.text == b.text }
}
