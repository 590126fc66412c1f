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
/// feed's item ties them (docs/rules.md, "Stories across feeds"). Items that the sources file under
/// different sections (categories that more than one feed uses, such as an aggregator's "business" and
/// "technology") are not one story.
///
/// A story is *big* once its items come from `bigFeeds` feeds within `bigWithin`. A story about to become big
/// that reads like a big one (`sameStory`) is that story told from another side (the release's review beside
/// its announcement): the item that makes it big joins the big one instead, so do the later items that would
/// join it, and `stories` shows the two as one. A story is never told twice as "big", and an item's story
/// never changes once placed (its `why.via` names the story it first came to).
///
/// The radar keeps the items of the window (at most `maxItems`, each with its words and why it was placed
/// where it is) and the little each story needs beyond them (the rules that fired for it, its bubble); the
/// rest (word counts, postings, norms) is rebuilt from them when read.
public struct StoryRadar: Sendable {
  /// The settings, fixed for all feeds (measured in docs/benchmarks.md, "Stories across feeds").
  public struct Settings: Sendable, Equatable {
    /// The least cosine between an item and a story it joins.
    public var similarity = 0.19
    /// Of the stories it may join, the item joins the one with the highest cosine × feeds^`spreadWeight`:
    /// a story several feeds carry already is the likelier home of another report (as in a Chinese
    /// restaurant process, where a table's pull grows with its guests), so one story is not cut into
    /// fragments that each look new.
    public var spreadWeight = 1.0
    /// The most feeds that count for that pull: beyond them a story is no likelier a home (a story of
    /// 60 feeds about a country's markets would otherwise take every headline naming the country).
    public var spreadCap = 20
    /// The least number of words they share.
    public var sharedWords = 2
    /// How long a story takes new items after its last one, and how long items are kept.
    public var window: TimeInterval = 72 * 3600
    /// The most items kept (the newest).
    public var maxItems = 4_000
    /// About the most bytes they take in `story-groups.json` (the oldest go first beyond it).
    public var maxBytes = 2 << 20
    /// A story is big when its items within `bigWithin` come from this many feeds (the spread rules'
    /// default, `story: { feeds: 3, within: 6h }`).
    public var bigFeeds = 3
    public var bigWithin: TimeInterval = 6 * 3600
    /// The least cosine between a story about to become big and a big one that makes them one story.
    ///
    /// Or `sameStoryByWord`, below.
    public var sameStory = 0.20
    /// The least cosine that does when most items of both have a word that few other items have:
    /// "Titanfall" in the reviews and in the launch-day news.
    public var sameStoryByWord = 0.10
    /// A key word of two stories is in at least this share of each one's items.
    public var keyWordShare = 0.5
    /// Of the items kept that have a key word, at least this share are the two stories'.
    public var keyWordConcentration = 0.6

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
    /// The categories its feed gave it.
    public var categories: [String]

    public init(
      key: String, feed: String, title: String, text: String? = nil, link: String? = nil, time: Date,
      categories: [String] = []
    ) {
      self.key = key
      self.feed = feed
      self.title = title
      self.text = text
      self.link = link
      self.time = time
      self.categories = categories
    }
  }

  /// Why an item is where it is.
  ///
  /// The story it joined (or the closest one it did not), how similar, the words they share, and for one
  /// it did not join, why not. `via` is the story it came to first when that story turned out to be `story`
  /// told from another side, and `viaShared` the words the two share.
  public struct Why: Sendable, Equatable {
    public var story: Int?
    public var similarity: Double
    public var shared: [String]
    public var refused: String?
    public var via: Int?
    public var viaShared: [String] = []

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
    /// Its categories, lowercased (`sections(_:)`).
    var sections: [String] = []

    /// About what it takes in the file.
    var bytes: Int {
      200 + key.utf8.count + feed.utf8.count + title.utf8.count + (link?.utf8.count ?? 0)
        + (words + textWords + why.shared + why.viaShared + sections).reduce(0) { $0 + $1.utf8.count + 4 }
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
    /// It has been big (`Settings.bigFeeds`).
    public var big = false
    /// The big story it turned out to be: its later items join that one.
    public var sameAs: Int?

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
  /// The items kept, oldest first (a slice: forgetting the oldest moves its start, not every item).
  public private(set) var entries: ArraySlice<Entry> = []
  public internal(set) var notes: [Int: Note] = [:]
  private(set) var nextStory = 1
  /// What the items kept take, about (`Entry.bytes`).
  private var bytes = 0

  /// Rebuilt from `entries`: the words and their document frequencies, each story's word weights and
  /// feeds, postings.
  var vocabulary = Vocabulary()
  var clusters: [Int: Cluster] = [:]
  /// For each word's number, the stories that have it and its weight there (`Cluster.weights`, turned
  /// inside out).
  var postings: [[Int: Double]] = []
  /// For each section, the feeds of the items kept that have it (and how many items).
  var sectionFeeds: [String: [String: Int]] = [:]

  /// The most stories a word may be in and still propose them as candidates.
  static let maxPostings = 100

  /// How much a summary's word counts beside a headline's.
  static let textWeight = 0.35
  /// The most words kept of a headline, and of a summary.
  static let maxWords = 24

  struct Cluster {
    /// Each word's weight, by its number in the vocabulary.
    var weights: [Int: Double] = [:]
    var feeds: [String: Int] = [:]
    /// Its feeds in the order their first item came.
    var feedOrder: [String] = []
    var count = 0
    var last = Date.distantPast
    var norm = 0.0
    var sections: [String: Int] = [:]
    /// When its items were published, and by which feed.
    var members: [(time: Date, feed: String)] = []
    /// Each feed's part of `weights`: an item is compared with what the other feeds' items say.
    var byFeed: [String: [Int: Double]] = [:]
  }

  public init(settings: Settings = Settings()) {
    self.settings = settings
  }

  /// The radar holding `entries` (oldest first) and `notes`: word counts, postings and norms rebuilt.
  mutating func restore(_ entries: some Sequence<Entry>, notes: [Int: Note], nextStory: Int) {
    self.entries = ArraySlice(entries)
    self.nextStory = nextStory
    for entry in self.entries {
      for word in entry.words + entry.textWords { vocabulary.count(word) }
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
    for word in words + text { vocabulary.count(word) }
    let sections = Self.sections(item.categories)
    var why = bestStory(words: words, text: text, sections: sections, feed: item.feed, time: item.time)
    let joined = why.refused == nil && why.story != nil
    let story: Int
    if joined, let id = why.story {
      story = resolved(id)
      if story != id { (why.story, why.via) = (story, id) }
    } else {
      story = nextStory
      nextStory += 1
    }
    var entry = Entry(
      key: Self.storedKey(item.key), feed: TextBudget.prefix(item.feed, maxBytes: 200),
      title: TextBudget.prefix(item.title, maxBytes: 300, marked: true),
      link: item.link.map { TextBudget.prefix($0, maxBytes: 500) }, time: item.time, story: story, joined: joined,
      why: why, words: words, textWords: text, sections: sections)
    include(entry)
    settle(&entry)
    entries.append(entry)
    if entries.count > settings.maxItems { forget(count: entries.count - settings.maxItems) }
    var over = bytes - settings.maxBytes
    if over > 0 {
      var count = 0
      while over > 0, count < entries.count - 1 {
        over -= entries[entries.startIndex + count].bytes
        count += 1
      }
      forget(count: count)
    }
    return entry
  }

  /// How rare word `number` is among the items kept (the item being placed counted).
  func idf(_ number: Int) -> Double {
    log(Double(1 + entries.count + 1) / Double(1 + vocabulary.counts[number])) + 1
  }

  /// The numbers of `entry`'s words with their weights: 1 for the headline's, `textWeight` for the summary's.
  func weighted(_ entry: Entry) -> [(number: Int, weight: Double)] {
    entry.words.compactMap { vocabulary.number($0).map { ($0, 1.0) } }
      + entry.textWords.compactMap { vocabulary.number($0).map { ($0, Self.textWeight) } }
  }

  mutating func include(_ entry: Entry, norm updating: Bool = true) {
    bytes += entry.bytes
    // Taken out while it changes, so that its tables are not copied (they would be, shared with the map).
    var cluster = clusters.removeValue(forKey: entry.story) ?? Cluster()
    for section in entry.sections {
      cluster.sections[section, default: 0] += 1
      sectionFeeds[section, default: [:]][entry.feed, default: 0] += 1
    }
    cluster.members.append((entry.time, entry.feed))
    var own = cluster.byFeed.removeValue(forKey: entry.feed) ?? [:]
    let words = weighted(entry)
    for (number, weight) in words {
      cluster.weights[number, default: 0] += weight
      own[number, default: 0] += weight
    }
    cluster.byFeed[entry.feed] = own
    for (number, _) in words { post(number, entry.story, cluster.weights[number]) }
    if cluster.feeds[entry.feed] == nil { cluster.feedOrder.append(entry.feed) }
    cluster.feeds[entry.feed, default: 0] += 1
    cluster.count += 1
    cluster.last = max(cluster.last, entry.time)
    if updating { cluster.norm = norm(of: cluster) }
    clusters[entry.story] = cluster
  }

  /// The norm of `cluster`'s weights without `own` (a feed's part of them): taken from the norm kept, as
  /// the cosine itself is (summing the story's words again for each item costs half as much again).
  func others(_ cluster: Cluster, without own: [Int: Double]) -> Double {
    var square = cluster.norm * cluster.norm
    for (number, mine) in own {
      let idf = idf(number)
      let all = (cluster.weights[number] ?? 0) * idf
      let rest = max(0, (cluster.weights[number] ?? 0) - mine) * idf
      square -= all * all - rest * rest
    }
    return max(0, square).squareRoot()
  }

  func norm(of cluster: Cluster) -> Double {
    cluster.weights.reduce(0) { sum, pair in
      let weighted = idf(pair.key) * pair.value
      return sum + weighted * weighted
    }.squareRoot()
  }

  private mutating func exclude(_ entry: Entry) {
    leave(entry)
    for word in entry.words + entry.textWords {
      guard let number = vocabulary.number(word), vocabulary.uncount(number), number < postings.count else { continue }
      postings[number] = [:]
    }
  }

  /// Takes `entry` out of its story (its words stay counted among the items kept).
  mutating func leave(_ entry: Entry) {
    bytes -= entry.bytes
    for section in entry.sections {
      Self.decrement(&sectionFeeds[section, default: [:]], entry.feed)
      if sectionFeeds[section]?.isEmpty == true { sectionFeeds[section] = nil }
    }
    guard var cluster = clusters.removeValue(forKey: entry.story) else { return }
    for section in entry.sections { Self.decrement(&cluster.sections, section) }
    if let index = cluster.members.firstIndex(where: { $0.time == entry.time && $0.feed == entry.feed }) {
      cluster.members.remove(at: index)
    }
    cluster.count -= 1
    guard cluster.count > 0 else {
      notes[entry.story] = nil
      for (number, _) in weighted(entry) { post(number, entry.story, nil) }
      return
    }
    var own = cluster.byFeed.removeValue(forKey: entry.feed) ?? [:]
    for (number, weight) in weighted(entry) {
      let left = (cluster.weights[number] ?? 0) - weight
      cluster.weights[number] = left > 1e-9 ? left : nil
      post(number, entry.story, cluster.weights[number])
      let mine = (own[number] ?? 0) - weight
      own[number] = mine > 1e-9 ? mine : nil
    }
    if !own.isEmpty { cluster.byFeed[entry.feed] = own }
    if let count = cluster.feeds[entry.feed], count > 1 {
      cluster.feeds[entry.feed] = count - 1
    } else {
      cluster.feeds[entry.feed] = nil
      cluster.feedOrder.removeAll { $0 == entry.feed }
    }
    clusters[entry.story] = cluster
  }

  /// Sets word `number`'s weight in `story` among the postings (none: not there).
  private mutating func post(_ number: Int, _ story: Int, _ weight: Double?) {
    while postings.count <= number { postings.append([:]) }
    postings[number][story] = weight
  }

  private static func decrement(_ counts: inout [String: Int], _ key: String) {
    if let count = counts[key], count > 1 { counts[key] = count - 1 } else { counts[key] = nil }
  }

  /// Forgets the oldest items: those placed before `date`, or the first `count`.
  private mutating func forget(before date: Date? = nil, count: Int = 0) {
    var end = entries.startIndex
    while end < entries.endIndex, end - entries.startIndex < count || date.map({ entries[end].time < $0 }) == true {
      end += 1
    }
    guard end > entries.startIndex else { return }
    for entry in entries[..<end] { exclude(entry) }
    entries.removeFirst(end - entries.startIndex)
  }

  // MARK: Reading stories

  /// The items of `story`, oldest first, with those of the stories that turned out to be `story`.
  public func entries(of story: Int) -> [Entry] {
    let parts = parts(of: story)
    return parts.count == 1 ? entries.filter { $0.story == story } : entries.filter { parts.contains($0.story) }
  }

  /// `story` and the stories that turned out to be it (`Note.sameAs`).
  private func parts(of story: Int) -> [Int] {
    [story] + notes.compactMap { id, note in note.sameAs != nil && resolved(id) == story ? id : nil }.sorted()
  }

  /// The distinct feeds of `story`'s items (first seen first), those of the stories that turned out to be
  /// it with them; with `within`, of its items within that time before its latest one.
  public func feeds(of story: Int, within: TimeInterval? = nil) -> [String] {
    guard let cluster = clusters[story] else { return [] }
    guard let within else {
      var feeds = cluster.feedOrder
      for part in parts(of: story).dropFirst() {
        feeds += (clusters[part]?.feedOrder ?? []).filter { !feeds.contains($0) }
      }
      return feeds
    }
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

  /// The stories with items of more than one feed, the most recent first (a story that turned out to be
  /// a big one shown in it).
  public var stories: [Summary] {
    var byStory: [Int: [Entry]] = [:]
    for entry in entries { byStory[resolved(entry.story), default: []].append(entry) }
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
}
