// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherFeed
import WatcherTestSupport

/// Word-level precision and recall of the article extractor on Tests/Articles, page by page and on average.
///
/// With a page name, prints that page's extracted title and text instead.
func extractBenchmark() throws {
  if CommandLine.arguments.count > 2 {
    let name = CommandLine.arguments[2]
    let page = try Data(
      contentsOf: ExtractionEvaluation.directory.appendingPathComponent("pages/\(name).html.gz"))
    let article = try ArticleExtractor.extract([UInt8](page))
    print(article?.title ?? "(no title)")
    print(article?.text ?? "(no text)")
    return
  }
  let started = Date()
  let scores = try ExtractionEvaluation.run()
  let seconds = Date().timeIntervalSince(started)
  print("page                      precision  recall")
  for score in scores {
    print(
      score.name.padding(toLength: 26, withPad: " ", startingAt: 0)
        + String(format: "%9.3f %7.3f", score.precision, score.recall))
  }
  let precision = scores.map(\.precision).reduce(0, +) / Double(scores.count)
  let recall = scores.map(\.recall).reduce(0, +) / Double(scores.count)
  print(String(format: "average (%d pages)          %6.3f %7.3f", scores.count, precision, recall))
  print(String(format: "%.2f s for all pages (reading, decompressing, parsing, extracting)", seconds))
}
