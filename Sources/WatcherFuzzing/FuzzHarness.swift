// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherPoll
import WatcherRules
import WatcherState
import WatcherSupport

/// The code each libFuzzer target runs on one input (Fuzz/), kept here so that the regression tests run
/// every saved finding through exactly the same code.
public enum FuzzHarness: String, CaseIterable, Sendable {
  /// The whole feed parser: sniffing, decoding, libxml2 SAX, RSS/Atom/JSON adapters, JSON output.
  case feed
  /// The date parser alone.
  case date
  /// The config loader (YAML, the rule mapping, regex compilation), then the loaded rules run on an item
  /// made of the same bytes, which drives the regex matcher over fuzzed text.
  case config
  /// The OPML reader, then an export of what it read.
  case opml
  /// A feed's state file as read from disk, then every computation made with it: the schedule, a
  /// failure's backoff with a Retry-After, the JSON written back, and the kept-notifications bounds.
  case state
  /// `digests.json` as read from disk, written back, read again: the same digests, within the budget.
  case digests
  /// `notifications.json` the same way, through the kept-notifications bounds.
  case kept
  /// The journal's lines, each read, written as the journal writes it, and read again: the same entry.
  case journal
  /// A web page through the article extractor (`full_text`, `watcher extract`): the tree libxml2 repairs,
  /// every pruning, scoring and cleaning rule, the retries and the fallbacks.
  case page

  /// Runs the target on `data`; any outcome but a crash, a leak or a hang is fine.
  public func run(_ data: Data) {
    switch self {
    case .feed:
      // The streaming parse too (a fetched body's): XML as it is read, a JSON Feed an item at a time.
      _ = try? FeedParser.parse(pieces: [data], options: .init(maxBytes: 1 << 20))
      guard let parsed = try? FeedParser.parse(data, options: .init(maxBytes: 1 << 20)) else { return }
      var writer = FeedJSONWriter { _ in }
      writer.write(parsed)
    case .date:
      _ = DateParser.parse(String(decoding: data, as: UTF8.self))
    case .config:
      let text = String(decoding: data, as: UTF8.self)
      guard let config = try? ConfigLoader.parse(text, path: "fuzz.yaml"), let feed = config.feeds.first else { return }
      let engine = RuleEngine(rules: config.rules, settings: config.settings.notify)
      let item = FeedItem(key: "k", title: text, categories: [text], text: text)
      _ = engine.evaluate(item, feed: feed, now: Date(timeIntervalSince1970: 0))
    case .state:
      let now = Date(timeIntervalSince1970: 1_800_000_000)
      // The read that schedules a feed (it stops where the known items begin) is as safe as the whole read.
      if let scheduled = try? StateStore.decode(data, items: false) {
        _ = Schedule.isDue(FeedConfig(url: scheduled.url, name: "f"), state: scheduled, settings: Settings(), now: now)
      }
      guard var state = try? StateStore.decode(data) else { return }
      let feed = FeedConfig(url: state.url, name: "f", interval: 5_200 * 604_800)
      _ = Schedule.nextDue(feed, state: state, settings: Settings(), now: now)
      state.recordFailure(interval: 5_200 * 604_800, retryAfter: Int.max, now: now)
      _ = Schedule.isDue(feed, state: state, settings: Settings(), now: now)
      _ = state.pretty
      let kept = state.pending.map { KeptNotification(feed: "f", action: $0) }
      _ = KeptNotification.prune(kept, settings: NotifySettings(), now: now)
    case .digests:
      guard let digests = try? JSONReader.read(data, { try Digest.file(reading: &$0) }) else { return }
      let (bytes, sizes) = Digest.document(digests)
      precondition(sizes.reduce(0, +) < bytes.count, "entry sizes add up to more than the file")
      let again = try? JSONReader.read(bytes) { try Digest.file(reading: &$0) }
      precondition(again == digests, "digests.json does not read back as it was written")
    case .kept:
      guard let kept = try? JSONReader.read(data, { try KeptNotification.file(reading: &$0) }) else { return }
      let now = Date(timeIntervalSince1970: 1_800_000_000)
      let bounded = KeptNotification.prune(kept, settings: NotifySettings(), now: now)
      precondition(bounded.kept.count + bounded.dropped.count == kept.count, "prune lost a notification")
      let (bytes, _) = KeptNotification.document(kept)
      let again = try? JSONReader.read(bytes) { try KeptNotification.file(reading: &$0) }
      precondition(again == kept, "notifications.json does not read back as it was written")
    case .journal:
      for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        guard let entry = JournalEntry(line: line) else { continue }
        var bytes: [UInt8] = []
        entry.json.write(to: &bytes)
        precondition(
          JournalEntry(line: Substring(String(decoding: bytes, as: UTF8.self))) == entry, "a journal line changed")
      }
    case .page:
      _ = try? ArticleExtractor.extract([UInt8](data))
    case .opml:
      guard let subscriptions = try? OPML.parse(data) else { return }
      let feeds = subscriptions.map { FeedConfig(url: $0.url, name: $0.title ?? $0.url, tags: $0.tags) }
      _ = OPML.export(feeds, date: Date(timeIntervalSince1970: 0))
    }
  }
}
