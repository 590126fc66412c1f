// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherSupport

extension StoryRadar {
  // MARK: Sections and big stories

  /// Categories as sections: trimmed, lowercased, each once, at most 8 of at most 100 bytes.
  static func sections(_ categories: [String]) -> [String] {
    var sections: [String] = []
    for category in categories where sections.count < 8 {
      let section = TextBudget.prefix(category.trimming().lowercased(), maxBytes: 100)
      if !section.isEmpty, !sections.contains(section) { sections.append(section) }
    }
    return sections
  }

  /// Of these sections, those more than one feed uses: a category one feed alone gives says nothing
  /// about what another feed's item is.
  func sharedSections(_ sections: some Sequence<String>) -> Set<String> {
    Set(sections.filter { (sectionFeeds[$0]?.count ?? 0) >= 2 })
  }

  /// Whether `mine` and the story's shared sections are both known and have none in common.
  func differentSections(_ mine: Set<String>, _ cluster: Cluster) -> Bool {
    guard !mine.isEmpty else { return false }
    var theirs = false
    for section in cluster.sections.keys {
      // `mine` holds only sections more than one feed uses.
      if mine.contains(section) { return false }
      if !theirs, (sectionFeeds[section]?.count ?? 0) >= 2 { theirs = true }
    }
    return theirs
  }

  static func quoted(_ sections: Set<String>) -> String {
    sections.sorted().prefix(3).map { "'\(Printable.line($0))'" }.joined(separator: ", ")
  }

  /// The story `story` turned out to be (itself when none).
  func resolved(_ story: Int) -> Int {
    var story = story
    for _ in 0..<16 {
      guard let next = notes[story]?.sameAs, clusters[next] != nil else { break }
      story = next
    }
    return story
  }

  /// When `entry` makes its story big: marks it so, or, when a big story reads like it, moves the entry
  /// there and sends the story's later items after it.
  mutating func settle(_ entry: inout Entry) {
    let id = entry.story
    guard let cluster = clusters[id], cluster.feeds.count >= settings.bigFeeds, notes[id]?.big != true,
      notes[id]?.sameAs == nil
    else { return }
    let start = entry.time.addingTimeInterval(-settings.bigWithin)
    var feeds = Set<String>()
    for member in cluster.members where member.time > start && member.time <= entry.time {
      feeds.insert(member.feed)
    }
    guard feeds.count >= settings.bigFeeds else { return }
    guard let (story, words) = bigStory(like: id, time: entry.time) else {
      notes[id, default: Note()].big = true
      return
    }
    leave(entry)
    entry.story = story
    entry.why.story = story
    entry.why.via = id
    entry.why.viaShared = words
    include(entry)
    notes[id, default: Note()].sameAs = story
  }

  /// The big story most like story `id`, and the words they share (the key word first), if one is like
  /// it enough to be the same story.
  private func bigStory(like id: Int, time: Date) -> (story: Int, words: [String])? {
    guard let cluster = clusters[id] else { return nil }
    let norm = norm(of: cluster)
    let horizon = time.addingTimeInterval(-settings.window)
    let mine = sharedSections(cluster.sections.keys)
    var best: (story: Int, similarity: Double, words: [String])?
    for (other, note) in notes.sorted(by: { $0.key < $1.key }) where note.big && note.sameAs == nil && other != id {
      guard let big = clusters[other], big.last >= horizon else { continue }
      let theirs = sharedSections(big.sections.keys)
      if !mine.isEmpty, !theirs.isEmpty, mine.isDisjoint(with: theirs) { continue }
      var dot = 0.0
      var shared: [(word: String, weight: Double)] = []
      var key: String?
      for (number, weight) in cluster.weights {
        guard let there = big.weights[number] else { continue }
        let idf = idf(number)
        let word = vocabulary.words[number]
        dot += idf * weight * idf * there
        shared.append((word, idf * min(weight / Double(cluster.count), there / Double(big.count))))
        if key == nil, weight >= settings.keyWordShare * Double(cluster.count),
          there >= settings.keyWordShare * Double(big.count),
          weight + there >= settings.keyWordConcentration * Double(vocabulary.counts[number])
        {
          key = word
        }
      }
      let similarity = dot / max(norm * self.norm(of: big), .leastNormalMagnitude)
      guard similarity >= settings.sameStory || (similarity >= settings.sameStoryByWord && key != nil),
        best.map({ similarity > $0.similarity }) ?? true
      else { continue }
      let words = shared.sorted { ($0.weight, $0.word) > ($1.weight, $1.word) }.map(\.word).filter { $0 != key }
      best = (other, similarity, Array(([key].compactMap { $0 } + words).prefix(8)))
    }
    return best.map { ($0.story, $0.words) }
  }
}
