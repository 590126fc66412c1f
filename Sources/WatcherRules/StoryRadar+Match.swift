// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

extension StoryRadar {
  // MARK: The story an item joins

  /// A word of the item being placed, as the cosine counts it.
  private struct Term {
    var word: String
    var number: Int
    /// 1 for a headline's word, `textWeight` for a summary's.
    var weight: Double
    var idf: Double
    var isDate: Bool

    /// What one of its occurrences in a story adds to the dot product.
    var factor: Double { weight * idf * idf }
  }

  /// What the item and a story share: the dot product, the words, and the words that are not dates.
  private struct Overlap {
    var dot = 0.0
    var shared = 0
    var telling = 0

    mutating func add(_ term: Term, _ there: Double) {
      dot += term.factor * there
      shared += 1
      if !term.isDate { telling += 1 }
    }
  }

  /// Why a story that shares words is not joined.
  private enum Refusal {
    case alone, sections, similarity, words
  }

  /// A story compared: its similarity, the feed's own part of it left out, and why it is not joined.
  private struct Candidate {
    var id: Int
    var similarity: Double
    var own: [Int: Double]?
    var overlap: Overlap
    var alone: Bool
  }

  /// Why `candidate` (a story of `cluster`) is not joined by an item of sections `mine`, the first reason
  /// of several.
  private func refusal(_ candidate: Candidate, _ cluster: Cluster, _ mine: Set<String>) -> Refusal? {
    if candidate.alone { return .alone }
    if differentSections(mine, cluster) { return .sections }
    if candidate.similarity < settings.similarity { return .similarity }
    if candidate.overlap.telling < settings.sharedWords { return .words }
    return nil
  }

  /// The story most like these words (joined or, with `refused`, not).
  ///
  /// The stories are found through the postings of the item's words, and the dot products summed as they
  /// are read, so a word is looked up once for all its stories. Words in more than `maxPostings` stories
  /// ("item", "review", a site's name in every summary) propose none (they would make every story a
  /// candidate of every item) but still count in the cosine of the stories the others propose.
  func bestStory(words: [String], text: [String], sections: [String], feed: String, time: Date) -> Why {
    func term(_ word: String, _ weight: Double) -> Term? {
      guard let number = vocabulary.number(word) else { return nil }
      return Term(word: word, number: number, weight: weight, idf: idf(number), isDate: Self.isDateWord(word))
    }
    let terms = words.compactMap { term($0, 1) } + text.compactMap { term($0, Self.textWeight) }
    let norm = terms.reduce(0) { $0 + ($1.weight * $1.idf) * ($1.weight * $1.idf) }.squareRoot()
    guard norm > 0 else { return Why(refused: "no words to compare") }
    var overlaps: [Int: Overlap] = [:]
    overlaps.reserveCapacity(256)
    var common: [Term] = []
    for term in terms {
      guard term.number < postings.count, case let stories = postings[term.number], !stories.isEmpty else { continue }
      guard stories.count <= Self.maxPostings else {
        common.append(term)
        continue
      }
      for (story, there) in stories { overlaps[story, default: Overlap()].add(term, there) }
    }
    let mine = sharedSections(sections)
    var best: (candidate: Candidate, pull: Double)?
    var closest: Candidate?
    let horizon = time.addingTimeInterval(-settings.window)
    for (id, found) in overlaps.sorted(by: { $0.key < $1.key }) {
      guard let cluster = clusters[id], cluster.last >= horizon, cluster.norm > 0 else { continue }
      // The story as the other feeds tell it: a feed's own items are never evidence for its next one
      // (a podcast's "Show 12-07" would otherwise join any story one of its episodes had joined).
      let alone = cluster.feeds.count == 1 && cluster.feeds[feed] != nil
      let own = alone ? nil : cluster.byFeed[feed]
      var overlap = found
      if let own {
        overlap = Overlap()
        for term in terms {
          if let there = self.there(term.number, cluster, without: own) { overlap.add(term, there) }
        }
      } else {
        for term in common {
          if let there = cluster.weights[term.number] { overlap.add(term, there) }
        }
      }
      let othersNorm = own.map { others(cluster, without: $0) } ?? cluster.norm
      var similarity = othersNorm > 0 ? overlap.dot / (norm * othersNorm) : 0
      // The norm without a feed's part is taken from the kept one, which trails the word weights: a cosine
      // it puts over 1 says no more than "alike".
      if own != nil { similarity = min(similarity, 1) }
      let candidate = Candidate(id: id, similarity: similarity, own: own, overlap: overlap, alone: alone)
      // The sections, which take the longest to compare, last (`refusal` says which reason is told).
      let refused =
        alone || similarity < settings.similarity || overlap.telling < settings.sharedWords
        || differentSections(mine, cluster)
      if !refused {
        let feeds = cluster.feeds.count - (own == nil ? 0 : 1)
        let pull = similarity * pow(Double(min(feeds, settings.spreadCap)), settings.spreadWeight)
        if best.map({ pull > $0.pull }) ?? true { best = (candidate, pull) }
      } else if closest.map({ similarity > $0.similarity }) ?? true {
        closest = candidate
      }
    }
    guard let candidate = best?.candidate ?? closest, let cluster = clusters[candidate.id] else {
      return Why(refused: "no story shares a word")
    }
    let shared = terms.filter { term in
      candidate.own.map { there(term.number, cluster, without: $0) != nil } ?? (cluster.weights[term.number] != nil)
    }
    var why = Why(story: candidate.id, similarity: candidate.similarity, shared: shared.map(\.word))
    switch refusal(candidate, cluster, mine) {
    case nil: break
    case .alone: why.refused = "only items of this feed"
    case .sections:
      let theirs = sharedSections(cluster.sections.keys)
      why.refused = "filed under \(Self.quoted(mine)), the story under \(Self.quoted(theirs))"
    case .similarity:
      why.refused = "similarity " + Relevance.shown(why.similarity) + " < " + Relevance.shown(settings.similarity)
    case .words:
      let telling = candidate.overlap.telling
      why.refused =
        "\(telling) word\(telling == 1 ? "" : "s") in common (\(settings.sharedWords) needed"
        + (telling < candidate.overlap.shared ? ", dates not counted)" : ")")
    }
    return why
  }

  /// Word `number`'s weight in `cluster` without the part `own` of one feed, if any is left.
  private func there(_ number: Int, _ cluster: Cluster, without own: [Int: Double]) -> Double? {
    let there = (cluster.weights[number] ?? 0) - (own[number] ?? 0)
    return there > 1e-9 ? there : nil
  }
}
