// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherConfig
import WatcherFeed
import WatcherRegex
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// An item's fields as rules see them: each field's values read and folded once per item, on first use.
package struct ItemFacts {
  package let item: FeedItem
  package let feed: String
  /// Tags so far; changing them drops the cached `tag` field.
  package var tags: [String] = [] {
    didSet { cache[MatchField.tag.index] = nil }
  }
  private var cache: [FieldValues?] = Array(repeating: nil, count: MatchField.allCases.count)

  /// One field's values (several for categories and tags), as written and folded.
  ///
  /// A class, so that each rule's look at it costs one reference, not a copy of four arrays.
  package final class FieldValues {
    package var names: [String]
    package var raw: [String]
    package var folded: [String] = []
    /// Whether each raw value is ASCII (folding then keeps every offset, so matches map back).
    package var ascii: [Bool] = []
    /// For value v and needle id, at (v·needles + id)·2: the first occurrence, and after it the first
    /// whole-word occurrence, in the folded text, or -1; filled on first use.
    package var hits: [Int32] = []
    package var hitsReady = false

    package init(names: [String], raw: [String]) {
      self.names = names
      self.raw = raw
    }
  }

  private let needles: NeedleSet?

  /// Whether matches report the text that matched (test-rules shows it; a poll does not need it, and a
  /// regex then only asks its DFA whether it matches, never where).
  package var wantsExcerpts = true

  package init(item: FeedItem, feed: String, needles: NeedleSet? = nil) {
    self.item = item
    self.feed = feed
    self.needles = needles
  }

  private func read(_ field: MatchField) -> FieldValues {
    func one(_ name: String, _ value: String?) -> FieldValues {
      value.map { FieldValues(names: [name], raw: [$0]) } ?? FieldValues(names: [], raw: [])
    }
    switch field {
    case .title: return one("title", item.title)
    case .text: return one("text", item.text)
    case .category: return FieldValues(names: item.categories.map { _ in "category" }, raw: item.categories)
    case .author: return one("author", item.author)
    case .link: return one("link", item.link)
    case .feed: return one("feed", feed)
    case .tag: return FieldValues(names: tags.map { _ in "tag" }, raw: tags)
    case .content: return one("content", item.content)
    case .any:
      let all = FieldValues(names: [], raw: [])
      for part in MatchField.anyParts {
        let values = read(part)
        all.names += values.names
        all.raw += values.raw
      }
      return all
    }
  }

  private mutating func values(_ field: MatchField) -> FieldValues {
    if let cached = cache[field.index] { return cached }
    if field == .any {
      // Built from the parts, so each text is folded (and scanned) once even when rules use both.
      let any = FieldValues(names: [], raw: [])
      for part in MatchField.anyParts {
        let values = values(part)
        any.names += values.names
        any.raw += values.raw
        any.folded += values.folded
        any.ascii += values.ascii
      }
      cache[field.index] = any
      return any
    }
    let values = read(field)
    for raw in values.raw {
      let (folded, ascii) = TextFolding.foldReportingASCII(raw)
      values.folded.append(folded)
      values.ascii.append(ascii)
    }
    cache[field.index] = values
    return values
  }

  /// The field's values with the automaton's findings, computed once per item and field.
  private mutating func scanned(_ field: MatchField) -> FieldValues {
    let values = values(field)
    guard !values.hitsReady, let needles else { return values }
    if field == .any {
      values.hits = MatchField.anyParts.flatMap { scanned($0).hits }
      values.hitsReady = true
      return values
    }
    let count = needles.needles.count
    var found = [Int32](repeating: -1, count: values.folded.count * count * 2)
    for (index, folded) in values.folded.enumerated() {
      let base = index * count * 2
      var copy = folded
      copy.withUTF8 { bytes in
        needles.scan(bytes) { id, start in
          let slot = base + id * 2
          if found[slot] < 0 { found[slot] = Int32(start) }
          if found[slot + 1] < 0, !ByteSearch.isWordScalar(before: start, in: bytes),
            !ByteSearch.isWordScalar(at: start + needles.needles[id].count, in: bytes)
          {
            found[slot + 1] = Int32(start)
          }
        }
      }
    }
    values.hits = found
    values.hitsReady = true
    return values
  }

  /// The first value of `field` containing any of the needles (as whole words when asked).
  package mutating func matchNeedles(_ field: MatchField, _ ids: ArraySlice<Int32>, wholeWord: Bool) -> (
    String, String
  )? {
    guard let needles else { return nil }
    let values = scanned(field)
    let count = needles.needles.count
    for index in values.folded.indices {
      for id32 in ids {
        let id = Int(id32)
        let start = Int(values.hits[(index * count + id) * 2 + (wholeWord ? 1 : 0)])
        if start >= 0 {
          guard wantsExcerpts else { return (values.names[index], "") }
          return (
            values.names[index],
            excerpt(values, index, start..<(start + needles.needles[id].count), fromRaw: false)
          )
        }
      }
    }
    return nil
  }

  /// The first value of `field` the regex matches, looking only where its literal occurs.
  package mutating func matchRegex(_ field: MatchField, _ regex: LinearRegex, literal: Int?) -> (String, String)? {
    guard let literal, let needles else { return match(field, Pattern(.regex(regex))) }
    let values = scanned(field)
    let count = needles.needles.count
    for index in values.folded.indices where values.hits[(index * count + literal) * 2] >= 0 {
      if !wantsExcerpts {
        if regex.isMatch(values.folded[index]) { return (values.names[index], "") }
        continue
      }
      if let range = regex.firstMatch(in: values.folded[index]) {
        return (values.names[index], excerpt(values, index, range, fromRaw: false))
      }
    }
    return nil
  }

  /// The field name and the matched text, or `nil`.
  package mutating func match(_ field: MatchField, _ pattern: Pattern) -> (String, String)? {
    let values = values(field)
    for index in values.raw.indices {
      let text = pattern.caseSensitive ? values.raw[index] : values.folded[index]
      switch pattern.kind {
      case .regex(let regex):
        if !wantsExcerpts {
          if regex.isMatch(text) { return (values.names[index], "") }
          continue
        }
        if let range = regex.firstMatch(in: text) {
          return (values.names[index], excerpt(values, index, range, fromRaw: pattern.caseSensitive))
        }
      case .contains(let needles):
        for needle in needles {
          if let start = ByteSearch.find(text, needle, wholeWord: false) {
            return (
              values.names[index],
              excerpt(values, index, start..<(start + needle.utf8.count), fromRaw: pattern.caseSensitive)
            )
          }
        }
      case .words(let needles):
        for needle in needles {
          if let start = ByteSearch.find(text, needle, wholeWord: true) {
            return (
              values.names[index],
              excerpt(values, index, start..<(start + needle.utf8.count), fromRaw: pattern.caseSensitive)
            )
          }
        }
      case .equals(let needles):
        let value = HTMLText.collapsed(text) ?? ""
        if let needle = needles.first(where: { $0 == value }) { return (values.names[index], needle) }
      }
    }
    return nil
  }

  /// The matched text as the item has it: the raw bytes when offsets line up (case-sensitive, or ASCII),
  /// else the folded text.
  private func excerpt(_ values: FieldValues, _ index: Int, _ range: Range<Int>, fromRaw: Bool) -> String {
    guard wantsExcerpts else { return "" }
    let source = fromRaw || values.ascii[index] ? values.raw[index] : values.folded[index]
    var copy = source
    return copy.withUTF8 { bytes in
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
