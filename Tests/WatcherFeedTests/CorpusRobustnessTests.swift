// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed
import WatcherSupport
import WatcherTestSupport

extension Tag {
  /// The tests that go through every file of `Tests/Corpus` (skip them in the inner loop:
  /// `swift test --skip Corpus`, docs/development.md).
  @Tag static var corpus: Self
}

/// Every file of the corpus in Tests/Corpus parses or is refused cleanly, and reads the same every way.
///
/// The corpus is 3,350 files from registry archives: feedparser's test suite and real and one-feature feeds of
/// other parsers and readers, ill-formed ones included. Each parses or is refused with a `FeedParseError`,
/// never a crash, and always yields valid JSON; read in other ways (for its keys only, streamed, encoded on
/// the workers, in pieces) it gives the same result. One test case per file, run in parallel, each naming its
/// file.
@Suite("Corpus robustness", .tags(.corpus))
struct CorpusRobustnessTests {
  static let corpus = Fixtures.repositoryRoot.appendingPathComponent("Tests/Corpus")

  /// The corpus's feed files, relative to it (not the licences, the lists or the notes).
  static let files: [String] = {
    guard let enumerator = FileManager.default.enumerator(atPath: corpus.path) else { return [] }
    var paths: [String] = []
    while let path = enumerator.nextObject() as? String {
      guard !path.hasPrefix("licenses"), !path.hasSuffix(".md"), !path.hasSuffix(".tsv"),
        (try? corpus.appendingPathComponent(path).resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
      else { continue }
      paths.append(path)
    }
    return paths.sorted()
  }()

  @Test("the corpus is whole: 3,300 files and more, almost all of them parse")
  func size() throws {
    #expect(Self.files.count > 3_300)
    var (refused, stubbed) = (0, 0)
    for path in Self.files {
      let file = Self.corpus.appendingPathComponent(path).path
      guard let whole = try? FeedParser.parse(contentsOf: file) else {
        refused += 1
        continue
      }
      // Every other key known: those come back as stubs (read for their identity only).
      let known = Set(whole.feed.items.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.key))
      let again = try FeedParser.parse(contentsOf: file, options: FeedParser.Options(knownKeys: known))
      stubbed += again.feed.items.filter { known.contains($0.key) && $0.title == nil && $0.text == nil }.count
    }
    #expect(refused < 60, "\(refused) files refused")
    #expect(stubbed > 1_000, "\(stubbed) items read as stubs")
  }

  @Test("a corpus file parses or is refused cleanly; its keys, stream and pieces agree", arguments: files)
  func file(_ path: String) throws {
    let url = Self.corpus.appendingPathComponent(path)
    let data = try Data(contentsOf: url)
    let whole: ParsedFeed
    do {
      whole = try FeedParser.parse(contentsOf: url.path)
    } catch is FeedParseError {
      try pieces(data, path: path)
      return
    }
    var bytes: [UInt8] = []
    var writer = FeedJSONWriter { bytes.append(bytes: $0) }
    writer.write(whole)
    #expect((try? JSONSerialization.jsonObject(with: Data(bytes))) != nil, "invalid JSON output")
    try knownItemsKeepTheirKeys(url, whole: whole)
    for options in [FeedParser.Options(), FeedParser.Options(maxItems: 3)] {
      try streamingIsTheSame(url, data: data, options: options)
    }
    try pieces(data, path: path)
  }

  /// Items read for their identity only (known, or all of them) get exactly the keys of the full parse.
  func knownItemsKeepTheirKeys(_ url: URL, whole: ParsedFeed) throws {
    let keys = whole.feed.items.map(\.key)
    // Every other key known: those items come back as stubs, the rest in full.
    let known = Set(keys.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
    let again = try FeedParser.parse(contentsOf: url.path, options: FeedParser.Options(knownKeys: known))
    #expect(again.feed.items.map(\.key) == keys)
    for (full, item) in zip(whole.feed.items, again.feed.items) where !known.contains(item.key) {
      if item != full { Issue.record("an unknown item was not read in full: \(item.key)") }
    }
    // Identity only (a catch-up, a silent first poll): the same keys again.
    var identity = FeedParser.Options()
    identity.identityOnly = true
    #expect(try FeedParser.parse(contentsOf: url.path, options: identity).feed.items.map(\.key) == keys)
  }

  /// The streaming parse of a file writes exactly the JSON of the in-memory parse, also when each item is
  /// encoded on the parser's workers (as `watcher parse --json` does).
  func streamingIsTheSame(_ url: URL, data: Data, options: FeedParser.Options) throws {
    guard let whole = try? FeedParser.parse(data, options: options) else { return }
    var expected: [UInt8] = []
    var writer = FeedJSONWriter { expected.append(bytes: $0) }
    writer.write(whole)
    let streamedBytes = Locked<[UInt8]>([])
    final class Box: @unchecked Sendable { var writer: FeedJSONWriter? }
    let box = Box()
    box.writer = FeedJSONWriter { bytes in
      let copy = Array(copying: bytes)
      streamedBytes.withLock { $0 += copy }
    }
    let streamed = try FeedParser.stream(
      contentsOf: url.path, options: options, header: { box.writer?.begin($0) }, item: { box.writer?.item($0) })
    box.writer?.end(warnings: streamed.warnings)
    #expect(Self.difference(streamedBytes.withLock { $0 }, expected) == nil)
    #expect(streamed.items == whole.feed.items.count)
    streamedBytes.withLock { $0 = [] }
    box.writer = FeedJSONWriter { bytes in
      let copy = Array(copying: bytes)
      streamedBytes.withLock { $0 += copy }
    }
    let encoded = try FeedParser.stream(
      contentsOf: url.path, options: options, header: { box.writer?.begin($0) }, encode: FeedJSONWriter.encode,
      item: { item, bytes in
        if let bytes { box.writer?.item(encoded: bytes) } else { box.writer?.item(item) }
      })
    box.writer?.end(warnings: encoded.warnings)
    #expect(Self.difference(streamedBytes.withLock { $0 }, expected) == nil, "encoded on the workers")
  }

  /// Where two outputs first differ, with a little of each from there (a whole feed's bytes in a failure
  /// message took minutes to print); nil when they are the same.
  static func difference(_ got: [UInt8], _ expected: [UInt8]) -> String? {
    guard got != expected else { return nil }
    let shorter = min(got.count, expected.count)
    let at = (0..<shorter).first { got[$0] != expected[$0] } ?? shorter
    func around(_ bytes: [UInt8]) -> String {
      String(decoding: bytes[at..<min(at + 80, bytes.count)], as: UTF8.self)
    }
    return "byte \(at) of \(got.count) (expected \(expected.count)): got '\(around(got))', "
      + "expected '\(around(expected))'"
  }

  /// A body received in pieces parses exactly as the whole body, however it is cut.
  func pieces(_ data: Data, path: String) throws {
    var random = SplitMix(seed: UInt64(truncatingIfNeeded: path.utf8.reduce(16) { $0 &* 31 &+ Int($1) }))
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
      #expect(read.feed == whole.feed && read.warnings == whole.warnings)
    case (.failure(let whole), .failure(let read)):
      #expect("\(read)" == "\(whole)")
    default:
      Issue.record("\(expected) whole, \(actual) in pieces")
    }
  }
}
