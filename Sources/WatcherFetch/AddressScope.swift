// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// How private an IP address is: the internet, a private network, or this machine.
///
/// A redirect may stay in its scope or go outward, never inward: a public feed cannot send watcher to
/// 127.0.0.1, to the LAN, or to a link-local cloud metadata service (169.254.169.254), which would let a
/// stranger's server make requests from inside the user's network. A feed configured at a private address
/// may redirect within it.
package enum AddressScope: Int, Comparable, Sendable {
  case internet, privateNetwork, thisMachine

  package static func < (a: AddressScope, b: AddressScope) -> Bool { a.rawValue < b.rawValue }

  /// The scope of a numeric IPv4 or IPv6 address; an unparsable one counts as this machine (the most
  /// private), so it can never be reached by a redirect from a wider scope.
  package init(_ address: String) {
    var v4 = in_addr()
    if inet_pton(AF_INET, address, &v4) == 1 {
      self = Self.scope(ipv4: UInt32(bigEndian: v4.s_addr))
      return
    }
    var v6 = in6_addr()
    guard inet_pton(AF_INET6, address, &v6) == 1 else {
      self = .thisMachine
      return
    }
    let bytes = withUnsafeBytes(of: v6) { Array($0) }
    if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
      // An IPv4-mapped address: ::ffff:a.b.c.d.
      self = Self.scope(ipv4: bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) })
    } else if bytes[0..<15].allSatisfy({ $0 == 0 }) {
      self = .thisMachine  // :: and ::1
    } else if bytes[0] & 0xFE == 0xFC || (bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80) {
      self = .privateNetwork  // fc00::/7 unique local, fe80::/10 link-local
    } else {
      self = .internet
    }
  }

  private static func scope(ipv4 a: UInt32) -> AddressScope {
    let first = a >> 24
    if first == 127 || first == 0 { return .thisMachine }
    if first == 10 || a >> 20 == 0xAC1 || a >> 16 == 0xC0A8 || a >> 16 == 0xA9FE || a >> 22 == 0x191 {
      return .privateNetwork  // 10/8, 172.16/12, 192.168/16, 169.254/16 link-local, 100.64/10 shared
    }
    return .internet
  }
}
