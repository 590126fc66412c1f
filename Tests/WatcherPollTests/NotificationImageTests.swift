// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherActions
import WatcherFeed
import WatcherFetch
import WatcherTestSupport

/// The pictures of notifications: what counts as an image, the cache, and the private-address rule.
@Suite("Notification images")
struct NotificationImageTests {
  static let png = png(width: 64, height: 48)

  /// The start of a PNG: signature and IHDR chunk, saying `width`×`height`.
  static func png(width: UInt32, height: UInt32) -> Data {
    func be(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
    return Data(
      [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + be(width)
        + be(height) + [8, 6, 0, 0, 0, 0, 0, 0, 0])
  }

  @Test("a public feed's image is never fetched from this machine; a local feed's is, once, then cached")
  func privateAddressRule() throws {
    let server = try LoopbackHTTPServer { _ in .init(status: 200, body: Self.png) }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let images = NotificationImages(
      directory: dir.url.appendingPathComponent("images").path, transport: CurlTransport(userAgent: "t"))
    let url = server.url("/a.png")
    // 203.0.113.1 is a documentation address: public, and nothing is fetched from it.
    #expect(images.paths(for: [url], feedURL: "http://203.0.113.1/feed.xml") == [nil])
    #expect(server.requests.isEmpty)
    let local = images.paths(for: [url, nil, "file:///etc/passwd"], feedURL: server.url("/feed.xml"))
    #expect(local[0] != nil && local[1] == nil && local[2] == nil)
    #expect(FileManager.default.contents(atPath: local[0] ?? "") == Self.png)
    #expect(images.paths(for: [url], feedURL: server.url("/feed.xml")) == [local[0]])
    #expect(server.requests.count == 1, "the second time it came from the cache")
  }

  @Test("a picture cache another user planted (a link, a directory others can write) is never written or evicted")
  func plantedCache() throws {
    let server = try LoopbackHTTPServer { _ in .init(status: 200, body: Self.png) }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let victim = dir.url.appendingPathComponent("theirs").path
    try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
    try Data(repeating: 1, count: 1_000).write(to: URL(fileURLWithPath: victim + "/keep.img"))
    let linked = dir.url.appendingPathComponent("linked").path
    try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: victim)
    let open = dir.url.appendingPathComponent("open").path
    try FileManager.default.createDirectory(atPath: open + "/images", withIntermediateDirectories: true)
    chmod(open + "/images", 0o777)
    for cache in [linked, open + "/images", linked + "/images"] {
      let images = NotificationImages(directory: cache, transport: CurlTransport(userAgent: "t"))
      #expect(images.problem != nil, "\(cache)")
      #expect(images.paths(for: [server.url("/a.png")], feedURL: server.url("/feed.xml")) == [nil])
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: victim) == ["keep.img"])
    #expect(server.requests.isEmpty, "nothing fetched for a cache it cannot use")
  }

  @Test("PNG, JPEG, GIF and WebP are images by their headers; an HTML page, garbage or a picture too large is not")
  func sniffing() {
    #expect(NotificationImages.isImage(Self.png))
    // JPEG: an APP0 segment, then a baseline start of frame of 480×640.
    let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 17, 8, 0x01, 0xE0, 0x02, 0x80, 3, 0, 0, 0])
    #expect(NotificationImages.dimensions([UInt8](jpeg)).map { [$0.0, $0.1] } == [640, 480])
    #expect(NotificationImages.isImage(jpeg))
    #expect(NotificationImages.isImage(Data("GIF89a".utf8) + Data([0x40, 0, 0x30, 0])))
    let webp =
      Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8X".utf8) + Data(repeating: 0, count: 8) + Data([63, 0, 0, 47, 0, 0])
    #expect(NotificationImages.dimensions([UInt8](webp)).map { [$0.0, $0.1] } == [64, 48])
    #expect(!NotificationImages.isImage(Data("<!doctype html>".utf8)))
    #expect(!NotificationImages.isImage(Data([0xFF, 0xD8, 0xFF, 0xE0])), "no size in the header: not shown")
    // 389 KB of PNG can say 20000×20000: a notification server would decode it into 1.2 GB.
    #expect(!NotificationImages.isImage(Self.png(width: 20_000, height: 20_000)))
    #expect(!NotificationImages.isImage(Self.png(width: 0, height: 10)))
    #expect(NotificationImages.isImage(Self.png(width: 4_000, height: 4_000)))
  }

  @Test("the private-address rule for pictures: a file feed's or another local service's picture is not fetched")
  func pictureScopes() throws {
    let server = try LoopbackHTTPServer { _ in .init(status: 200, body: Self.png) }
    let other = try LoopbackHTTPServer { _ in .init(status: 200, body: Self.png) }
    defer {
      server.stop()
      other.stop()
    }
    let dir = try TemporaryDirectory()
    let images = NotificationImages(
      directory: dir.url.appendingPathComponent("images").path, transport: CurlTransport(userAgent: "t"))
    // A file feed's links are content from anywhere: not fetched from this machine.
    #expect(images.paths(for: [server.url("/a.png")], feedURL: "/home/me/feed.xml") == [nil])
    // A feed on 127.0.0.1 may have its own pictures, not another local service's.
    #expect(images.paths(for: [other.url("/b.png")], feedURL: server.url("/feed.xml")) == [nil])
    #expect(other.requests.isEmpty && server.requests.isEmpty)
    #expect(images.paths(for: [server.url("/a.png")], feedURL: server.url("/feed.xml"))[0] != nil)
    // A picture that is too large by its header is not kept.
    let huge = try LoopbackHTTPServer { _ in .init(status: 200, body: Self.png(width: 20_000, height: 20_000)) }
    defer { huge.stop() }
    #expect(images.paths(for: [huge.url("/h.png")], feedURL: huge.url("/feed.xml")) == [nil])
  }

  @Test("the first <img> of an item's HTML, resolved against its link; only http(s)")
  func firstImage() {
    #expect(
      FeedDiscovery.firstImage(in: "<p>x <IMG alt='a' SRC='pic.png'> <img src=b.png></p>", base: "https://e.org/p/1")
        == "https://e.org/p/pic.png")
    #expect(FeedDiscovery.firstImage(in: "<img src=\"data:image/png;base64,AAA\">", base: "https://e.org/") == nil)
    #expect(FeedDiscovery.firstImage(in: "<p>no picture</p>", base: nil) == nil)
  }
}
