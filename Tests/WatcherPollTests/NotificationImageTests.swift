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
  static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])

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

  @Test("PNG, JPEG, GIF and WebP are images; an HTML page or garbage is not")
  func sniffing() {
    #expect(NotificationImages.isImage(Self.png))
    #expect(NotificationImages.isImage(Data([0xFF, 0xD8, 0xFF, 0xE0])))
    #expect(NotificationImages.isImage(Data("GIF89a".utf8)))
    #expect(NotificationImages.isImage(Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8)))
    #expect(!NotificationImages.isImage(Data("<!doctype html>".utf8)))
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
