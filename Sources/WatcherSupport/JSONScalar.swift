// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials

/// One member value of a flat object, as `JSONReader.members` reads it.
package enum JSONScalar: Equatable, Sendable {
  case string(String)
  case int(Int)
  case bool(Bool)
  case null
  /// A fraction, an array or an object (checked, not kept).
  case other

  package var string: String? { if case .string(let value) = self { value } else { nil } }
  package var int: Int? { if case .int(let value) = self { value } else { nil } }
  package var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
}

extension JSONReader {
  /// The members of a one-object document with their scalar values: for the small records (a socket
  /// request, the daemon's record, a journal line) that need no schema of their own.
  package static func members(_ data: some Collection<UInt8>) throws -> [String: JSONScalar] {
    try read(data) { json in
      var members: [String: JSONScalar] = [:]
      try json.object { json, key in members[key] = try json.scalar() }
      return members
    }
  }
}
