// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherFeed

/// Scores the article extractor on the pages in `Tests/Articles` against their known main text.
///
/// Word-level precision and recall: both texts become multisets of lower-case words (runs of letters and
/// digits; in scripts written without spaces, each character is a word), and their overlap is divided by
/// the extracted words (precision) and by the expected words (recall).
public enum ExtractionEvaluation {
  /// One page's figures.
  public struct PageScore: Sendable {
    public var name: String
    public var precision: Double
    public var recall: Double
  }

  /// The evaluation set.
  public static let directory = Fixtures.repositoryRoot.appendingPathComponent("Tests/Articles")

  /// Every page's figures, in name order.
  public static func run(directory: URL = directory) throws -> [PageScore] {
    let expected = directory.appendingPathComponent("expected")
    let names = try FileManager.default.contentsOfDirectory(atPath: expected.path)
      .filter { $0.hasSuffix(".txt") }.map { String($0.dropLast(4)) }.sorted()
    return try names.map { name in
      let page = try Data(contentsOf: directory.appendingPathComponent("pages/\(name).html.gz"))
      let truth = try String(contentsOf: expected.appendingPathComponent("\(name).txt"), encoding: .utf8)
      let text = try ArticleExtractor.extract([UInt8](page))?.text ?? ""
      let (precision, recall) = score(extracted: text, expected: truth)
      return PageScore(name: name, precision: precision, recall: recall)
    }
  }

  /// Word-level precision and recall of `extracted` against `expected`.
  public static func score(extracted: String, expected: String) -> (precision: Double, recall: Double) {
    let got = words(extracted)
    let want = words(expected)
    let overlap = got.reduce(0) { $0 + min($1.value, want[$1.key] ?? 0) }
    let gotCount = got.values.reduce(0, +)
    let wantCount = want.values.reduce(0, +)
    return (
      gotCount == 0 ? 0 : Double(overlap) / Double(gotCount), wantCount == 0 ? 1 : Double(overlap) / Double(wantCount)
    )
  }

  /// The words of `text` with their counts.
  public static func words(_ text: String) -> [String: Int] {
    var counts: [String: Int] = [:]
    var word = ""
    func end() {
      if !word.isEmpty { counts[word, default: 0] += 1 }
      word = ""
    }
    for scalar in text.lowercased().unicodeScalars {
      if unspaced(scalar) {
        end()
        counts[String(scalar), default: 0] += 1
      } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil
        || scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .spacingMark
      {
        word.unicodeScalars.append(scalar)
      } else {
        end()
      }
    }
    end()
    return counts
  }

  /// Scripts written without spaces between words: Han, kana, Thai, Lao, Myanmar, Khmer.
  private static func unspaced(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0E00...0x0EFF, 0x1000...0x109F, 0x1780...0x17FF, 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
      0xF900...0xFAFF:
      return true
    default: return false
    }
  }
}
