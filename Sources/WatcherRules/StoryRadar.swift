// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// Stories across feeds: new items of different feeds that report the same story, grouped as they arrive.
///
/// Each item is compared, when it arrives, with the stories of the last `window`: its headline's words
/// (and, weaker, its summary's) weighted by how rare they are among the items kept (TF-IDF), against the sum
/// of each story's items. It joins the most similar story when the cosine is at least `similarity` and they
/// share at least `sharedWords` words; otherwise it starts a story of its own. A story of one feed's items
/// only is never joined by another item of that feed: two posts of one feed are one story only when another
/// feed's item ties them (docs/rules.md, "Stories across feeds"). Nothing is ever merged afterwards, so a
/// story an item joined is the one it stays in.
///
/// The radar keeps the items of the window (at most `maxItems`, each with its words and why it was placed
/// where it is) and the little each story needs beyond them (the rules that fired for it, its bubble); the
/// rest (word counts, postings, norms) is rebuilt from them when read.
public struct StoryRadar: Sendable {
  /// The settings, fixed for all feeds (measured in docs/benchmarks.md, "Stories across feeds").
  public struct Settings: Sendable, Equatable {
    /// The least cosine between an item and a story it joins.
    public var similarity = 0.20
    /// Of the stories it may join, the item joins the one with the highest cosine × feeds^`spreadWeight`:
    /// a story several feeds carry already is the likelier home of another report (as in a Chinese
    /// restaurant process, where a table's pull grows with its guests), so one story is not cut into
    /// fragments that each look new.
    public var spreadWeight = 1.5
    /// The least number of words they share.
    public var sharedWords = 2
    /// How long a story takes new items after its last one, and how long items are kept.
    public var window: TimeInterval = 72 * 3600
    /// The most items kept (the newest).
    public var maxItems = 4_000
    /// About the most bytes they take in `story-groups.json` (the oldest go first beyond it).
    public var maxBytes = 2 << 20

    public init() {}
  }

  /// An item as the radar reads it.
  public struct Item: Sendable {
    public var key: String
    public var feed: String
    public var title: String
    public var text: String?
    public var link: String?
    public var time: Date

    public init(key: String, feed: String, title: String, text: String? = nil, link: String? = nil, time: Date) {
      self.key = key
      self.feed = feed
      self.title = title
      self.text = text
      self.link = link
      self.time = time
    }
  }

  /// Why an item is where it is: the story it joined (or the closest one it did not), how similar, the
  /// words they share, and for one it did not join, why not.
  public struct Why: Sendable, Equatable {
    public var story: Int?
    public var similarity: Double
    public var shared: [String]
    public var refused: String?

    public init(story: Int? = nil, similarity: Double = 0, shared: [String] = [], refused: String? = nil) {
      self.story = story
      self.similarity = similarity
      self.shared = shared
      self.refused = refused
    }
  }

  /// An item kept: what it said, its story, and why.
  public struct Entry: Sendable, Equatable {
    public var key: String
    public var feed: String
    public var title: String
    public var link: String?
    public var time: Date
    public var story: Int
    public var joined: Bool
    public var why: Why
    /// The headline's words, then the summary's (weaker) that the headline does not have.
    var words: [String]
    var textWords: [String]

    /// About what it takes in the file.
    var bytes: Int {
      200 + key.utf8.count + feed.utf8.count + title.utf8.count + (link?.utf8.count ?? 0)
        + (words + textWords + why.shared).reduce(0) { $0 + $1.utf8.count + 4 }
    }
  }

  /// An item's key as kept: itself, or its hash when longer than 500 bytes (`watcher items` looks it up so).
  public static func storedKey(_ key: String) -> String {
    key.utf8.count <= 500 ? key : "hash:" + StableHash.hex(of: key)
  }

  /// What a story keeps beyond its items: the rules whose spread trigger fired for it, and its bubble (the
  /// first notification shown for it: later items update it in place).
  public struct Note: Sendable, Equatable {
    public var fired: [String] = []
    /// The `dedupe: story` actions taken for it (`rule/kind`).
    public var actions: [String] = []
    public var summary: String?
    public var body: String?
    public var link: String?

    public init() {}
  }

  /// A story as `watcher stories` shows it.
  public struct Summary: Sendable {
    public var id: Int
    public var entries: [Entry]
    public var feeds: [String]
    public var last: Date
  }

  public let settings: Settings
  public private(set) var entries: [Entry] = []
  public private(set) var notes: [Int: Note] = [:]
  private(set) var nextStory = 1
  /// What the items kept take, about (`Entry.bytes`).
  private var bytes = 0

  /// Rebuilt from `entries`: document frequencies, each story's word weights and feeds, postings.
  private var documentFrequency: [String: Int] = [:]
  private var clusters: [Int: Cluster] = [:]
  private var postings: [String: Set<Int>] = [:]

  /// The most stories a word may be in and still propose them as candidates.
  static let maxPostings = 100

  /// How much a summary's word counts beside a headline's.
  static let textWeight = 0.35
  /// The most words kept of a headline, and of a summary.
  static let maxWords = 24

  private struct Cluster {
    var weights: [String: Double] = [:]
    var feeds: [String: Int] = [:]
    /// Its feeds in the order their first item came.
    var feedOrder: [String] = []
    var count = 0
    var last = Date.distantPast
    var norm = 0.0
  }

  public init(settings: Settings = Settings()) {
    self.settings = settings
  }

  /// The radar holding `entries` (oldest first) and `notes`: word counts, postings and norms rebuilt.
  mutating func restore(_ entries: some Sequence<Entry>, notes: [Int: Note], nextStory: Int) {
    self.entries = Array(entries)
    self.nextStory = nextStory
    for entry in self.entries {
      for word in entry.words + entry.textWords { documentFrequency[word, default: 0] += 1 }
    }
    for entry in self.entries { include(entry, norm: false) }
    for (id, cluster) in clusters {
      let norm = norm(of: cluster)
      clusters[id]?.norm = norm
    }
    self.notes = notes.filter { clusters[$0.key] != nil }
  }

  // MARK: Placing items

  /// Places `item`: in the story it reports, or a story of its own.
  @discardableResult
  public mutating func add(_ item: Item) -> Entry {
    forget(before: item.time.addingTimeInterval(-settings.window))
    let words = Self.words(item.title)
    let text = Self.words(item.text ?? "").filter { !words.contains($0) }
    for word in words + text { documentFrequency[word, default: 0] += 1 }
    let why = bestStory(words: words, text: text, feed: item.feed, time: item.time)
    let joined = why.refused == nil && why.story != nil
    let story: Int
    if joined, let id = why.story {
      story = id
    } else {
      story = nextStory
      nextStory += 1
    }
    let entry = Entry(
      key: Self.storedKey(item.key), feed: TextBudget.prefix(item.feed, maxBytes: 200),
      title: TextBudget.prefix(item.title, maxBytes: 300, marked: true),
      link: item.link.map { TextBudget.prefix($0, maxBytes: 500) }, time: item.time, story: story, joined: joined,
      why: why, words: words, textWords: text)
    entries.append(entry)
    include(entry)
    if entries.count > settings.maxItems { forget(count: entries.count - settings.maxItems) }
    var over = bytes - settings.maxBytes
    if over > 0 {
      var count = 0
      while over > 0, count < entries.count - 1 {
        over -= entries[count].bytes
        count += 1
      }
      forget(count: count)
    }
    return entry
  }

  /// The story most like these words (joined or, with `refused`, not).
  private func bestStory(words: [String], text: [String], feed: String, time: Date) -> Why {
    let weights = Dictionary(
      words.map { ($0, idf($0)) } + text.map { ($0, idf($0) * Self.textWeight) }, uniquingKeysWith: { a, _ in a })
    let norm = weights.values.reduce(0) { $0 + $1 * $1 }.squareRoot()
    guard norm > 0 else { return Why(refused: "no words to compare") }
    var candidates = Set<Int>()
    // The stories sharing a word that few stories have: a word in many stories ("item", "review", a site's
    // name in every summary) still counts in the cosine, but would make every story a candidate of every
    // item (a pass of 1,000 new items of one shape took 0.3 s of CPU for it).
    for word in weights.keys {
      guard let stories = postings[word], stories.count <= Self.maxPostings else { continue }
      candidates.formUnion(stories)
    }
    var best: (why: Why, pull: Double)?
    var closest: Why?
    let horizon = time.addingTimeInterval(-settings.window)
    for id in candidates.sorted() {
      guard let cluster = clusters[id], cluster.last >= horizon, cluster.norm > 0 else { continue }
      var dot = 0.0
      var shared: [String] = []
      for (word, weight) in weights {
        guard let there = cluster.weights[word], there > 0 else { continue }
        dot += weight * idf(word) * there
        shared.append(word)
      }
      var why = Why(story: id, similarity: dot / (norm * cluster.norm), shared: sharedOrder(shared, words + text))
      if cluster.feeds.count == 1, cluster.feeds[feed] != nil {
        why.refused = "only items of this feed"
      } else if why.similarity < settings.similarity {
        why.refused = "similarity " + Relevance.shown(why.similarity) + " < " + Relevance.shown(settings.similarity)
      } else if shared.count < settings.sharedWords {
        why.refused = "\(shared.count) word\(shared.count == 1 ? "" : "s") in common (\(settings.sharedWords) needed)"
      }
      if why.refused == nil {
        let pull = why.similarity * pow(Double(cluster.feeds.count), settings.spreadWeight)
        if best.map({ pull > $0.pull }) ?? true { best = (why, pull) }
      } else if closest.map({ why.similarity > $0.similarity }) ?? true {
        closest = why
      }
    }
    return best?.why ?? closest ?? Why(refused: "no story shares a word")
  }

  private func sharedOrder(_ shared: [String], _ order: [String]) -> [String] {
    order.filter(shared.contains)
  }

  /// How rare a word is among the items kept (the item being placed counted).
  private func idf(_ word: String) -> Double {
    log(Double(1 + entries.count + 1) / Double(1 + documentFrequency[word, default: 0])) + 1
  }

  private mutating func include(_ entry: Entry, norm updating: Bool = true) {
    bytes += entry.bytes
    var cluster = clusters[entry.story] ?? Cluster()
    for word in entry.words { cluster.weights[word, default: 0] += 1 }
    for word in entry.textWords { cluster.weights[word, default: 0] += Self.textWeight }
    for word in entry.words + entry.textWords { postings[word, default: []].insert(entry.story) }
    if cluster.feeds[entry.feed] == nil { cluster.feedOrder.append(entry.feed) }
    cluster.feeds[entry.feed, default: 0] += 1
    cluster.count += 1
    cluster.last = max(cluster.last, entry.time)
    if updating { cluster.norm = norm(of: cluster) }
    clusters[entry.story] = cluster
  }

  private func norm(of cluster: Cluster) -> Double {
    cluster.weights.reduce(0) { sum, pair in
      let weighted = idf(pair.key) * pair.value
      return sum + weighted * weighted
    }.squareRoot()
  }

  private mutating func exclude(_ entry: Entry) {
    bytes -= entry.bytes
    for word in entry.words + entry.textWords {
      if let count = documentFrequency[word], count > 1 {
        documentFrequency[word] = count - 1
      } else {
        documentFrequency[word] = nil
      }
    }
    guard var cluster = clusters[entry.story] else { return }
    cluster.count -= 1
    guard cluster.count > 0 else {
      clusters[entry.story] = nil
      notes[entry.story] = nil
      for word in entry.words + entry.textWords { postings[word]?.remove(entry.story) }
      return
    }
    for (word, weight) in entry.words.map({ ($0, 1.0) }) + entry.textWords.map({ ($0, Self.textWeight) }) {
      let left = (cluster.weights[word] ?? 0) - weight
      if left > 1e-9 {
        cluster.weights[word] = left
      } else {
        cluster.weights[word] = nil
        postings[word]?.remove(entry.story)
      }
    }
    if let count = cluster.feeds[entry.feed], count > 1 {
      cluster.feeds[entry.feed] = count - 1
    } else {
      cluster.feeds[entry.feed] = nil
      cluster.feedOrder.removeAll { $0 == entry.feed }
    }
    clusters[entry.story] = cluster
  }

  /// Forgets the oldest items: those placed before `date`, or the first `count`.
  private mutating func forget(before date: Date? = nil, count: Int = 0) {
    var drop = 0
    while drop < entries.count, drop < count || date.map({ entries[drop].time < $0 }) == true { drop += 1 }
    guard drop > 0 else { return }
    for entry in entries[..<drop] { exclude(entry) }
    entries.removeFirst(drop)
  }

  // MARK: Reading stories

  /// The items of `story`, oldest first.
  public func entries(of story: Int) -> [Entry] { entries.filter { $0.story == story } }

  /// The distinct feeds of `story`'s items (first seen first); with `within`, of its items within that
  /// time before its latest one.
  public func feeds(of story: Int, within: TimeInterval? = nil) -> [String] {
    guard let cluster = clusters[story] else { return [] }
    guard let within else { return cluster.feedOrder }
    let members = entries(of: story)
    let start = (members.map(\.time).max() ?? .distantPast).addingTimeInterval(-within)
    var feeds: [String] = []
    for entry in members where entry.time > start && !feeds.contains(entry.feed) {
      feeds.append(entry.feed)
    }
    return feeds
  }

  /// The distinct links of `story`'s items, first seen first, at most `limit` ("Open all").
  public func links(of story: Int, limit: Int = 20) -> [String] {
    var links: [String] = []
    for link in entries(of: story).compactMap(\.link) where !links.contains(link) && links.count < limit {
      links.append(link)
    }
    return links
  }

  /// The stories with items of more than one feed, the most recent first.
  public var stories: [Summary] {
    var byStory: [Int: [Entry]] = [:]
    for entry in entries { byStory[entry.story, default: []].append(entry) }
    return byStory.compactMap { id, entries -> Summary? in
      var feeds: [String] = []
      for entry in entries where !feeds.contains(entry.feed) { feeds.append(entry.feed) }
      guard feeds.count > 1 else { return nil }
      return Summary(id: id, entries: entries, feeds: feeds, last: entries.map(\.time).max() ?? .distantPast)
    }.sorted { ($0.last, $0.id) > ($1.last, $1.id) }
  }

  /// Updates what a story keeps beyond its items.
  public mutating func note(_ story: Int, _ change: (inout Note) -> Void) {
    guard clusters[story] != nil else { return }
    change(&notes[story, default: Note()])
  }

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
