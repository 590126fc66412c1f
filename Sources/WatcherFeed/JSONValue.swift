// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport

/// Any JSON value, decoded without a schema, so a JSON Feed with wrong types is read leniently.
///
/// Decoded with `JSONDecoder` rather than `JSONSerialization`, which on Linux cannot tell `1` from `true`.
package enum JSONValue: Decodable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  package init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  /// The value of a whole document, read with `JSONReader` (a tree of values made directly; `JSONDecoder`'s
  /// try-each-type decoding of `init(from:)` took two thirds of a large JSON Feed's parse).
  package static func read(_ data: some Collection<UInt8>) throws -> JSONValue {
    try JSONReader.read(data) { try read(&$0) }
  }

  package static func read(_ json: inout JSONReader) throws -> JSONValue {
    switch json.peek() {
    case UInt8(ascii: "{"):
      var members: [String: JSONValue] = [:]
      // The first of duplicate keys counts, as with JSONDecoder.
      try json.object { json, key in
        let value = try read(&json)
        if members[key] == nil { members[key] = value }
      }
      return .object(members)
    case UInt8(ascii: "["):
      var values: [JSONValue] = []
      try json.array { json in values.append(try read(&json)) }
      return .array(values)
    case UInt8(ascii: "\""): return .string(try json.string())
    case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try json.bool())
    case UInt8(ascii: "n"):
      _ = try json.null()
      return .null
    default: return .number(try json.double())
    }
  }

  /// The member `key` of an object.
  package subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members[key] }
    return nil
  }

  /// The value as a string, when it is one.
  package var string: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// A string, or a number written as JSON wrote it (for ids that should have been strings).
  package var stringOrNumber: String? {
    switch self {
    case .string(let value): return value
    case .number(let value):
      return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    default: return nil
    }
  }

  /// The elements of an array (empty for anything else).
  package var elements: [JSONValue] {
    if case .array(let values) = self { return values }
    return []
  }
}
