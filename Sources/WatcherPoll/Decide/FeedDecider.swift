// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherRules
import WatcherState
import WatcherSupport

/// The step of a pass that decides, for one fetched feed, what its items are and what to do about them.
///
/// A story in four steps, each a type of its own: the response read into a parsed feed (`load`), its items
/// diffed against the state (`ItemDiff`: identity, novelty, edits), the new ones to act on selected
/// (`Selection`: first_poll, max_age), the rules run and their decisions made into pending actions
/// (`ActionRecorder`). It writes nothing and acts on nothing, so the feeds of a batch are decided at once, on
/// every core; the poller then saves them and runs their actions in order.
package struct FeedDecider: Sendable {
  let config: Config
  let transport: any HTTPTransport
  let cancellation: Cancellation?
  /// When the pass's time for `full_text` pages runs out.
  let pagesDeadline: ContinuousClock.Instant
  /// What identifies a story under this config (made once: it is a set of parameter names).
  let stories: StoryIdentity
  /// What makes the actions (with the feeds snoozed now, whose notifications are not made).
  var recorder: ActionRecorder

  init(
    config: Config, transport: any HTTPTransport, cancellation: Cancellation?,
    pagesDeadline: ContinuousClock.Instant = .now + .seconds(180)
  ) {
    self.config = config
    self.transport = transport
    self.cancellation = cancellation
    self.pagesDeadline = pagesDeadline
    stories = StoryIdentity(extra: config.settings.ignoreParameters)
    recorder = ActionRecorder(rules: config.rules)
    recorder.learn = config.settings.notify.learn
  }

  /// Decides one feed: its response parsed, its items diffed against its state, the rules run, the pending
  /// actions and digest entries recorded in the job it returns.
  ///
  /// `body` is the response's body, taken out of it so that the parse can release it piece by piece.
  func decide(_ job: FeedJob, body: consuming [Data], mode: Poller.Mode, engine: RuleEngine, now: Date) -> FeedJob {
    var job = job
    if case .failure(.hostHeld(let seconds))? = job.response {
      // Not requested: another feed of its host was just told to wait (hosts.json holds it). Not this
      // feed's failure, and not an attempt.
      job.outcome.heldUntil = now.addingTimeInterval(Double(seconds))
      job.outcome.heldInPass = true
      job.outcome.polled = false
      return job
    }
    job.state.lastAttempt = now
    job.state.name = job.feed.name
    // When nothing of this feed will be acted on (catch-up, a silent first poll, a restart), its items are
    // read for their identity only.
    let silent =
      mode == .catchUp || job.restarted
      || (!job.state.initialized && (job.feed.firstPoll ?? config.settings.firstPoll) == .silent)
    if let parsed = load(
      job.feed, response: job.response, body: consume body, state: &job.state, outcome: &job.outcome, now: now,
      identityOnly: silent)
    {
      // After a corrupt state file the feed starts again silently, whatever first_poll says: its items
      // may have been handled already.
      let feedMode = job.restarted && mode == .normal ? .silentRestart : mode
      decide(
        parsed, in: &job, engine: engine, mode: feedMode, now: now,
        fullText: !readsIdentityOnly(job.feed, state: job.state, silent: silent))
    }
    noteHealth(&job, mode: mode, now: now)
    return job
  }

  /// The parsed items: diffed against the state, the new ones to act on selected, the rules run on them (and
  /// on edited items, for the rules that act on edits), their actions recorded.
  ///
  /// `fullText` is false when the items were read for their identity only: their digests would be of their
  /// titles alone, and tell an edit where there is none.
  private func decide(
    _ parsed: ParsedFeed, in job: inout FeedJob, engine: RuleEngine, mode: Poller.Mode, now: Date, fullText: Bool
  ) {
    let feed = job.feed
    job.outcome.warnings += parsed.warnings.prefix(3).map { "\($0)" }
    var items = parsed.feed.items
    job.outcome.items = items.count

    let identity = Self.identity(feed, state: job.state)
    let context = ItemDiff.Context(
      feed: feed, identity: identity, updates: mode == .normal && job.state.initialized && wantsUpdates(feed),
      fullText: fullText, now: now)
    let diff = ItemDiff.diff(items, against: &job.state, stories: stories, context)
    job.outcome.repeats += diff.repeats
    job.outcome.identityNotes += diff.notes
    job.outcome.newItems = diff.fresh.count
    learnHints(parsed.feed, state: &job.state, now: now)
    noteRekeys(diff.rekeyed, items: items.count, feed: feed, state: &job.state, outcome: &job.outcome, now: now)

    let selection = Selection(settings: config.settings, mode: mode, now: now)
    selection.forgetExpired(&job.state)
    let act = selection.items(diff, of: items, feed: feed, state: &job.state, outcome: &job.outcome)
    job.outcome.actedOn = act.count
    if feed.wantsFullText(config.settings), !act.isEmpty {
      let scope = try? job.response?.get().scope
      addContent(to: &items, at: act, feed: feed, feedScope: scope ?? nil, outcome: &job.outcome)
    }

    // The actions are keyed by the identity the feed has now (a re-key may just have switched it to links).
    let actionIdentity = Self.identity(feed, state: job.state)
    func record(_ decision: Decision, for item: FeedItem) {
      recorder.record(
        decision, for: item, key: actionIdentity.key(of: item), feed: feed, state: &job.state,
        outcome: &job.outcome, digests: &job.digestEntries, now: now)
    }
    // Edited items: only the rules that act on edits (on_update) see them.
    if !diff.updated.isEmpty {
      job.outcome.updated = diff.updated.map { items[$0].title ?? items[$0].key }
      let onUpdate = RuleEngine(rules: config.rules.filter(\.actions.onUpdate), settings: config.settings.notify)
      for item in diff.updated.lazy.map({ items[$0] }) {
        record(onUpdate.evaluate(item, feed: feed, now: now, excerpts: false), for: item)
      }
    }
    let grouped = mode == .normal && (feed.stories ?? config.settings.stories)
    for item in act.lazy.map({ items[$0] }) {
      let (decision, waiting) = engine.evaluate(item, feed: feed, now: now, excerpts: false).split(
        by: engine.spreadRules)
      record(decision, for: item)
      if grouped {
        job.storyItems.append(
          StoryItem(
            item: StoryRadar.Item(
              key: actionIdentity.key(of: item), feed: feed.name, title: item.title ?? "",
              text: item.text.map { String($0.prefix(300)) },
              link: item.link, time: min(item.published ?? now, now), categories: item.categories),
            stored: item.stored, waiting: waiting))
      }
      if decision.acts, let story = (item.link ?? (FeedLocation.isHTTP(item.key) ? item.key : nil)) {
        job.stories.append(
          (
            identity.key(of: item), item.title,
            Story.bounded(stories.normalized(story) + "\n" + Story.folded(item.title))
          )
        )
      }
    }
  }

  /// Whether a rule for `feed` acts on edited items (`on_update`).
  func wantsUpdates(_ feed: FeedConfig) -> Bool {
    config.rules.contains { $0.actions.onUpdate && $0.applies(to: feed) }
  }

  /// The identity a feed's items are told apart by: the one its config chose, else `link` when watcher
  /// switched it (its ids changed on every fetch while its links stayed), else ids.
  package static func identity(_ feed: FeedConfig, state: FeedState) -> FeedConfig.Identity {
    !feed.identityChosen && state.autoIdentity == "link" ? .link : feed.identity
  }

  /// Fetches the article each item links to and sets its `content`; an item whose page fails goes on with
  /// its feed text, and the failure is reported.
  private func addContent(
    to all: inout [FeedItem], at act: [Int], feed: FeedConfig, feedScope: AddressScope?, outcome: inout Poller.Outcome
  ) {
    var items = act.map { all[$0] }
    // Each feed's pages within its budget, and every feed's within the pass's.
    let budget = config.settings.fullTextBudget
    let deadline = min(ContinuousClock.now + .seconds(budget.feedSeconds), pagesDeadline)
    let failed = ArticleLoader.addContent(
      to: &items, feedURL: feed.url, feedScope: feedScope, limits: ArticleLoader.Limits(config.settings),
      transport: transport, cancellation: cancellation, selector: feed.contentSelector, rewrite: feed.linkRewrite,
      budget: (budget.pages, deadline, budget.feedSeconds))
    for (position, index) in act.enumerated() { all[index] = items[position] }
    for (item, error) in failed {
      outcome.warnings.append("full text of '\(item)': \(error); its rules see the feed's text only")
    }
  }

}

extension Decision {
  /// Whether anything is done for the item (a notification, a hook, a digest).
  fileprivate var acts: Bool { !notifications.isEmpty || !hooks.isEmpty || !digests.isEmpty }
}
