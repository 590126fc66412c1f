// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherSupport

extension StoryRadar {
  // MARK: Words

  /// Words that say nothing about a story: function words, in English and the languages feeds are most often in.
  static let stopWords: Set<String> = englishStopWords.union(otherStopWords)

  private static let englishStopWords: Set<String> = Set(
    """
    a about above after again against all am an and any are as at be been being before below between both but by \
    can could did do does doing down during each few for from further had has have having he her here hers him \
    his how i if in into is it its itself just me more most my no nor not now of off on once only or other our \
    ours out over own same she should so some such than that the their theirs them then there these they this \
    those through to too under until up us very was we were what when where which while who whom why will with \
    would you your yours may might shall go oh ok new says said how what
    """.split(separator: " ").map(String.init))

  /// The commonest function words of French, German, Spanish, Portuguese, Italian and Dutch, less those that
  /// are also English words a story could share ("war", "son", "van", "door", "plus", "als", "hat").
  private static let otherStopWords: Set<String> = Set(
    """
    le la les de des du un une et en au aux ce ces cet cette dans sur pour par pas qui que est sont avec sans \
    sa ses leur leurs il elle ils elles nous vous je tu ne se qu lui mais ou où comme été être fait tout tous \
    après avant entre chez vers sous der die das den dem ein eine einer eines einem einen und oder aber nicht \
    mit von zu zum zur im am auf aus bei für über unter nach vor ist sind wird werden haben sich es er sie wir \
    ihr ich auch wie wenn noch nur schon mehr sehr vom ins el los las una unos unas del al con por para sobre \
    su sus fue más mas pero lo ya muy os um uma da dos das em na nos nas ao aos com sem seu sua é são foi \
    mais gli di della dei delle dal nel nella per che non è sono più ma het een te met voor dat niet zijn \
    aan bij ook naar uit
    """.split(separator: " ").map(String.init))

  /// Whether a word only says which day: a day of the month (`10`), a month or a weekday.
  ///
  /// Two headlines that share only these ("Opening Bell 10 March", "News in Pictures - 10 March, 2014") are
  /// not one story. A year stays a word: "SXSW 2014".
  static func isDateWord(_ word: String) -> Bool {
    if let number = Int(word), word.utf8.count <= 2 { return number <= 31 }
    return dateNames.contains(word)
  }

  private static let dateNames: Set<String> = Set(
    """
    january february march april june july august september october november december jan feb mar apr jun jul \
    aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday today yesterday tomorrow
    """.split(separator: " ").map(String.init))

  /// A text's words as stories compare them.
  ///
  /// Lowercased, `-` and `/` splitting words and other marks dropped (`Icahn's` → `icahns`, `7.1` → `71`),
  /// without stop words and one-letter words, a plural `s` cut (`nominees` → `nominee`), each once, at most
  /// `maxWords`. Numbers stay: "Firefox 150" and "iOS 7.1" are what two reports of a release share.
  public static func words(_ text: String) -> [String] {
    var words: [String] = []
    // The word read so far, in UTF-8, and how many characters (scalars) it has.
    var current: [UInt8] = []
    var length = 0
    func flush() {
      defer {
        current.removeAll(keepingCapacity: true)
        length = 0
      }
      guard length > 1, length <= 40 else { return }
      var word = String(decoding: current, as: UTF8.self)
      guard !stopWords.contains(word) else { return }
      if length > 3, current.last == UInt8(ascii: "s"), current[current.count - 2] != UInt8(ascii: "s") {
        word.removeLast()
      }
      if !words.contains(word) { words.append(word) }
    }
    // By scalars, ASCII without a table look-up: this runs on every new item's headline and summary.
    for scalar in text.unicodeScalars {
      guard words.count < maxWords else { break }
      let value = scalar.value
      if value < 0x80 {
        switch UInt8(value) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
          current.append(UInt8(value))
          length += 1
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
          current.append(UInt8(value + 32))
          length += 1
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "-"),
          UInt8(ascii: "/"):
          flush()
        default: break
        }
      } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
        for lower in scalar.properties.lowercaseMapping.unicodeScalars {
          UTF8.encode(lower) { current.append($0) }
          length += 1
        }
      } else if scalar.properties.isWhitespace || scalar == "\u{2013}" || scalar == "\u{2014}" {
        flush()
      }
    }
    if words.count < maxWords { flush() }
    return words
  }

}

extension StoryRadar {
  /// The words of the items kept, each with a number, and how many items have each.
  ///
  /// The story tables are indexed by the numbers; the counts are the document frequencies. A word no item
  /// has any more is forgotten and its number used again.
  struct Vocabulary {
    private var numbers: [String: Int] = [:]
    private(set) var words: [String] = []
    /// How many items kept have each word.
    private(set) var counts: [Int] = []
    private var free: [Int] = []

    /// The number of `word`, if an item kept has it.
    func number(_ word: String) -> Int? { numbers[word] }

    /// Counts one more item with `word`, and returns its number.
    @discardableResult
    mutating func count(_ word: String) -> Int {
      if let number = numbers[word] {
        counts[number] += 1
        return number
      }
      let number: Int
      if let reused = free.popLast() {
        number = reused
        words[number] = word
        counts[number] = 1
      } else {
        number = words.count
        words.append(word)
        counts.append(1)
      }
      numbers[word] = number
      return number
    }

    /// Counts one item less with word `number`; returns true when no item has it any more (forgotten).
    @discardableResult
    mutating func uncount(_ number: Int) -> Bool {
      counts[number] -= 1
      guard counts[number] <= 0 else { return false }
      numbers[words[number]] = nil
      words[number] = ""
      counts[number] = 0
      free.append(number)
      return true
    }
  }
}
