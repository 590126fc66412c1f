// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CLibXML2
import FoundationEssentials
import Glibc
import WatcherSupport

/// HTML 4 named entities, from libxml2's table (`htmlEntityLookup`).
package enum HTMLEntities {
  private static let cache = Locked<[String: Int]>([:])

  /// The scalar an HTML entity name (without `&` and `;`) stands for.
  package static func scalar(named name: String) -> UInt32? {
    name.withCString { p in
      htmlEntityLookup(UnsafeRawPointer(p).assumingMemoryBound(to: xmlChar.self)).map { $0.pointee.value }
    }
  }

  /// An `xmlEntity` libxml2 can substitute for `&name;`, or `nil` when it is not an HTML entity.
  static func xmlEntity(named name: UnsafePointer<xmlChar>) -> xmlEntityPtr? {
    let key = String(cString: cString(name))
    // The cache holds addresses (Sendable); the pointer is made outside the lock.
    let address = cache.withLock { entities -> Int in
      if let address = entities[key] { return address }
      guard let descriptor = htmlEntityLookup(name) else { return 0 }
      var utf8: [UInt8] = []
      InputDecoder.appendUTF8(of: descriptor.pointee.value, to: &utf8)
      utf8.append(0)
      let entity = utf8.withUnsafeBufferPointer { content in
        xmlNewEntity(nil, name, Int32(XML_INTERNAL_PREDEFINED_ENTITY.rawValue), nil, nil, content.baseAddress)
      }
      guard let entity else { return 0 }
      entities[key] = Int(bitPattern: entity)
      return Int(bitPattern: entity)
    }
    return xmlEntityPtr(bitPattern: address)
  }

  /// If a character reference or named entity starts at `i`: its length and the scalar it stands for.
  ///
  /// Named entities need their `;`, except the few that HTML reads without one (`&amp`, `&lt`, `&gt`, `&quot`,
  /// `&nbsp`) when no letter or digit follows.
  package static func characterReference(_ b: Span<UInt8>, at i: Int) -> (Int, UInt32)? {
    b.withUnsafeBufferPointer { characterReference(buffer: $0, at: i) }
  }

  static func characterReference(buffer b: UnsafeBufferPointer<UInt8>, at i: Int) -> (Int, UInt32)? {
    let n = b.count
    var j = i + 1
    guard j < n else { return nil }
    if b[j] == UInt8(ascii: "#") {
      j += 1
      var value: UInt32 = 0
      var digits = 0
      if j < n, b[j] | 0x20 == UInt8(ascii: "x") {
        j += 1
        while j < n, let d = hexValue(b[j]), digits < 8 {
          value = value * 16 + d
          digits += 1
          j += 1
        }
      } else {
        while j < n, b[j] >= 48, b[j] <= 57, digits < 8 {
          value = value * 10 + UInt32(b[j] - 48)
          digits += 1
          j += 1
        }
      }
      guard digits > 0 else { return nil }
      if j < n, b[j] == UInt8(ascii: ";") { j += 1 }
      if (0x80...0x9F).contains(value) { value = InputDecoder.windows1252(UInt8(value)) }
      if value == 0 || value > 0x10FFFF || (0xD800...0xDFFF).contains(value) { value = 0xFFFD }
      return (j - i, value)
    }
    let nameStart = j
    while j < n, (b[j] | 0x20 >= 97 && b[j] | 0x20 <= 122 || b[j] >= 48 && b[j] <= 57), j - nameStart < 32 { j += 1 }
    guard j > nameStart else { return nil }
    let name = String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<j]), as: UTF8.self)
    if j < n, b[j] == UInt8(ascii: ";") {
      guard let scalar = HTMLEntities.scalar(named: name) else { return nil }
      return (j + 1 - i, scalar)
    }
    switch name {
    case "amp": return (j - i, 0x26)
    case "lt": return (j - i, 0x3C)
    case "gt": return (j - i, 0x3E)
    case "quot": return (j - i, 0x22)
    case "nbsp": return (j - i, 0xA0)
    default: return nil
    }
  }

  private static func hexValue(_ c: UInt8) -> UInt32? {
    switch c {
    case 48...57: return UInt32(c - 48)
    case 97...102: return UInt32(c - 87)
    case 65...70: return UInt32(c - 55)
    default: return nil
    }
  }
}
