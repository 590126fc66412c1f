// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Testing

@testable import WatcherRules

/// The learner behind `watcher score`: what a few 👍 and 👎 teach it.
@Suite("Learning what matters from labels")
struct RelevanceTests {
  static func item(_ n: Int, category: String, author: String = "staff") -> Relevance.Item {
    let topics = [
      "comedy": ["a late night host jokes", "the funniest sketch of the week", "a comedian's new special"],
      "politics": ["the senate votes on the budget", "a governor signs a bill", "the campaign enters its final week"],
      "sports": ["the team wins the final", "a striker signs a new contract", "the coach resigns after a loss"],
    ]
    let words = topics[category, default: ["something happened"]]
    return Relevance.Item(
      title: "\(words[n % words.count]) number \(n)", text: "Report \(n) on \(words[(n + 1) % words.count]).",
      author: author, categories: [category], feed: "news")
  }

  @Test("a category liked ranks above the others, from a handful of labels")
  func learnsACategory() throws {
    let labeled =
      (0..<3).map { (Self.item($0, category: "comedy"), true) }
      + (0..<5).map { (Self.item($0, category: $0 % 2 == 0 ? "politics" : "sports"), false) }
    let items = (10..<40).map { Self.item($0, category: ["comedy", "politics", "sports"][$0 % 3]) }
    let scores = try #require(Relevance.scores(items, labeled: labeled))
    #expect(scores.allSatisfy { (0...1).contains($0) })
    let comedy = zip(items, scores).filter { $0.0.categories == ["comedy"] }.map(\.1)
    let other = zip(items, scores).filter { $0.0.categories != ["comedy"] }.map(\.1)
    #expect(comedy.min() ?? 0 > other.max() ?? 1, "\(comedy) vs \(other)")
  }

  @Test("with 👎 only, what is unlike the 👎 ranks first; with too few labels there is no score")
  func oneKindAndTooFew() throws {
    let labeled = (0..<6).map { (Self.item($0, category: "politics", author: "pundit"), false) }
    let items = (10..<30).map { Self.item($0, category: $0 % 2 == 0 ? "politics" : "comedy") }
    let scores = try #require(Relevance.scores(items, labeled: labeled))
    let politics = zip(items, scores).filter { $0.0.categories == ["politics"] }.map(\.1)
    let comedy = zip(items, scores).filter { $0.0.categories == ["comedy"] }.map(\.1)
    #expect(comedy.min() ?? 0 > politics.max() ?? 1)
    #expect(Relevance.scores(items, labeled: Array(labeled.prefix(Relevance.minimumLabels - 1))) == nil)
  }

  @Test("an author's items follow that author's labels, whatever their words")
  func learnsAnAuthor() throws {
    let labeled =
      (0..<4).map { (Self.item($0, category: ["comedy", "politics"][$0 % 2], author: "Lee Moran"), true) }
      + (4..<12).map { (Self.item($0, category: ["comedy", "politics"][$0 % 2], author: "Someone Else"), false) }
    let items = (20..<40).map {
      Self.item(
        $0, category: ["comedy", "politics"][$0 % 2], author: $0 % 4 == 0 ? "Ed Mazza and Lee Moran" : "Someone Else")
    }
    let scores = try #require(Relevance.scores(items, labeled: labeled))
    let lee = zip(items, scores).filter { $0.0.author.contains("Lee") }.map(\.1)
    let rest = zip(items, scores).filter { !$0.0.author.contains("Lee") }.map(\.1)
    #expect(lee.min() ?? 0 > rest.max() ?? 1)
  }
}
