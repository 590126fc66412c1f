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

/// The extractor's CPU time per page on a directory of saved pages (`.html`, `.html.gz`, or mozilla's
/// `NAME/source.html`), in this process: no start-up, no reading from disk in the figure.
///
/// `watcher-bench extract-time DIR [PASSES]` prints the median, the 90th percentile and the slowest page,
/// each the best of PASSES runs (3 by default) of reading that page.
func extractTimeBenchmark() throws {
  guard CommandLine.arguments.count > 2 else {
    print("usage: watcher-bench extract-time DIR [PASSES]")
    exit(64)
  }
  let directory = URL(fileURLWithPath: CommandLine.arguments[2])
  let passes = CommandLine.arguments.count > 3 ? Int(CommandLine.arguments[3]) ?? 3 : 3
  guard let walk = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
    print("watcher-bench: cannot read \(directory.path)")
    exit(66)
  }
  let files = walk.compactMap { $0 as? URL }.filter {
    let name = $0.lastPathComponent
    return name.hasSuffix(".html") && name != "expected.html" || name.hasSuffix(".html.gz")
  }.sorted { $0.path < $1.path }
  var times: [(Double, String)] = []
  var bytes = 0
  for file in files {
    let page = [UInt8](try Data(contentsOf: file))
    bytes += page.count
    var best = Double.infinity
    for _ in 0..<passes {
      let start = cpuSeconds()
      _ = try? ArticleExtractor.extract(page)
      best = min(best, cpuSeconds() - start)
    }
    times.append((best, file.path.dropFirst(directory.path.count + 1).description))
  }
  guard !times.isEmpty else { return }
  let sorted = times.sorted { $0.0 < $1.0 }
  let total = sorted.reduce(0) { $0 + $1.0 }
  func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
  print("\(sorted.count) pages, \(bytes / 1024) KiB; CPU per page, best of \(passes):")
  print(
    "median \(ms(sorted[sorted.count / 2].0)), p90 \(ms(sorted[sorted.count * 9 / 10].0)), "
      + "slowest \(ms(sorted[sorted.count - 1].0)) (\(sorted[sorted.count - 1].1)), all \(ms(total))")
}

/// The CPU seconds this process has used (user and system).
func cpuSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
