// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// JSON written straight into UTF-8 bytes as it is produced, in the layout of `JSONOutput.pretty`: two-space
/// indent, one member or element per line, empty containers as `{}` and `[]`.
///
/// State files are written with it: building a `JSONOutput` tree first cost as much as writing the text.
public struct PrettyJSON {
  /// The text so far.
  private var bytes: [UInt8] = []
  private var indent = 0
  /// Whether the open container has a member or element yet.
  private var hasContent = false

  /// Starts empty, with room for `capacity` bytes.
  public init(capacity: Int = 4_096) {
    bytes.reserveCapacity(capacity)
  }

  /// How many bytes are written so far (the difference around an element is that element's size).
  public var count: Int { bytes.count }

  /// The document's text, ending with a newline (the text is moved out, not copied).
  public consuming func document() -> [UInt8] {
    bytes.append(10)
    return bytes
  }

  /// Writes an object whose members `body` writes (with `member`).
  public mutating func object(_ body: (inout PrettyJSON) -> Void) {
    container(open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), body)
  }

  /// Writes an array whose elements `body` writes (each after `element()`).
  public mutating func array(_ body: (inout PrettyJSON) -> Void) {
    container(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), body)
  }

  /// Starts a member of the open object: its key; write its value next.
  public mutating func key(_ name: String) {
    next()
    JSONString.append(name, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
    bytes.append(32)
  }

  /// Starts an element of the open array: write its value next.
  public mutating func element() { next() }

  /// A member with a string value; none when `value` is `nil`.
  public mutating func member(_ name: String, _ value: String?) {
    guard let value else { return }
    key(name)
    string(value)
  }

  /// A member with an integer value; none when `value` is `nil`.
  public mutating func member(_ name: String, _ value: Int?) {
    guard let value else { return }
    key(name)
    bytes.append(contentsOf: String(value).utf8)
  }

  /// A member with a date value (ISO 8601, UTC); none when `value` is `nil`.
  public mutating func member(_ name: String, _ value: Date?) {
    guard let value else { return }
    key(name)
    bytes.append(UInt8(ascii: "\""))
    ISODate.append(value, to: &bytes)
    bytes.append(UInt8(ascii: "\""))
  }

  /// A member whose value is a hash value's sixteen hex digits (`StableHash.hex`).
  public mutating func member(_ name: String, hash value: UInt64) {
    key(name)
    bytes.append(UInt8(ascii: "\""))
    StableHash.appendHex(value, to: &bytes)
    bytes.append(UInt8(ascii: "\""))
  }

  /// A member with a boolean value.
  public mutating func member(_ name: String, _ value: Bool) {
    key(name)
    bytes.append(contentsOf: (value ? "true" : "false").utf8)
  }

  /// A string value.
  public mutating func string(_ value: String) {
    JSONString.append(value, to: &bytes)
  }

  /// Any value, as `JSONOutput.pretty` lays it out.
  public mutating func value(_ value: JSONOutput) {
    switch value {
    case .object(let members):
      object { json in
        for (name, member) in members {
          json.key(name)
          json.value(member)
        }
      }
    case .array(let elements):
      array { json in
        for element in elements {
          json.element()
          json.value(element)
        }
      }
    default:
      value.write(to: &bytes)
    }
  }

  private mutating func container(open: UInt8, close: UInt8, _ body: (inout PrettyJSON) -> Void) {
    bytes.append(open)
    let outer = hasContent
    hasContent = false
    indent += 2
    body(&self)
    indent -= 2
    if hasContent { newline() }
    bytes.append(close)
    hasContent = outer
  }

  /// The separator before a member or element.
  private mutating func next() {
    if hasContent { bytes.append(UInt8(ascii: ",")) }
    hasContent = true
    newline()
  }

  private mutating func newline() {
    bytes.append(10)
    for _ in 0..<indent { bytes.append(32) }
  }
}
