// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Testing
import WatcherConfig
import WatcherFeed
import WatcherRules
import WatcherState
@testable import WatcherPoll

/// The steps of deciding, each on its own: the diff against the state, the selection of what to act on, and
/// the decision made into pending actions.
@Suite("The decide step, step by step")
struct DecideStepTests {
  static let now = Date(timeIntervalSince1970: 1_796_000_000)

  static func item(_ n: Int, link: String? = nil, hoursAgo: Double = 1) -> FeedItem {
    FeedItem(
      key: "id-\(n)", title: "Post \(n)", link: link ?? "https://example.org/\(n)",
      published: now.addingTimeInterval(-hoursAgo * 3_600), text: "about \(n)")
  }

  static func context(
    _ feed: FeedConfig = FeedConfig(url: "https://example.org/feed", name: "news"), updates: Bool = false
  )
    -> ItemDiff.Context
  {
    ItemDiff.Context(feed: feed, identity: .guid, updates: updates, fullText: true, now: now)
  }

  static func known(_ items: [FeedItem], in state: inout FeedState) {
    _ = ItemDiff.diff(items, against: &state, stories: StoryIdentity(extra: []), context(updates: true))
    state.initialized = true
  }

  @Test("the diff tells known, repeated, re-keyed and new items apart, and brings the state up to date")
  func diff() {
    var state = FeedState(url: "https://example.org/feed")
    Self.known([Self.item(1), Self.item(2)], in: &state)
    // Post 2 under a new id with its own link; post 3 new; a second copy of post 3 in the same document.
    var moved = Self.item(2)
    moved.key = "new-id-2"
    var copy = Self.item(3)
    copy.key = "id-3#2"
    let diff = ItemDiff.diff(
      [Self.item(1), moved, Self.item(3), copy], against: &state, stories: StoryIdentity(extra: []), Self.context())
    #expect(diff.fresh == [2])
    #expect(diff.repeats == 1)
    #expect(diff.rekeyed == [.link])
    #expect(Set(state.items.keys) == ["id-1", "new-id-2", "id-3"])
    #expect(diff.notes.map(\.outcome) == [.rekeyed])
  }

  @Test("a link several new items share names no known item: both are new, and the journal says why")
  func sharedLink() {
    var state = FeedState(url: "https://status.example.org/feed")
    Self.known([Self.item(1, link: "https://status.example.org/")], in: &state)
    let diff = ItemDiff.diff(
      [
        Self.item(3, link: "https://status.example.org/"), Self.item(2, link: "https://status.example.org/"),
        Self.item(1, link: "https://status.example.org/"),
      ], against: &state, stories: StoryIdentity(extra: []), Self.context())
    #expect(diff.fresh == [0, 1])
    #expect(diff.rekeyed.isEmpty)
    #expect(diff.notes.count == 2 && diff.notes.allSatisfy { $0.outcome == .resembled })
    #expect(diff.notes[0].detail?.contains("announced as new") == true, "\(diff.notes)")
  }

  @Test("an edit of a known item is an update only while a rule acts on edits")
  func edits() {
    var state = FeedState(url: "https://example.org/feed")
    Self.known([Self.item(1)], in: &state)
    var edited = Self.item(1)
    edited.text = "about 1, corrected"
    var unwatched = state
    let seen = ItemDiff.diff([edited], against: &unwatched, stories: StoryIdentity(extra: []), Self.context())
    #expect(seen.updated.isEmpty && seen.fresh.isEmpty)
    let watched = ItemDiff.diff(
      [edited], against: &state, stories: StoryIdentity(extra: []), Self.context(updates: true))
    #expect(watched.updated == [0] && watched.fresh.isEmpty)
  }

  @Test("selection: first_poll latest takes the newest, max_age leaves old posts out, an asked-for item is in")
  func selection() {
    var state = FeedState(url: "https://example.org/feed")
    let items = [Self.item(1, hoursAgo: 3), Self.item(2, hoursAgo: 1), Self.item(3, hoursAgo: 2)]
    let diff = ItemDiff.diff(items, against: &state, stories: StoryIdentity(extra: []), Self.context())
    var settings = Settings()
    settings.firstPoll = .latest(2)
    var outcome = Poller.Outcome(feed: FeedConfig(url: "https://example.org/feed", name: "news"))
    let first = Selection(settings: settings, mode: .normal, now: Self.now).items(
      diff, of: items, feed: FeedConfig(url: "https://example.org/feed", name: "news"), state: &state, outcome: &outcome
    )
    #expect(first == [1, 2])
    #expect(state.initialized)

    settings.maxAge = 5_400
    let old = [Self.item(4, hoursAgo: 2), Self.item(5, hoursAgo: 1)]
    let later = ItemDiff.diff(old, against: &state, stories: StoryIdentity(extra: []), Self.context())
    let act = Selection(settings: settings, mode: .normal, now: Self.now).items(
      later, of: old, feed: FeedConfig(url: "https://example.org/feed", name: "news"), state: &state, outcome: &outcome)
    #expect(act == [1] && outcome.tooOld == 1)
    let none = Selection(settings: settings, mode: .catchUp, now: Self.now).items(
      later, of: old, feed: FeedConfig(url: "https://example.org/feed", name: "news"), state: &state, outcome: &outcome)
    #expect(none.isEmpty)
    // Asked for (`items --announce`): acted on however old it is.
    state.announce = ["id-6"]
    let asked = [Self.item(6, hoursAgo: 48)]
    let announced = ItemDiff.diff(asked, against: &state, stories: StoryIdentity(extra: []), Self.context())
    #expect(announced.announced == [0] && state.announce.isEmpty)
    #expect(
      Selection(settings: settings, mode: .normal, now: Self.now).items(
        announced, of: asked, feed: FeedConfig(url: "https://example.org/feed", name: "news"), state: &state,
        outcome: &outcome) == [0])
  }

  @Test("the recorder makes one pending action a kind the rule asks for, keyed by the item, and counts them")
  func recorder() throws {
    let config = try ConfigLoader.parse(
      """
      feeds:
        - { url: "https://example.org/feed", name: news }
      rules:
        - name: all
          match: { title: Post }
          notify: { summary: "{title}" }
          hook: 'true'
          webhook: { url: "https://hooks.example.org/x" }
          digest: { every: 1d }
      """, path: "r.yaml")
    let feed = config.feeds[0]
    let engine = RuleEngine(rules: config.rules, settings: config.settings.notify)
    var state = FeedState(url: feed.url)
    var outcome = Poller.Outcome(feed: feed)
    var digests: [(rule: String, entry: Digest.Entry)] = []
    var recorder = ActionRecorder(rules: config.rules)
    let item = Self.item(7)
    let decision = engine.evaluate(item, feed: feed, now: Self.now, excerpts: false)
    recorder.record(
      decision, for: item, key: "id-7", feed: feed, state: &state, outcome: &outcome, digests: &digests, now: Self.now)
    #expect(state.pending.map(\.kind) == [.notify, .hook, .webhook])
    #expect(state.pending.allSatisfy { $0.key == "id-7" && $0.title == "Post 7" })
    #expect(digests.map(\.rule) == ["all"] && digests[0].entry.key == "id-7")
    #expect(outcome.actions == 3 && outcome.notified == 1 && outcome.hooked == 1 && outcome.webhooks == 1)
    // A snoozed feed: no notification, the rest as before.
    recorder.snoozed = ["news"]
    state.pending = []
    recorder.record(
      decision, for: item, key: "id-7", feed: feed, state: &state, outcome: &outcome, digests: &digests, now: Self.now)
    #expect(state.pending.map(\.kind) == [.hook, .webhook] && outcome.snoozed == 1)
  }
}
