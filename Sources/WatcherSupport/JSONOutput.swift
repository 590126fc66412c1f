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

  /// A string, or `null` for `nil`.
  public static func optional(_ value: String?) -> JSONOutput { value.map { .string($0) } ?? .null }

  /// Compact JSON text.
  public var text: String {
    var out = ""
    write(to: &out)
    return out
  }

  /// JSON text indented by two spaces, one member per line, as UTF-8.
  public var pretty: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(4_096)
    writePretty(to: &out, indent: 0)
    out.append(10)
    return out
  }

  private func writePretty(to out: inout [UInt8], indent: Int) {
    func newline(_ depth: Int) {
      out.append(10)
      out.append(contentsOf: repeatElement(32, count: depth))
    }
    switch self {
    case .array(let values) where !values.isEmpty:
      out.append(UInt8(ascii: "["))
      for (index, value) in values.enumerated() {
        newline(indent + 2)
        value.writePretty(to: &out, indent: indent + 2)
        if index + 1 < values.count { out.append(UInt8(ascii: ",")) }
      }
      newline(indent)
      out.append(UInt8(ascii: "]"))
    case .object(let members) where !members.isEmpty:
      out.append(UInt8(ascii: "{"))
      for (index, (key, value)) in members.enumerated() {
        newline(indent + 2)
        Self.escape(key, into: &out)
        out.append(contentsOf: [UInt8(ascii: ":"), 32])
        value.writePretty(to: &out, indent: indent + 2)
        if index + 1 < members.count { out.append(UInt8(ascii: ",")) }
      }
      newline(indent)
      out.append(UInt8(ascii: "}"))
    case .string(let value):
      Self.escape(value, into: &out)
    default:
      out.append(contentsOf: text.utf8)
    }
  }

  /// A JSON string into UTF-8 bytes; plain runs are copied at once.
  private static func escape(_ value: String, into out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
      case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
      case 10: out.append(contentsOf: [92, 110])
      case 13: out.append(contentsOf: [92, 114])
      case 9: out.append(contentsOf: [92, 116])
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        out.append(contentsOf: [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
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

  /// Appends `value` as a JSON string literal (also a valid YAML double-quoted scalar).
  package static func escape(_ value: String, into out: inout String) {
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
