// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherFetch
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The pictures notifications show: each item's image downloaded once into a bounded cache
/// (`$XDG_CACHE_HOME/watcher/images`, oldest evicted).
///
/// Over the same fetch path as feeds: http(s) only, at most 2 MB, a few seconds, a few at once, and never
/// from an address more private than the feed's own (a public feed cannot make watcher fetch from the
/// user's network). A missing, broken, huge or slow image only means the notification goes out without
/// one.
package struct NotificationImages: Sendable {
  package let directory: String
  package let transport: any HTTPTransport
  package static let maxBytes = 2 << 20
  package static let timeout = 3
  package static let maxCacheBytes = 50 << 20

  package init(directory: String, transport: any HTTPTransport) {
    self.directory = directory
    self.transport = transport
  }

  /// The cache directory for `environment`: `$XDG_CACHE_HOME/watcher/images`, else `~/.cache/watcher/images`.
  package static func directory(_ environment: [String: String]) -> String {
    let base =
      environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
      ?? HomePath.home(environment) + "/.cache"
    return base + "/watcher/images"
  }

  /// A local file for each image URL (nil where there is none to show), fetching what is not cached yet.
  package func paths(for urls: [String?], feedURL: String) -> [String?] {
    var result = [String?](repeating: nil, count: urls.count)
    var missing: [(Int, String)] = []
    for (index, url) in urls.enumerated() {
      guard let url, FeedLocation.isHTTP(url) else { continue }
      let path = file(for: url)
      if FileManager.default.fileExists(atPath: path) {
        result[index] = path
        utime(path, nil)  // recently used: evicted last
      } else if !missing.contains(where: { $0.1 == url }) {
        missing.append((index, url))
      }
    }
    guard !missing.isEmpty else { return result }
    try? FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let limit = FeedLocation.isHTTP(feedURL) ? ProxyEnvironment.scope(ofHostIn: feedURL) : nil
    let requests = missing.map { _, url in
      var request = FetchRequest(url: url, maxBytes: Self.maxBytes, timeout: Self.timeout)
      request.maxScope = limit
      return request
    }
    let responses = transport.fetch(requests, concurrency: 4, cancellation: nil)
    for ((_, url), response) in zip(missing, responses) {
      guard case .success(let fetched) = response, fetched.status == 200, Self.isImage(fetched.body) else { continue }
      let path = file(for: url)
      guard (try? AtomicFile.write(fetched.body, to: path, directory: directory, syncDirectory: false)) != nil else {
        continue
      }
      for index in urls.indices where urls[index] == url { result[index] = path }
    }
    evict()
    return result
  }

  /// The cache file of `url`: its hash, with the extension servers expect to see.
  private func file(for url: String) -> String {
    directory + "/" + StableHash.hex(of: url) + ".img"
  }

  /// PNG, JPEG, GIF or WebP, by their first bytes: anything else (an HTML error page, garbage) is not shown.
  package static func isImage(_ data: Data) -> Bool {
    let head = [UInt8](data.prefix(12))
    if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) || head.starts(with: [0xFF, 0xD8, 0xFF]) { return true }
    if head.starts(with: Array("GIF8".utf8)) { return true }
    return head.count == 12 && head.starts(with: Array("RIFF".utf8)) && Array(head[8..<12]) == Array("WEBP".utf8)
  }

  /// Removes the least recently used files while the cache is over its size.
  private func evict() {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    var files: [(path: String, size: Int, used: Int)] = names.compactMap { name in
      let path = directory + "/" + name
      var info = stat()
      guard stat(path, &info) == 0 else { return nil }
      return (path, Int(info.st_size), Int(info.st_mtim.tv_sec))
    }
    var total = files.reduce(0) { $0 + $1.size }
    files.sort { $0.used < $1.used }
    for file in files where total > Self.maxCacheBytes {
      unlink(file.path)
      total -= file.size
    }
  }
}
