// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed
import WatcherTestSupport

/// Every file of the corpus in Tests/Corpus (~2,900 real, synthetic and feedparser test-suite feeds,
/// ill-formed ones included) parses or is refused with a `FeedParseError`, never a crash, and always yields
/// valid JSON.
@Suite("Corpus robustness")
struct CorpusRobustnessTests {
  static let corpus = Fixtures.repositoryRoot.appendingPathComponent("Tests/Corpus")

  @Test("every corpus file parses or is refused cleanly")
  func wholeCorpus() throws {
    let enumerator = try #require(FileManager.default.enumerator(atPath: Self.corpus.path))
    var parsed = 0
    var refused = 0
    while let path = enumerator.nextObject() as? String {
      let url = Self.corpus.appendingPathComponent(path)
      guard !path.hasPrefix("licenses"), !path.hasSuffix(".md"), !path.hasSuffix(".tsv"),
        (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
      else { continue }
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
    #expect(parsed > 2_500)
    #expect(refused < 200)
  }
}
