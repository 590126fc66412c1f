// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
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
    // A cache another user planted (a link, their directory, one they can write): no pictures, rather
    // than reading, writing or evicting among their files. Checked before it is made, and once it is.
    guard urls.contains(where: { $0 != nil }), problem == nil else { return result }
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
    guard problem == nil else { return result }
    let requests = missing.map { _, url in
      var request = FetchRequest(url: url, maxBytes: Self.maxBytes, timeout: Self.timeout)
      request.maxScope = AddressScope.limit(forLink: url, in: feedURL)
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

  /// PNG, JPEG, GIF or WebP, by their first bytes, of at most `maxPixels` by its header: anything else (an
  /// HTML error page, garbage, a picture whose size is not in its header) is not shown.
  package static func isImage(_ data: Data) -> Bool {
    guard let (width, height) = dimensions([UInt8](data.prefix(64 << 10))) else { return false }
    return width > 0 && height > 0 && width * height <= maxPixels
  }

  /// The most pixels a picture may have: a few hundred KB of PNG can say 20000×20000, which a notification
  /// server decodes into more than a gigabyte.
  package static let maxPixels = 16_000_000

  /// A picture's width and height from its header (PNG IHDR, GIF screen, WebP VP8/VP8L/VP8X, a JPEG SOF
  /// marker within the bytes given), or `nil` when it is not one of those.
  package static func dimensions(_ bytes: [UInt8]) -> (Int, Int)? {
    func be16(_ at: Int) -> Int { at + 1 < bytes.count ? Int(bytes[at]) << 8 | Int(bytes[at + 1]) : 0 }
    func le16(_ at: Int) -> Int { at + 1 < bytes.count ? Int(bytes[at + 1]) << 8 | Int(bytes[at]) : 0 }
    func le24(_ at: Int) -> Int { at + 2 < bytes.count ? Int(bytes[at + 2]) << 16 | le16(at) : 0 }
    func be32(_ at: Int) -> Int { be16(at) << 16 | be16(at + 2) }
    func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
      bytes.count >= offset + prefix.count && Array(bytes[offset..<(offset + prefix.count)]) == prefix
    }
    if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
      return bytes.count >= 24 && starts(Array("IHDR".utf8), at: 12) ? (be32(16), be32(20)) : nil
    }
    if starts(Array("GIF8".utf8)) { return bytes.count >= 10 ? (le16(6), le16(8)) : nil }
    if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
      if starts(Array("VP8 ".utf8), at: 12), bytes.count >= 30 { return (le16(26) & 0x3FFF, le16(28) & 0x3FFF) }
      if starts(Array("VP8L".utf8), at: 12), bytes.count >= 25 {
        let bits = le16(21) | le16(23) << 16
        return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
      }
      if starts(Array("VP8X".utf8), at: 12), bytes.count >= 30 { return (le24(24) + 1, le24(27) + 1) }
      return nil
    }
    guard starts([0xFF, 0xD8, 0xFF]) else { return nil }
    // JPEG: walk the markers to the first start of frame (SOF0–SOF15 but DHT, JPG and DAC).
    var at = 2
    while at + 9 < bytes.count, bytes[at] == 0xFF {
      let marker = bytes[at + 1]
      if marker == 0xFF {
        at += 1
        continue
      }
      if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) { return (be16(at + 7), be16(at + 5)) }
      if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 {
        at += 2
        continue
      }
      at += 2 + be16(at + 2)
    }
    return nil
  }

  /// Why the cache cannot be used (it, or the directory it is in, is a link, another user's or writable by
  /// others), nil when it can.
  package var problem: String? {
    let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.endIndex)])
    return FileSafety.privateDirectoryProblem(parent) ?? FileSafety.privateDirectoryProblem(directory)
  }

  /// Removes the least recently used of its own files (`HASH.img`, regular files) while the cache is over
  /// its size.
  private func evict() {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    var files: [(path: String, size: Int, used: Int)] = names.compactMap { name in
      guard name.hasSuffix(".img") else { return nil }
      let path = directory + "/" + name
      var info = stat()
      guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
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
