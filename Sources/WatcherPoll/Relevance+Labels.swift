// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherConfig
import WatcherFeed
import WatcherRules
import WatcherState
import WatcherSupport

extension RuleEngine {
  /// This engine with its scorer taught by the labels kept in `store`, when a rule tests the score.
  ///
  /// Else itself: nothing is read or trained. Too few labels: no scorer, and `score` conditions hold for no
  /// item.
  package func learning(from store: StateStore, feeds: [FeedConfig] = [], byTag: Bool = false) -> RuleEngine {
    guard usesScore else { return self }
    let labels = (try? store.labels(readOnly: true)) ?? []
    guard let model = Self.model(for: labels) else { return self }
    // With `score_scope: tag`, a model per feed tag from the labels of that tag's feeds, where there are
    // enough of them; a feed without such a tag gets the model of every label.
    var byFeed: [String: Relevance.Model] = [:]
    if byTag {
      let tags = Dictionary(feeds.map { ($0.name, $0.tags) }) { first, _ in first }
      var models: [String: Relevance.Model] = [:]
      for tag in Set(feeds.flatMap(\.tags)).sorted() {
        let own = labels.filter { tags[$0.feed]?.contains(tag) == true }
        if let model = Relevance.train(own.map { (Relevance.Item($0), $0.up) }) { models[tag] = model }
      }
      for feed in feeds { byFeed[feed.name] = feed.tags.lazy.compactMap { models[$0] }.first }
    }
    let chosen = byFeed
    var engine = self
    engine.scorer = { item, feed in (chosen[feed] ?? model).score(Relevance.Item(item, feed: feed)) }
    engine.scoreReasons = { item, feed in (chosen[feed] ?? model).reasons(Relevance.Item(item, feed: feed)) }
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

extension Label {
  /// A 👍 (`up`) or 👎 given at `time` to the item `key`, kept with what the item says.
  package init(key: String, item: Relevance.Item, up: Bool, time: Date) {
    self.init(
      key: key, feed: item.feed, up: up, time: time, title: item.title, text: item.text, author: item.author,
      categories: item.categories, link: item.link)
  }
}

extension Relevance.Item {
  /// What a label kept of its item.
  package init(_ label: Label) {
    self.init(
      title: label.title, text: label.text, author: label.author, categories: label.categories, feed: label.feed,
      link: label.link)
  }

  /// An item as a JSON document gives it (a hook's and a button's item document, a `score --jsonl` line):
  /// `title`, `text`, `author`, `categories`, `feed`, `link`.
  package init(document: JSONValue) {
    self.init(
      title: document["title"]?.string ?? "", text: document["text"]?.string ?? "",
      author: document["author"]?.string ?? "",
      categories: (document["categories"]?.elements ?? []).compactMap(\.string),
      feed: document["feed"]?.string ?? "", link: document["link"]?.string ?? "")
  }

  /// A feed's item as the learner reads it.
  package init(_ item: FeedItem, feed: String) {
    self.init(
      title: item.title ?? "", text: item.text ?? "", author: item.author ?? "", categories: item.categories,
      feed: feed, link: item.link ?? "")
  }
}
