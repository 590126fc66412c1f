// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherFeed
import WatcherSupport

/// JSON-RPC 2.0 as the Model Context Protocol's stdio transport carries it: one message a line.
enum JSONRPC {
  /// The largest request line read; a longer one is answered with an error and skipped.
  static let maxLine = 1 << 20

  /// The standard error codes.
  enum Code: Int {
    case parse = -32_700
    case invalidRequest = -32_600
    case methodNotFound = -32_601
    case invalidParams = -32_602
    case internalError = -32_603
  }

  /// A request or notification read from a line.
  struct Message {
    /// The id to answer with (`nil` for a notification, which gets no answer).
    var id: JSONOutput?
    var method: String
    var params: JSONValue
  }

  /// An error to answer with.
  struct Failure: Error {
    var code: Code
    var message: String
  }

  /// The message on `line`, or the error to answer with (and the id, when the line had a readable one).
  static func read(_ line: [UInt8]) -> Result<Message, Failure> {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(line)) else {
      return .failure(Failure(code: .parse, message: "not JSON: a request is one JSON object on one line"))
    }
    guard case .object = value, value["jsonrpc"]?.string == "2.0" else {
      return .failure(Failure(code: .invalidRequest, message: "not a JSON-RPC 2.0 request object"))
    }
    var id: JSONOutput?
    if let given = value["id"] {
      guard let valid = Self.id(given) else {
        return .failure(Failure(code: .invalidRequest, message: "the id must be a string or an integer"))
      }
      id = valid
    }
    guard let method = value["method"]?.string else {
      return .failure(Failure(code: .invalidRequest, message: "the request has no method"))
    }
    return .success(Message(id: id, method: method, params: value["params"] ?? .object([:])))
  }

  /// The id of a line that could not be read as a request, when it has one.
  static func id(of line: [UInt8]) -> JSONOutput {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(line)) else { return .null }
    return value["id"].flatMap(Self.id) ?? .null
  }

  /// An id as JSON-RPC allows one: a string or an integer; nil for anything else.
  private static func id(_ value: JSONValue) -> JSONOutput? {
    switch value {
    case .string(let text): .string(text)
    case .number(let number) where number == number.rounded() && abs(number) < 1e15: .int(Int(number))
    default: nil
    }
  }

  static func result(_ id: JSONOutput, _ result: JSONOutput) -> JSONOutput {
    .object([("jsonrpc", .string("2.0")), ("id", id), ("result", result)])
  }

  static func error(_ id: JSONOutput, _ failure: Failure) -> JSONOutput {
    .object([
      ("jsonrpc", .string("2.0")), ("id", id),
      ("error", .object([("code", .int(failure.code.rawValue)), ("message", .string(failure.message))])),
    ])
  }
}

extension JSONValue {
  /// The value as watcher writes JSON (its numbers are integers; any other is written as its text).
  var output: JSONOutput {
    switch self {
    case .null: .null
    case .bool(let value): .bool(value)
    case .number(let value): value == value.rounded() && abs(value) < 1e15 ? .int(Int(value)) : .string("\(value)")
    case .string(let value): .string(value)
    case .array(let values): .array(values.map(\.output))
    case .object(let members): .object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value.output) })
    }
  }

  var bool: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  var int: Int? {
    if case .number(let value) = self, value == value.rounded(), abs(value) < 1e15 { return Int(value) }
    return nil
  }
}
