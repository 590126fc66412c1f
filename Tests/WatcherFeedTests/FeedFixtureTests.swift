// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed
import WatcherSupport
import WatcherTestSupport
import WatcherXML

/// Every feed under `Fixtures/Feeds/<kind>/` is parsed and its `watcher parse --json` output compared with `<name>.golden.json` beside it.
///
/// A new pair is a new test.
@Suite("Feed fixtures")
struct FeedFixtureTests {
  static let directory = Fixtures.url("Feeds")

  static var feeds: [String] {
    let enumerator = FileManager.default.enumerator(atPath: directory.path)
    var found: [String] = []
    while let path = enumerator?.nextObject() as? String {
      let name = (path as NSString).lastPathComponent
      guard !name.hasSuffix(".golden.json"), !name.hasSuffix(".md"), !name.hasPrefix("."),
        (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(path).path)[.type]
          as? FileAttributeType) == .typeRegular
      else { continue }
      found.append(path)
    }
    return found.sorted()
  }

  @Test("fixture parses to its golden JSON", arguments: feeds)
  func matchesGolden(_ path: String) throws {
    let url = Self.directory.appendingPathComponent(path)
    let parsed = try FeedParser.parse(contentsOf: url.path)
    var bytes: [UInt8] = []
    var writer = FeedJSONWriter { bytes.append(bytes: $0) }
    writer.write(parsed)
    let json = String(decoding: bytes, as: UTF8.self)
    // The output is valid JSON whatever the input.
    #expect((try? JSONSerialization.jsonObject(with: Data(bytes))) != nil)
    let golden = url.deletingPathExtension().appendingPathExtension("golden.json")
    let goldenURL =
      path.hasSuffix(".gz")
      ? url.deletingPathExtension().deletingPathExtension().appendingPathExtension("golden.json")
      : golden
    if let failure = Golden.check(json, against: goldenURL) { Issue.record(Comment(rawValue: failure)) }
  }

  @Test("the same document gives the same result from memory and from a file")
  func memoryAndFileAgree() throws {
    for path in Self.feeds {
      let url = Self.directory.appendingPathComponent(path)
      let fromFile = try FeedParser.parse(contentsOf: url.path)
      let fromMemory = try FeedParser.parse(try Data(contentsOf: url))
      #expect(fromFile == fromMemory, "\(path)")
    }
  }
}

/// The element names the parsers know, spelled out for start-up's sake, are the enum's own.
@Suite("Feed tags")
struct FeedTagTests {
  @Test("each spelling is its case's name, lowercased, in order")
  func spellingsAreTheCases() {
    #expect(FeedTag.spellings == FeedTag.Name.allCases.map { "\($0)".lowercased() })
    #expect(FeedTag(localName: "PubDate", namespace: .none).name == .pubDate)
    #expect(FeedTag(localName: "updateFrequency", namespace: .sy).name == .updateFrequency)
  }
}
