// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Which requests libcurl sends through a proxy, by the same environment variables it reads.
///
/// Behind a proxy, the address libcurl connects to is the proxy's, so the redirect rule (never to a more
/// private address) has to look at the target's own address instead: `scope(ofHostIn:)`.
package struct ProxyEnvironment: Sendable {
  /// `http_proxy` (lower case only, as libcurl reads it).
  package var http: String?
  /// `https_proxy`, else `HTTPS_PROXY`.
  package var https: String?
  /// `all_proxy`, else `ALL_PROXY`.
  package var all: String?
  /// `no_proxy`, else `NO_PROXY`, split at commas, lower-cased, without a leading dot.
  package var exceptions: [String]

  /// Reads the variables from `environment`.
  package init(_ environment: [String: String]) {
    func value(_ names: String...) -> String? {
      for name in names { if let value = environment[name], !value.isEmpty { return value } }
      return nil
    }
    http = value("http_proxy")
    https = value("https_proxy", "HTTPS_PROXY")
    all = value("all_proxy", "ALL_PROXY")
    exceptions = (value("no_proxy", "NO_PROXY") ?? "").split(separator: ",").compactMap { entry in
      var pattern = entry.trimming(.spaces).lowercased()
      if pattern.hasPrefix(".") { pattern.removeFirst() }
      return pattern.isEmpty ? nil : pattern
    }
  }

  /// This process's proxy variables, read once (the check runs for every connection).
  package static let current = ProxyEnvironment(ProcessInfo.processInfo.environment)

  /// Whether any proxy is configured at all (when not, nothing else needs looking at).
  package var isEmpty: Bool { http == nil && https == nil && all == nil }

  /// Whether libcurl would send a request for `url` through a proxy.
  ///
  /// As libcurl does: `http_proxy` or `https_proxy` by scheme, else `all_proxy`; `no_proxy` lists hosts
  /// (and domain suffixes) to reach directly, `*` for all.
  package func isProxied(_ url: String) -> Bool {
    guard !isEmpty, let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
      let host = components.host?.lowercased()
    else { return false }
    guard (scheme == "http" ? http : https) ?? all != nil else { return false }
    let bare = host.trimming(.these("[]"))
    for pattern in exceptions {
      if pattern == "*" || bare == pattern || bare.hasSuffix("." + pattern) { return false }
    }
    return true
  }

  /// The most private scope among the addresses the host of `url` resolves to here.
  ///
  /// A literal address is judged as it is; a name that does not resolve here (only the proxy can) is
  /// judged as the internet, except `localhost`.
  package static func scope(ofHostIn url: String) -> AddressScope {
    guard let host = URLComponents(string: url)?.host?.trimming(.these("[]")),
      !host.isEmpty
    else { return .thisMachine }
    if host.lowercased() == "localhost" || host.lowercased().hasSuffix(".localhost") { return .thisMachine }
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return .internet }
    defer { freeaddrinfo(list) }
    var scope = AddressScope.internet
    var node: UnsafeMutablePointer<addrinfo>? = first
    while let entry = node {
      var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
      if getnameinfo(
        entry.pointee.ai_addr, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0
      {
        let address = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        scope = max(scope, AddressScope(address))
      }
      node = entry.pointee.ai_next
    }
    return scope
  }
}
