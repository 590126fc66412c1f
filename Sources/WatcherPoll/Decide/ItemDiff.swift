// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherConfig
import WatcherFeed
import WatcherState

/// The second step of deciding: a document's items told apart from what the feed's state knows.
///
/// Each item is known (its key is in the state: seen again, maybe edited), a repeat of an entry of the same
/// document, a known item under a new key (on evidence that names exactly that one, `Novelty`), or new. The
/// state is brought up to date as the items are read: keys seen, re-keyed items moved, new items recorded.
struct ItemDiff {
  /// What the diff is made under.
  struct Context {
    let feed: FeedConfig
    /// The identity the feed's items are told apart by (`FeedDecider.identity`).
    let identity: FeedConfig.Identity
    /// Whether a rule acts on edits: known items' titles and texts are compared with their digests.
    let updates: Bool
    /// Whether the items were read in full (not for their identity only): new items' digests are kept from
    /// their first sight, so that a rule acting on edits added later still sees an edit.
    let fullText: Bool
    let now: Date
  }

  /// The new items, by their index in the document, in its order.
  private(set) var fresh: [Int] = []
  /// Of those, the ones the user asked to act on after all (`watcher items FEED --announce KEY`).
  private(set) var announced: [Int] = []
  /// Known items whose title or text changed (only while a rule acts on edits).
  private(set) var updated: [Int] = []
  /// How each known item that came back under a new key was recognised.
  private(set) var rekeyed: [Novelty.Match] = []
  /// Entries that repeat an earlier one of the same document.
  private(set) var repeats = 0
  /// One journal entry for each identity decision (re-keyed, or resembled and announced), a bounded number.
  private(set) var notes: [JournalEntry] = []
  private(set) var novelty: Novelty
  private let context: Context

  /// Diffs `items` against `state`, and brings the state up to date with them.
  static func diff(
    _ items: [FeedItem], against state: inout FeedState, stories: StoryIdentity, _ context: Context
  ) -> ItemDiff {
    var diff = ItemDiff(novelty: Novelty(identity: stories), context: context)
    // Items by their index, read in place: a copy of each (a dozen strings) would cost more than the rest.
    let span = items.span
    // Only items known before this document can come back under new keys (none on a first poll).
    let knewItems = !state.items.isEmpty
    let asked = Set(state.announce)
    for index in span.indices {
      // Each step borrows the item where it lies (`span[index]`): a `let` of it would copy it.
      let key = context.identity.key(of: span[index])
      if !asked.isEmpty, asked.contains(key), state.items[key] == nil {
        diff.announce(span[index], at: index, key: key, in: &state)
      } else if diff.seenAgain(span[index], at: index, key: key, in: &state, knewItems: knewItems) {
        continue
      } else if Self.isRepeat(span[index], key: key, of: items[..<index], in: state, identity: context.identity) {
        // The same entry twice in one document (or a copy of one known before): not a new one.
        diff.repeats += 1
      } else if knewItems, diff.rekey(span[index], key: key, in: &state, document: items) {
        continue
      } else {
        diff.add(span[index], at: index, key: key, in: &state, knewItems: knewItems)
      }
    }
    state.storiesKept = true
    return diff
  }

  /// An item the user asked to act on after all: new, whatever it resembles or however old it is.
  private mutating func announce(_ item: FeedItem, at index: Int, key: String, in state: inout FeedState) {
    announced.append(index)
    fresh.append(index)
    state.items[key] = novelty.record(item, key: key, now: context.now)
    state.announce.removeAll { $0 == key }
  }

  /// Whether the item is known under its key; if so, it is seen now, and compared with its digest.
  private mutating func seenAgain(
    _ item: FeedItem, at index: Int, key: String, in state: inout FeedState, knewItems: Bool
  ) -> Bool {
    // The key is hashed once for a known item (the state's keys are URLs: each lookup hashes all of it).
    var slot = state.items.index(forKey: key)
    if slot == nil, knewItems, let earlier = FeedIdentity.keyBeforeCDATAFix(key),
      let known = state.items.removeValue(forKey: earlier)
    {
      // Recorded by a version that read a bare `&` in a CDATA section as `&amp;`: the same item.
      state.items[key] = known
      slot = state.items.index(forKey: key)
    }
    guard let slot else { return false }
    state.items.values[slot].lastSeen = context.now
    // Recorded by a version that kept no stories: each item's link is learnt once, for when the ids change.
    if !state.storiesKept, let link = item.link {
      state.items.values[slot].story = novelty.story(link, key: key)
    }
    // Read in full (a rule acts on edits): an edit is an update, not a new item.
    if context.updates, item.title != nil || item.text != nil {
      let digest = StoryIdentity.digest(title: item.title, text: item.text)
      if let before = state.itemDigests[key], before != digest { updated.append(index) }
      state.itemDigests[key] = digest
    }
    return true
  }

  /// Whether an unknown item is a known one under a new key (`Novelty.known`); if so, the known item's
  /// record moves to the new key, and the journal says which it was taken for.
  private mutating func rekey(_ item: FeedItem, key: String, in state: inout FeedState, document: [FeedItem])
    -> Bool
  {
    let identity = context.identity
    guard
      let (old, match) = novelty.known(
        key: key, item: item, in: state.items, document: { document.map { (identity.key(of: $0), $0) } }),
      var known = state.items.removeValue(forKey: old)
    else { return false }
    known.lastSeen = context.now
    if let link = item.link { known.story = novelty.story(link, key: key) }
    state.items[key] = known
    if let digest = state.itemDigests.removeValue(forKey: old) { state.itemDigests[key] = digest }
    rekeyed.append(match)
    note(item, key: key, .rekeyed, "taken for the known item \(old) (\(match.words))")
    return true
  }

  /// A new item: recorded, and journaled when it resembled a known one (and why it was still announced).
  private mutating func add(
    _ item: FeedItem, at index: Int, key: String, in state: inout FeedState, knewItems: Bool
  ) {
    if knewItems, let why = novelty.resemblance(key: key, item: item) {
      note(item, key: key, .resembled, why)
    }
    fresh.append(index)
    state.items[key] = novelty.record(item, key: key, now: context.now)
    if context.fullText, item.title != nil || item.text != nil {
      state.itemDigests[key] = StoryIdentity.digest(title: item.title, text: item.text)
    }
  }

  /// One journal entry for an identity decision about one item, a bounded number a poll.
  private mutating func note(_ item: FeedItem, key: String, _ kind: JournalEntry.Outcome, _ detail: String) {
    guard notes.count < Novelty.notesPerPoll else { return }
    notes.append(
      JournalEntry(
        time: context.now, feed: context.feed.name, title: item.title, link: item.link, key: key, rule: nil,
        action: "identity", outcome: kind, detail: detail))
  }

  /// Whether an unknown `key` is `BASE#N`, given to a repeat of an earlier entry of this document with the
  /// same title, or of an entry known before (checked only for keys the state does not know).
  static func isRepeat(
    _ item: FeedItem, key: String, of earlier: some Collection<FeedItem>, in state: FeedState,
    identity: FeedConfig.Identity
  ) -> Bool {
    guard let base = Novelty.repeatBase(key) else { return false }
    if let first = earlier.first(where: { identity.key(of: $0) == base }) {
      // A known first copy was read for its identity only (no title): a copy of a known entry.
      return first.title == item.title || first.title == nil && state.items[base] != nil
    }
    return state.items[base] != nil
  }
}

extension FeedConfig.Identity {
  /// The key that decides novelty under this identity setting.
  package func key(of item: FeedItem) -> String {
    switch self {
    case .guid: return item.key
    case .link: return item.link ?? item.key
    case .title: return item.title.map { "title:" + $0 } ?? item.key
    case .hash:
      return FeedIdentity.baseKey(FeedItem(key: "", title: item.title, published: item.published, text: item.text))
    }
  }
}
