// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherState
import WatcherSupport

extension Poller {
  /// One story, one set of actions, across feeds; returns whether the stories changed.
  ///
  /// The new items of `jobs` whose story was acted on for another feed within `retention` lose this pass's
  /// actions and digest entries (journaled as duplicates); the others are added to the stories.
  ///
  /// Runs in the save stage, one feed after the other, so that two feeds of one batch with the same new
  /// story act on it once.
  func dedupe(_ jobs: inout [FeedJob], stories: inout [String: Story]?, now: Date, dryRun: Bool) -> Bool {
    guard jobs.contains(where: { !$0.stories.isEmpty }) else { return false }
    if stories == nil { stories = (try? store.stories()) ?? [:] }
    let horizon = now.addingTimeInterval(-Double(config.settings.retention))
    var changed = false
    for index in jobs.indices where !jobs[index].stories.isEmpty {
      let feed = jobs[index].feed
      let enabled = feed.dedupe ?? config.settings.dedupe
      var journal: [JournalEntry] = []
      for (key, title, story) in jobs[index].stories {
        if enabled, let first = stories?[story], first.feed != feed.name, first.time >= horizon {
          if dryRun { jobs[index].outcome.duplicates.append((title ?? key, first.feed)) }
          var job = jobs[index]
          let dropped = job.state.pending.filter { $0.key == key && $0.created == now }
          job.state.pending.removeAll { $0.key == key && $0.created == now }
          job.digestEntries.removeAll { $0.entry.key == key }
          job.outcome.actions -= dropped.count
          job.outcome.duplicates.append((title ?? key, first.feed))
          jobs[index] = job
          journal.append(
            JournalEntry(
              time: now, feed: feed.name, title: title, link: dropped.first?.link, key: key, rule: nil,
              action: dropped.map(\.kind.rawValue).first ?? "digest", outcome: .duplicate, exitStatus: nil,
              attempt: 1,
              detail:
                "duplicate of \(first.feed)'s item (\(dropped.count) action\(dropped.count == 1 ? "" : "s") not taken)")
          )
        } else if stories?[story] == nil || stories?[story]?.feed == feed.name
          || (stories?[story]?.time ?? now) < horizon
        {
          stories?[story] = Story(story: story, feed: feed.name, time: now)
          changed = true
        }
      }
      jobs[index].stories = []
      jobs[index].outcome.journal += journal
      if !journal.isEmpty, !dryRun { try? store.appendJournal(journal, limits: journalLimits, now: now) }
    }
    return changed
  }
}
