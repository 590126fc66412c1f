// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherFeed
import WatcherRules
import WatcherState
import WatcherSupport

extension RuleEngine {
  /// This engine with its scorer taught by the labels kept in `store`, when a rule tests the score.
  ///
  /// Else itself: nothing is read or trained. Too few labels: no scorer, and `score` conditions hold for no
  /// item.
  package func learning(from store: StateStore) -> RuleEngine {
    guard usesScore else { return self }
    let labels = (try? store.labels(readOnly: true)) ?? []
    guard let model = Self.model(for: labels) else { return self }
    var engine = self
    engine.scorer = { item, feed in model.score(Relevance.Item(item, feed: feed)) }
    engine.scoreReasons = { item, feed in model.reasons(Relevance.Item(item, feed: feed)) }
    return engine
  }
}

extension RuleEngine {
  /// The model of the labels last trained on, kept while they are the same (a daemon's passes do not
  /// train again until a label is given or taken back).
  private static let trained = Locked<(key: String, model: Relevance.Model)?>(nil)

  private static func model(for labels: [Label]) -> Relevance.Model? {
    let key = labels.map { "\($0.feed)\n\($0.key)\n\($0.up)\n\($0.time.timeIntervalSince1970)" }.joined(separator: "\n")
    if let kept = trained.withLock({ $0 }), kept.key == key { return kept.model }
    guard let model = Relevance.train(labels.map { (Relevance.Item($0), $0.up) }) else { return nil }
    trained.withLock { $0 = (key, model) }
    return model
  }
}

extension Relevance.Item {
  /// What a label kept of its item.
  package init(_ label: Label) {
    self.init(
      title: label.title, text: label.text, author: label.author, categories: label.categories, feed: label.feed,
      link: label.link)
  }

  /// A feed's item as the learner reads it.
  package init(_ item: FeedItem, feed: String) {
    self.init(
      title: item.title ?? "", text: item.text ?? "", author: item.author ?? "", categories: item.categories,
      feed: feed, link: item.link ?? "")
  }
}
