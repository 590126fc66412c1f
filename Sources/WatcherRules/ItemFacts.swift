// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherRegex

#if canImport(Glibc)
  import Glibc
#endif

/// An item's fields as rules see them: each field's values read and folded once per item, on first use,
/// and searched for every rule's literals in one pass (`NeedleSet`).
package struct ItemFacts {
  package let item: FeedItem
  package let feed: String
  /// Tags so far; changing them drops the values read for `tag`.
  package var tags: [String] = [] {
    didSet { ranges[MatchField.tag.index] = nil }
  }
  /// Whether matches report the text that matched (test-rules shows it; a poll does not need it, and a
  /// regex then only asks its DFA whether it matches, never where).
  package var wantsExcerpts = true
  /// The item's learned score, when rules test it and there is one.
  package var score: Double?

  /// One value of a field (categories and tags have several), as written and folded.
  private struct Value {
    var name: String
    var raw: String
    var folded: String
    /// Whether the raw value is ASCII (folding then keeps every offset, so matches map back).
    var ascii: Bool
    /// Where the automaton's findings for it start in `found`, or -1 until it has read the value.
    var found = -1

    init(_ name: String, _ raw: String) {
      self.name = name
      self.raw = raw
      (folded, ascii) = TextFolding.foldReportingASCII(raw)
    }
  }

  /// Every value read so far.
  ///
  /// Title, text, categories and content are read together and in that order, the order `any` searches
  /// them, so that `any` is the range of the four.
  private var values: [Value] = []
  /// Each field's values in `values`, by `MatchField.index`, once read.
  private var ranges: [Range<Int>?] = Array(repeating: nil, count: MatchField.allCases.count)
  /// For each value the automaton has read, two sets of needle ids (`needles.words` words each): the
  /// needles it contains, then those it contains as whole words.
  private var found: [UInt64] = []

  package init(item: FeedItem, feed: String) {
    self.item = item
    self.feed = feed
  }

  /// Where `field`'s values are in `values`, reading them on first use.
  private mutating func range(_ field: MatchField) -> Range<Int> {
    if let known = ranges[field.index] { return known }
    func read(_ name: String, _ raw: String?) {
      if let raw { values.append(Value(name, raw)) }
    }
    let start = values.count
    switch field {
    case .title, .text, .category, .content, .any:
      for part in MatchField.anyParts {
        let from = values.count
        switch part {
        case .title: read("title", item.title)
        case .text: read("text", item.text)
        case .content: read("content", item.content)
        default: for category in item.categories { read("category", category) }
        }
        ranges[part.index] = from..<values.count
      }
      ranges[MatchField.any.index] = start..<values.count
      return ranges[field.index] ?? start..<start
    case .author: read("author", item.author)
    case .link: read("link", item.link)
    case .feed: read("feed", feed)
    case .tag: for tag in tags { read("tag", tag) }
    }
    ranges[field.index] = start..<values.count
    return start..<values.count
  }

  /// Where value `index`'s findings start in `found`; the automaton reads the value on first use.
  private mutating func scan(_ index: Int, _ needles: NeedleSet) -> Int {
    if values[index].found >= 0 { return values[index].found }
    let words = needles.words
    let base = found.count
    found.append(contentsOf: repeatElement(0, count: 2 * words))
    var folded = values[index].folded
    folded.withUTF8 { bytes in
      found.withUnsafeMutableBufferPointer { bits in
        needles.scan(bytes) { id, start in
          let word = id >> 6
          let bit: UInt64 = 1 << UInt64(id & 63)
          bits[base + word] |= bit
          if bits[base + words + word] & bit == 0, !ByteSearch.isWordScalar(before: start, in: bytes.span),
            !ByteSearch.isWordScalar(at: start + needles.needles[id].count, in: bytes.span)
          {
            bits[base + words + word] |= bit
          }
        }
      }
    }
    values[index].found = base
    return base
  }

  /// The first value of `field` containing any of the needles `ids` of `needles` (as whole words when asked).
  ///
  /// The engine passes its needle set with each call rather than the facts keeping a reference to it: a
  /// reference kept here is retained on every use, and threads evaluating at once then contend for it.
  package mutating func matchNeedles(
    _ field: MatchField, _ ids: ArraySlice<Int32>, wholeWord: Bool, in needles: NeedleSet
  ) -> (String, String)? {
    for index in range(field) {
      let base = scan(index, needles) + (wholeWord ? needles.words : 0)
      for id32 in ids where found[base + Int(id32) >> 6] & (1 << UInt64(id32 & 63)) != 0 {
        guard wantsExcerpts else { return (values[index].name, "") }
        let value = values[index]
        let needle = needles.needles[Int(id32)]
        let start = ByteSearch.find(value.folded, String(decoding: needle, as: UTF8.self), wholeWord: wholeWord) ?? 0
        return (value.name, excerpt(value, start..<(start + needle.count), fromRaw: false))
      }
    }
    return nil
  }

  /// The first value of `field` the regex matches, looking only where its literal (needle `literal` of
  /// `needles`) occurs.
  package mutating func matchRegex(_ field: MatchField, _ regex: LinearRegex, literal: Int?, in needles: NeedleSet?)
    -> (String, String)?
  {
    guard let literal, let needles else { return match(field, Pattern(.regex(regex))) }
    for index in range(field) {
      let base = scan(index, needles)
      guard found[base + literal >> 6] & (1 << UInt64(literal & 63)) != 0 else { continue }
      if !wantsExcerpts {
        if regex.isMatch(values[index].folded, literalFound: true) { return (values[index].name, "") }
        continue
      }
      if let range = regex.firstMatch(in: values[index].folded) {
        return (values[index].name, excerpt(values[index], range, fromRaw: false))
      }
    }
    return nil
  }

  /// The field name and the matched text, or `nil`.
  package mutating func match(_ field: MatchField, _ pattern: Pattern) -> (String, String)? {
    for index in range(field) {
      let value = values[index]
      let text = pattern.caseSensitive ? value.raw : value.folded
      switch pattern.kind {
      case .regex(let regex):
        if !wantsExcerpts {
          if regex.isMatch(text) { return (value.name, "") }
          continue
        }
        if let range = regex.firstMatch(in: text) {
          return (value.name, excerpt(value, range, fromRaw: pattern.caseSensitive))
        }
      case .contains(let needles), .words(let needles):
        let wholeWord: Bool
        if case .words = pattern.kind { wholeWord = true } else { wholeWord = false }
        for needle in needles {
          if let start = ByteSearch.find(text, needle, wholeWord: wholeWord) {
            return (
              value.name, excerpt(value, start..<(start + needle.utf8.count), fromRaw: pattern.caseSensitive)
            )
          }
        }
      case .equals(let needles):
        let collapsed = HTMLText.collapsed(text) ?? ""
        if let needle = needles.first(where: { $0 == collapsed }) { return (value.name, needle) }
      }
    }
    return nil
  }

  /// The matched text as the item has it: the raw bytes when offsets line up (case-sensitive, or ASCII),
  /// else the folded text.
  private func excerpt(_ value: Value, _ range: Range<Int>, fromRaw: Bool) -> String {
    guard wantsExcerpts else { return "" }
    var source = fromRaw || value.ascii ? value.raw : value.folded
    return source.withUTF8 { bytes in
      let clamped = range.clamped(to: 0..<bytes.count)
      return String(decoding: UnsafeBufferPointer(rebasing: bytes[clamped]), as: UTF8.self)
    }
  }
}

extension MatchField {
  /// The fields `any` stands for, in the order its values are searched.
  static let anyParts: [MatchField] = [.title, .text, .category, .content]

  /// A dense index for per-field caches.
  package var index: Int {
    switch self {
    case .title: 0
    case .text: 1
    case .category: 2
    case .author: 3
    case .link: 4
    case .feed: 5
    case .tag: 6
    case .any: 7
    case .content: 8
    }
  }
}
