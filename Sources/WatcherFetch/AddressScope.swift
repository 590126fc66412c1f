// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

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
    self = Self.range(address)
    // An address of this machine's own interfaces reaches its services, whatever range it is in.
    if self < .thisMachine, Self.ownAddresses.contains(address.lowercased()) { self = .thisMachine }
  }

  /// The scope of `address` by its range alone.
  private static func range(_ address: String) -> AddressScope {
    var v4 = in_addr()
    if inet_pton(AF_INET, address, &v4) == 1 {
      return scope(ipv4: UInt32(bigEndian: v4.s_addr))
    }
    var v6 = in6_addr()
    guard inet_pton(AF_INET6, address, &v6) == 1 else { return .thisMachine }
    let bytes = withUnsafeBytes(of: v6) { Array($0) }
    if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
      // An IPv4-mapped address: ::ffff:a.b.c.d.
      return scope(ipv4: bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) })
    } else if bytes[0..<15].allSatisfy({ $0 == 0 }) {
      return .thisMachine  // :: and ::1
    } else if bytes[0] & 0xFE == 0xFC || (bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80) {
      return .privateNetwork  // fc00::/7 unique local, fe80::/10 link-local
    }
    return .internet
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

extension AddressScope {
  /// The addresses of this machine's interfaces (numeric, lower-case, without an IPv6 zone), read once.
  package static let ownAddresses: Set<String> = {
    var found: Set<String> = []
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0 else { return found }
    defer { freeifaddrs(list) }
    var node = list
    while let entry = node {
      node = entry.pointee.ifa_next
      guard let address = entry.pointee.ifa_addr else { continue }
      let family = Int32(address.pointee.sa_family)
      guard family == AF_INET || family == AF_INET6 else { continue }
      let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
      var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
      guard getnameinfo(address, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else {
        continue
      }
      let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      found.insert(String(text.prefix { $0 != "%" }).lowercased())
    }
    return found
  }()

  /// The most private scope a link found in `source` (a feed, or a page) may be fetched from: a picture,
  /// an article for `full_text`, a feed a page links to.
  ///
  /// Nothing fetched reaches a more private address than what linked to it, and inside a private network
  /// or this machine only the source's own origin (scheme, host and port) is trusted: a feed on the LAN or
  /// on 127.0.0.1 may have its own pictures and pages fetched, not another service's. Links in a local
  /// file (a feed or a page saved from anywhere) reach the internet only. `sourceScope` is the scope of the
  /// address `source` actually came from, when known; else its host is resolved.
  package static func limit(forLink link: String, in source: String, sourceScope: AddressScope? = nil)
    -> AddressScope
  {
    guard FeedLocation.isHTTP(source) else { return .internet }
    let scope = sourceScope ?? ProxyEnvironment.scope(ofHostIn: source)
    guard scope > .internet else { return .internet }
    return origin(link) == origin(source) && origin(link) != nil ? scope : .internet
  }

  /// `scheme://host:port` of a URL, lower-cased, with the scheme's default port; `nil` without a host.
  package static func origin(_ url: String) -> String? {
    guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), let host = parts.host,
      !host.isEmpty
    else { return nil }
    let port = parts.port ?? (scheme == "https" ? 443 : 80)
    return "\(scheme)://\(host.lowercased()):\(port)"
  }
}
