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
  /// A new item whose story (its compared link and its title) was acted on for another feed within
  /// `retention` does not take again the actions that feed took for it: the same rule's same kind of action
  /// (journaled as duplicates). Any other action of the item still runs: one feed's item never cancels what
  /// another feed's rules do (SECURITY.md, "One feed never decides another"). The others are added to the
  /// stories.
  ///
  /// Runs in the save stage, one feed after the other, so that two feeds of one batch with the same new
  /// story act on it once. The stories are saved after the feeds' states (`save`): a crash between the two
  /// can repeat an action, never lose one.
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
        var job = jobs[index]
        let taken =
          job.state.pending.filter { $0.key == key && $0.created == now }.map(Story.action)
          + job.digestEntries.filter { $0.entry.key == key }.map { Story.action(rule: $0.rule, kind: "digest") }
        if enabled, let first = stories?[story], first.feed != feed.name, first.time >= horizon {
          let repeated = Set(taken).intersection(first.actions)
          if !repeated.isEmpty {
            let dropped = job.state.pending.filter {
              $0.key == key && $0.created == now && repeated.contains(Story.action($0))
            }
            job.state.pending.removeAll { $0.key == key && $0.created == now && repeated.contains(Story.action($0)) }
            job.digestEntries.removeAll {
              $0.entry.key == key && repeated.contains(Story.action(rule: $0.rule, kind: "digest"))
            }
            job.outcome.actions -= dropped.count
            job.outcome.duplicates.append((title ?? key, first.feed))
            journal.append(
              JournalEntry(
                time: now, feed: feed.name, title: title, link: dropped.first?.link, key: key, rule: nil,
                action: dropped.map(\.kind.rawValue).first ?? "digest", outcome: .duplicate, exitStatus: nil,
                attempt: 1,
                detail: "duplicate of \(first.feed)'s item (\(repeated.count) action\(repeated.count == 1 ? "" : "s") "
                  + "not taken again)"))
          }
          // What this feed takes beyond the first feed's actions: a third feed need not take it again.
          let added = Set(taken).subtracting(first.actions)
          if !added.isEmpty, !dryRun {
            stories?[story]?.actions = Array(Set(first.actions).union(added)).sorted()
            changed = true
          }
          jobs[index] = job
        } else if stories?[story] == nil || stories?[story]?.feed == feed.name
          || (stories?[story]?.time ?? now) < horizon
        {
          stories?[story] = Story(story: story, feed: feed.name, time: now, actions: Array(Set(taken)).sorted())
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

extension Story {
  /// How a story names an action taken for it: its rule and kind.
  static func action(rule: String?, kind: String) -> String { (rule ?? "") + "/" + kind }

  static func action(_ pending: FeedState.PendingAction) -> String {
    action(rule: pending.rule, kind: pending.kind.rawValue)
  }
}
