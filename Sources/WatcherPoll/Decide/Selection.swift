// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherConfig
import WatcherFeed
import WatcherState

/// The third step of deciding: which of the new items are acted on.
///
/// None while catching up or after a restart; on a first poll, what `first_poll` says; after a move, only
/// what was published since the old address's last poll; within `max_age`; and always the items the user
/// asked for (`items --announce`).
struct Selection {
  let settings: Settings
  let mode: Poller.Mode
  let now: Date

  /// The indices of `diff`'s new items to act on, in document order; counts what was left out in `outcome`.
  func items(
    _ diff: ItemDiff, of items: [FeedItem], feed: FeedConfig, state: inout FeedState, outcome: inout Poller.Outcome
  ) -> [Int] {
    let fresh = diff.fresh
    var act = fresh
    if mode == .catchUp || mode == .silentRestart {
      act = []
    } else if !state.initialized {
      let firstPoll = feed.firstPoll ?? settings.firstPoll
      outcome.firstPoll = firstPoll
      switch firstPoll {
      case .silent: act = []
      case .all: break
      case .latest(let n):
        act = Array(
          fresh.sorted { (items[$0].published ?? .distantPast, -$0) > (items[$1].published ?? .distantPast, -$1) }
            .prefix(n)
        ).sorted()
      }
    }
    state.initialized = true
    // The first poll at a new URL, its history moved from the old one: what was published since the old
    // URL's last poll is new; what is older was there to see at the old URL.
    if let since = state.movedSince {
      let before = act.count
      act = act.filter { (items[$0].published ?? .distantFuture) > since }
      outcome.tooOld += before - act.count
      state.movedSince = nil
    }
    if let maxAge = settings.maxAge {
      let oldest = now.addingTimeInterval(-Double(maxAge))
      let before = act.count
      act = act.filter { (items[$0].published ?? now) >= oldest }
      outcome.tooOld += before - act.count
    }
    if !diff.announced.isEmpty { act = Array(Set(act).union(diff.announced)).sorted() }
    return act
  }

  /// Forgets the items that left the feed longer ago than the retention, and their digests.
  func forgetExpired(_ state: inout FeedState) {
    let horizon = now.addingTimeInterval(-Double(settings.retention))
    let expired = state.items.values.contains(where: { $0.lastSeen < horizon })
    if expired { state.items = state.items.filter { $0.value.lastSeen >= horizon } }
    if expired || state.itemDigests.count > state.items.count {
      state.itemDigests = state.itemDigests.filter { state.items[$0.key] != nil }
    }
  }
}
