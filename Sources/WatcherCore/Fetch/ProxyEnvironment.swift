// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Which requests libcurl sends through a proxy, by the same environment variables it reads.
///
/// Behind a proxy, the address libcurl connects to is the proxy's, so the redirect rule (never to a more
/// private address) has to look at the target's own address instead: `scope(ofHostIn:)`.
enum ProxyEnvironment {
  /// Whether libcurl would send a request for `url` through a proxy, given `environment`.
  ///
  /// As libcurl does: `http_proxy` (lower case only) or `https_proxy`/`HTTPS_PROXY` by scheme, else
  /// `all_proxy`/`ALL_PROXY`; `no_proxy`/`NO_PROXY` lists hosts (and domain suffixes) to reach directly,
  /// `*` for all.
  static func isProxied(_ url: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
    guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
      let host = components.host?.lowercased()
    else { return false }
    func value(_ names: String...) -> String? {
      for name in names { if let value = environment[name], !value.isEmpty { return value } }
      return nil
    }
    let proxy =
      (scheme == "http" ? value("http_proxy") : value("https_proxy", "HTTPS_PROXY")) ?? value("all_proxy", "ALL_PROXY")
    guard proxy != nil else { return false }
    let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    for entry in (value("no_proxy", "NO_PROXY") ?? "").split(separator: ",") {
      var pattern = entry.trimmingCharacters(in: .whitespaces).lowercased()
      if pattern == "*" { return false }
      if pattern.hasPrefix(".") { pattern.removeFirst() }
      if pattern.isEmpty { continue }
      if bare == pattern || bare.hasSuffix("." + pattern) { return false }
    }
    return true
  }

  /// The most private scope among the addresses the host of `url` resolves to here.
  ///
  /// A literal address is judged as it is; a name that does not resolve here (only the proxy can) is
  /// judged as the internet, except `localhost`.
  static func scope(ofHostIn url: String) -> AddressScope {
    guard let host = URLComponents(string: url)?.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
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
