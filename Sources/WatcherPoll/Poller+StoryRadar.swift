// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherConfig
import WatcherFeed
import WatcherRules
import WatcherState
import WatcherSupport

/// What a pass keeps of the stories: those acted on (by link, `dedupe`) and those across feeds (the radar),
/// each read when first needed.
struct PassStories {
  var acted: [String: Story]?
  var radar: StoryRadar?
  var radarChanged = false
}

extension Poller {
  /// Stories across feeds: each new item of the batch placed in its story (`StoryRadar`), one feed after the
  /// other, before the states are saved.
  ///
  /// An item that joins a story of other feeds updates the story's bubble in place (its notification
  /// replaces the first one, "also in …"); a `dedupe: story` rule's hook, webhook or Apprise message runs
  /// once per story; a spread trigger's actions are recorded on the item that brings its story to the
  /// rule's feeds, once. Every other action runs per item, as decided.
  func groupStories(_ jobs: inout [FeedJob], stories: inout PassStories, now: Date, dryRun: Bool) {
    guard jobs.contains(where: { !$0.storyItems.isEmpty }) else { return }
    if stories.radar == nil { stories.radar = (try? store.storyRadar(readOnly: dryRun)) ?? StoryRadar() }
    guard var radar = stories.radar else { return }
    let rules = Dictionary(config.rules.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    var recorder = ActionRecorder(rules: config.rules)
    recorder.learn = config.settings.notify.learn
    for index in jobs.indices where !jobs[index].storyItems.isEmpty {
      var journal: [JournalEntry] = []
      for waiting in jobs[index].storyItems {
        let entry = radar.add(waiting.item)
        let feeds = radar.feeds(of: entry.story)
        if entry.joined, feeds.count > 1 {
          journal.append(
            JournalEntry(
              time: now, feed: entry.feed, title: entry.title, link: entry.link, key: entry.key, rule: nil,
              action: "story", outcome: .grouped,
              detail: "story \(entry.story), \(feeds.count) feeds (\(feeds.joined(separator: ", "))); shares "
                + entry.why.shared.prefix(6).map { "'\($0)'" }.joined(separator: ", ")
                + " (similarity \(Relevance.shown(entry.why.similarity)))"))
        }
        updateBubble(of: entry, feeds: feeds, in: &jobs[index], radar: &radar, now: now)
        journal += oncePerStory(entry, in: &jobs[index], rules: rules, radar: &radar, now: now)
        journal += fireSpread(
          waiting, entry: entry, in: &jobs[index], rules: rules, recorder: recorder, radar: &radar, now: now)
      }
      jobs[index].storyItems = []
      jobs[index].outcome.journal += journal
      if !journal.isEmpty, !dryRun { try? store.appendJournal(journal, limits: journalLimits, now: now) }
    }
    stories.radar = radar
    stories.radarChanged = !dryRun
  }

  /// The item's notification made the story's bubble: the first one shown for a story is its bubble; a
  /// later item of another feed shows that bubble again, updated, in its place.
  private func updateBubble(
    of entry: StoryRadar.Entry, feeds: [String], in job: inout FeedJob, radar: inout StoryRadar, now: Date
  ) {
    let name = "story:\(entry.story)"
    for index in job.state.pending.indices {
      let action = job.state.pending[index]
      // A critical notification stays in its rule's run of critical bubbles (`BubbleRuns`).
      guard action.key == entry.key, action.created == now, case .notify(var notification) = action.payload,
        notification.replaces == nil, notification.urgency != .critical
      else { continue }
      notification.replaces = name
      if entry.joined, feeds.count > 1, let note = radar.notes[entry.story], let summary = note.summary {
        let others = feeds.filter { $0 != feeds.first }
        notification.summary = summary
        notification.body = [note.body ?? "", "Also in \(others.joined(separator: ", ")) — \(feeds.count) feeds"]
          .filter { !$0.isEmpty }.joined(separator: "\n\n")
        notification.links = radar.links(of: entry.story)
        job.state.pending[index].link = note.link ?? action.link
      } else {
        radar.note(entry.story) { note in
          note.summary = notification.summary
          note.body = notification.body
          note.link = action.link
        }
      }
      job.state.pending[index].payload = .notify(notification)
    }
  }

  /// A `dedupe: story` rule's hook, webhook or Apprise message for an item whose story already had it:
  /// not taken again (journaled as a duplicate).
  private func oncePerStory(
    _ entry: StoryRadar.Entry, in job: inout FeedJob, rules: [String: Rule], radar: inout StoryRadar, now: Date
  ) -> [JournalEntry] {
    var journal: [JournalEntry] = []
    let taken = radar.notes[entry.story]?.actions ?? []
    var added: [String] = []
    job.state.pending.removeAll { action in
      guard action.key == entry.key, action.created == now, action.kind != .notify, let rule = action.rule,
        rules[rule]?.actions.oncePerStory == true
      else { return false }
      let name = Story.action(action)
      guard taken.contains(name) else {
        added.append(name)
        return false
      }
      job.outcome.actions -= 1
      journal.append(
        JournalEntry(
          time: now, feed: entry.feed, title: entry.title, link: entry.link, key: entry.key, rule: rule,
          action: action.kind.rawValue, outcome: .duplicate,
          detail: "story \(entry.story) had it already (dedupe: story)"))
      return true
    }
    if !added.isEmpty { radar.note(entry.story) { $0.actions += added } }
    return journal
  }

  /// The actions of the spread triggers waiting on this item, recorded when its story has reached the
  /// rule's feeds within its time and the rule has not fired for the story yet.
  private func fireSpread(
    _ waiting: StoryItem, entry: StoryRadar.Entry, in job: inout FeedJob, rules: [String: Rule],
    recorder: ActionRecorder, radar: inout StoryRadar, now: Date
  ) -> [JournalEntry] {
    guard waiting.waiting.hasActions else { return [] }
    var ready = Set<String>()
    var journal: [JournalEntry] = []
    for (name, rule) in rules {
      guard let spread = rule.spread, radar.feeds(of: entry.story).count >= spread.feeds,
        !(radar.notes[entry.story]?.fired.contains(name) ?? false)
      else { continue }
      let feeds = radar.feeds(of: entry.story, within: Double(spread.within))
      guard feeds.count >= spread.feeds else { continue }
      ready.insert(name)
      radar.note(entry.story) { $0.fired.append(name) }
      journal.append(
        JournalEntry(
          time: now, feed: entry.feed, title: entry.title, link: entry.link, key: entry.key, rule: name,
          action: "story", outcome: .grouped,
          detail: "story \(entry.story) reached \(feeds.count) feeds: \(feeds.joined(separator: ", "))"))
    }
    guard !ready.isEmpty else { return journal }
    var (_, decision) = waiting.waiting.split(by: ready)
    let feeds = radar.feeds(of: entry.story)
    let links = radar.entries(of: entry.story).map { "\($0.feed): \($0.link ?? $0.title)" }
    let spreadNote = "In \(feeds.count) feeds:\n" + links.prefix(8).map { "• " + $0 }.joined(separator: "\n")
    for index in decision.notifications.indices {
      decision.notifications[index].body = [decision.notifications[index].body, spreadNote].filter { !$0.isEmpty }
        .joined(separator: "\n\n")
    }
    let before = job.state.pending.count
    recorder.record(
      decision, for: waiting.stored, key: entry.key, feed: job.feed, state: &job.state, outcome: &job.outcome,
      digests: &job.digestEntries, now: now)
    let storyLinks = radar.links(of: entry.story)
    for index in before..<job.state.pending.count {
      if case .notify(var notification) = job.state.pending[index].payload {
        notification.links = storyLinks
        job.state.pending[index].payload = .notify(notification)
      }
    }
    return journal
  }
}
