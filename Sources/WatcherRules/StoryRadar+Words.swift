// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherSupport

extension StoryRadar {
  // MARK: Words

  /// Words that say nothing about a story.
  static let stopWords: Set<String> = Set(
    """
    a about above after again against all am an and any are as at be been being before below between both but by \
    can could did do does doing down during each few for from further had has have having he her here hers him \
    his how i if in into is it its itself just me more most my no nor not now of off on once only or other our \
    ours out over own same she should so some such than that the their theirs them then there these they this \
    those through to too under until up us very was we were what when where which while who whom why will with \
    would you your yours may might shall go oh ok new says said how what
    """.split(separator: " ").map(String.init))

  /// A text's words as stories compare them.
  ///
  /// Lowercased, `-` and `/` splitting words and other marks dropped (`Icahn's` → `icahns`, `7.1` → `71`),
  /// without stop words and one-letter words, a plural `s` cut (`nominees` → `nominee`), each once, at most
  /// `maxWords`. Numbers stay: "Firefox 150" and "iOS 7.1" are what two reports of a release share.
  public static func words(_ text: String) -> [String] {
    var words: [String] = []
    var seen = Set<String>()
    var current = String.UnicodeScalarView()
    func flush() {
      defer { current = String.UnicodeScalarView() }
      guard current.count > 1, current.count <= 40 else { return }
      var word = String(current)
      guard !stopWords.contains(word) else { return }
      if current.count > 3, word.hasSuffix("s"), !word.hasSuffix("ss") { word.removeLast() }
      if seen.insert(word).inserted { words.append(word) }
    }
    // By scalars, ASCII without a table look-up: this runs on every new item's headline and summary.
    for scalar in text.unicodeScalars {
      guard words.count < maxWords else { break }
      let value = scalar.value
      if value < 0x80 {
        switch UInt8(value) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
          current.append(scalar)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): current.append(Unicode.Scalar(UInt8(value + 32)))
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "-"),
          UInt8(ascii: "/"):
          flush()
        default: break
        }
      } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
        current.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
      } else if scalar.properties.isWhitespace || scalar == "\u{2013}" || scalar == "\u{2014}" {
        flush()
      }
    }
    if words.count < maxWords { flush() }
    return words
  }
}
