// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed
import WatcherSupport
import WatcherTestSupport

/// Every file of the corpus in Tests/Corpus (3,350 files from registry archives: feedparser's test suite and
/// real and one-feature feeds of other parsers and readers, ill-formed ones included) parses or is refused with a `FeedParseError`, never a crash, and always yields
/// valid JSON.
@Suite("Corpus robustness")
struct CorpusRobustnessTests {
  static let corpus = Fixtures.repositoryRoot.appendingPathComponent("Tests/Corpus")

  /// The corpus's feed files, relative to it (not the licences, the MANIFEST or the notes).
  static func files() throws -> [String] {
    let enumerator = try #require(FileManager.default.enumerator(atPath: corpus.path))
    var paths: [String] = []
    while let path = enumerator.nextObject() as? String {
      guard !path.hasPrefix("licenses"), !path.hasSuffix(".md"), !path.hasSuffix(".tsv"),
        (try? corpus.appendingPathComponent(path).resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
      else { continue }
      paths.append(path)
    }
    return paths
  }

  @Test("every corpus file parses or is refused cleanly")
  func wholeCorpus() throws {
    var parsed = 0
    var refused = 0
    for path in try Self.files() {
      let url = Self.corpus.appendingPathComponent(path)
      do {
        let result = try FeedParser.parse(contentsOf: url.path)
        var bytes: [UInt8] = []
        var writer = FeedJSONWriter { bytes.append(contentsOf: $0) }
        writer.write(result)
        #expect((try? JSONSerialization.jsonObject(with: Data(bytes))) != nil, "\(path): invalid JSON output")
        parsed += 1
      } catch is FeedParseError {
        refused += 1
      }
    }
    #expect(parsed > 3_250)
    #expect(refused < 60)
  }

  @Test("items read for their identity only (known, or all of them) get exactly the keys of the full parse")
  func knownItemsKeepTheirKeys() throws {
    var compared = 0
    var stubbed = 0
    for path in try Self.files() {
      let url = Self.corpus.appendingPathComponent(path)
      guard let whole = try? FeedParser.parse(contentsOf: url.path) else { continue }
      let keys = whole.feed.items.map(\.key)
      // Every other key known: those items come back as stubs, the rest in full.
      let known = Set(keys.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
      let again = try FeedParser.parse(contentsOf: url.path, options: FeedParser.Options(knownKeys: known))
      #expect(again.feed.items.map(\.key) == keys, "\(path)")
      for (full, item) in zip(whole.feed.items, again.feed.items) where !known.contains(item.key) {
        if item != full { Issue.record("\(path): an unknown item was not read in full: \(item.key)") }
      }
      stubbed += again.feed.items.filter { known.contains($0.key) && $0.title == nil && $0.text == nil }.count
      // Identity only (a catch-up, a silent first poll): the same keys again.
      var identity = FeedParser.Options()
      identity.identityOnly = true
      #expect(try FeedParser.parse(contentsOf: url.path, options: identity).feed.items.map(\.key) == keys, "\(path)")
      compared += 1
    }
    #expect(compared > 3_250 && stubbed > 1_000, "\(compared) files, \(stubbed) items read as stubs")
  }

  @Test("the streaming parse of a file writes exactly the JSON of the in-memory parse, for every corpus file")
  func streamingIsTheSame() throws {
    let paths = try Self.files()
    var compared = 0
    // A small item limit too, so that files with more items exercise the limit's warning.
    for options in [FeedParser.Options(), FeedParser.Options(maxItems: 3)] {
      for path in paths {
        let url = Self.corpus.appendingPathComponent(path)
        guard let data = try? Data(contentsOf: url), let whole = try? FeedParser.parse(data, options: options) else {
          continue
        }
        var expected: [UInt8] = []
        var writer = FeedJSONWriter { expected.append(contentsOf: $0) }
        writer.write(whole)
        let streamedBytes = Locked<[UInt8]>([])
        final class Box: @unchecked Sendable { var writer: FeedJSONWriter? }
        let box = Box()
        box.writer = FeedJSONWriter { bytes in streamedBytes.withLock { $0 += bytes } }
        let streamed = try FeedParser.stream(
          contentsOf: url.path, options: options, header: { box.writer?.begin($0) }, item: { box.writer?.item($0) })
        box.writer?.end(warnings: streamed.warnings)
        #expect(streamedBytes.withLock { $0 } == expected, "\(path)")
        #expect(streamed.items == whole.feed.items.count, "\(path)")
        // As `watcher parse --json` does it: each item encoded on the parser's workers.
        streamedBytes.withLock { $0 = [] }
        box.writer = FeedJSONWriter { bytes in streamedBytes.withLock { $0 += bytes } }
        let encoded = try FeedParser.stream(
          contentsOf: url.path, options: options, header: { box.writer?.begin($0) }, encode: FeedJSONWriter.encode,
          item: { item, bytes in box.writer?.item(encoded: bytes ?? []) })
        box.writer?.end(warnings: encoded.warnings)
        #expect(streamedBytes.withLock { $0 } == expected, "\(path), encoded on the workers")
        compared += 1
      }
    }
    #expect(compared > 6_500)
  }

  @Test("a body received in pieces parses exactly as the whole body, however it is cut, for every corpus file")
  func piecesAreTheSame() throws {
    var random = SplitMix(seed: 16)
    var compared = 0
    for path in try Self.files() {
      let data = try Data(contentsOf: Self.corpus.appendingPathComponent(path))
      // Cut at random places, some pieces a single byte, some larger than a parser chunk.
      var pieces: [Data] = []
      var start = 0
      while start < data.count {
        let size = random.next(2) == 0 ? 1 + random.next(16) : 1 + random.next(100_000)
        pieces.append(data.subdata(in: start..<min(data.count, start + size)))
        start += size
      }
      let expected = Result { () throws(FeedParseError) in try FeedParser.parse(data) }
      let actual = Result { () throws(FeedParseError) in try FeedParser.parse(pieces: pieces) }
      switch (expected, actual) {
      case (.success(let whole), .success(let read)):
        #expect(read.feed == whole.feed && read.warnings == whole.warnings, "\(path)")
      case (.failure(let whole), .failure(let read)):
        #expect("\(read)" == "\(whole)", "\(path)")
      default:
        Issue.record("\(path): \(expected) whole, \(actual) in pieces")
      }
      compared += 1
    }
    #expect(compared > 3_300)
  }
}
