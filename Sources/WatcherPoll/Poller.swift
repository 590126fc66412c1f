// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherActions
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherRules
import WatcherState
import WatcherSupport

/// One pass over feeds: fetch, parse, diff against state, rules, pending actions, save (docs/design.md, "The path of one feed").
///
/// A failing feed never stops the others. State is saved after each feed with durable atomic writes.
public struct Poller {
  /// What to do with new items.
  public enum Mode: Sendable {
    /// Act on new items (subject to the first-poll policy and `max_age`).
    case normal
    /// Record every current item as seen, act on none (`watcher catch-up`).
    case catchUp
    /// A feed whose state file was corrupt: record everything, act on nothing.
    case silentRestart
  }

  /// What happened to one feed.
  public struct Outcome: Sendable {
    /// The feed.
    public var feed: FeedConfig
    /// Whether it was polled (false: not due yet).
    public var polled = false
    /// HTTP 304 (or an unchanged file).
    public var notModified = false
    /// Items in the feed now.
    public var items = 0
    /// Items not seen before.
    public var newItems = 0
    /// New items acted on (rules evaluated).
    public var actedOn = 0
    /// Actions recorded as pending.
    public var actions = 0
    /// Why the feed could not be polled, or its state saved (empty when all went well).
    public var failures: [FeedFailure] = []
    /// Set when the feed was named (forced) but not polled because its server asked to wait until then.
    public var heldUntil: Date?
    /// Problems worth reporting that did not stop the feed (corrupt state, parse warnings).
    public var warnings: [String] = []
    /// Actions that failed (a notification service that cannot be reached, a failing hook).
    public var actionProblems: [ActionProblem] = []
    /// Actions still pending after the pass (to retry, or not run because watcher was stopping).
    public var pendingLeft = 0
    /// Notifications that could not be shown and were kept to show later.
    public var kept = 0
    /// In a dry run: the actions the real poll would carry out for this feed (new ones and retries).
    public var planned: [FeedState.PendingAction] = []
    /// Set when this pass was the feed's first: what `first_poll` did with its items.
    public var firstPoll: Settings.FirstPoll?
    /// New items not acted on because they were published longer ago than `max_age`.
    public var tooOld = 0
    /// New items acted on that a rule muted, that got a notification, that got a hook, that nothing touched.
    public var muted = 0
    public var notified = 0
    public var hooked = 0
    public var untouched = 0
    /// When the feed is due next (set for a feed that was not due).
    public var nextDue: Date?
    /// What became of each action (as the journal records it).
    public var journal: [JournalEntry] = []
    /// Notifications held for quiet hours.
    public var held = 0
    /// Items collected for digests in this pass: (rule, item title).
    public var digested: [(rule: String, title: String)] = []
    /// The digest entries to store (rule, entry).
    var digestEntries: [(rule: String, entry: Digest.Entry)] = []

    /// Records a problem once: the same failure of several actions is one problem.
    mutating func report(_ problem: ActionProblem) {
      if !actionProblems.contains(problem) { actionProblems.append(problem) }
    }
  }

  /// Why the notifications kept from earlier passes were not shown.
  public enum KeptFailure: Sendable, Equatable, CustomStringConvertible {
    /// The notification service is still unreachable.
    case notShown(ActionFailure)
    /// The kept list could not be read or written.
    case store(StateError)

    public var description: String {
      switch self {
      case .notShown(let failure): return "\(failure)"
      case .store(let error): return "\(error)"
      }
    }
  }

  /// What a pass did: one outcome per feed, and what became of the notifications kept for later.
  public struct Pass: Sendable {
    /// One outcome per feed, in the order given.
    public var outcomes: [Outcome]
    /// Kept notifications shown at the start of this pass (several as one summary).
    public var keptShown = 0
    /// Notifications kept at the end of the pass, waiting for the notification service.
    public var keptWaiting = 0
    /// Kept notifications given up on (older than `keep_for`, or beyond `keep_max`).
    public var keptDropped = 0
    /// Kept notifications still held for quiet hours.
    public var keptHeld = 0
    /// Digests that went out: (rule, items).
    public var digestsShown: [(rule: String, items: Int)] = []
    /// Why a digest did not go out, when one did not.
    public var digestProblems: [String] = []
    /// Why the kept notifications could not be shown or stored, when they could not.
    public var keptError: KeptFailure?
  }

  package let config: Config
  package let store: StateStore
  package let transport: any HTTPTransport
  package let runner: any ActionRunner
  package let cancellation: Cancellation?

  /// Creates a poller; setting `cancellation` stops it between feeds and aborts transfers in flight.
  public init(
    config: Config, store: StateStore, transport: any HTTPTransport, runner: any ActionRunner,
    cancellation: Cancellation? = nil
  ) {
    self.config = config
    self.store = store
    self.transport = transport
    self.runner = runner
    self.cancellation = cancellation
  }

  /// A fetch's answer.
  typealias FetchResult = Result<FetchResponse, FetchError>

  /// The longest a server's `Retry-After` is honoured (a week).
  package static let maxRetryAfter = 7 * 86_400

  /// Polls `feeds` (all of them when `force`, else the due ones) and returns one outcome per feed.
  ///
  /// A server's `Retry-After` holds even for forced feeds, unless `ignoreRetryAfter`.
  public func poll(
    _ feeds: [FeedConfig], force: Bool, ignoreRetryAfter: Bool = false, mode: Mode = .normal, now: Date = Date()
  ) -> [Outcome] {
    pass(feeds, force: force, ignoreRetryAfter: ignoreRetryAfter, mode: mode, now: now).outcomes
  }

  /// Polls like `poll`, and first shows the notifications kept from earlier passes when it can.
  ///
  /// With `dryRun`, everything a real pass does (fetch, diff against state, first_poll, max_age, retention,
  /// rules) except acting and saving: each outcome's `planned` lists what the real pass would do, and no
  /// file is written or moved.
  public func pass(
    _ feeds: [FeedConfig], force: Bool, ignoreRetryAfter: Bool = false, mode: Mode = .normal, now: Date = Date(),
    dryRun: Bool = false
  ) -> Pass {
    var pass = Pass(outcomes: [])
    if mode == .normal, !dryRun {
      showKept(&pass, now: now)
      deliverDigests(&pass, now: now)
    }
    pass.outcomes = feedOutcomes(
      feeds, force: force, ignoreRetryAfter: ignoreRetryAfter, mode: mode, now: now, dryRun: dryRun)
    pass.keptWaiting = (try? store.keptNotifications(readOnly: true).count) ?? 0
    return pass
  }

  /// Runs the pending actions of `feeds` now (those of the items in `keys`, or all), without fetching:
  /// `watcher pending --retry`.
  public func retryPending(_ feeds: [FeedConfig], keys: Set<String>? = nil, now: Date = Date()) -> [Outcome] {
    feeds.compactMap { feed in
      var outcome = Outcome(feed: feed)
      guard var state = try? store.load(url: feed.url).state, !state.pending.isEmpty else { return nil }
      let chosen = state.pending.filter { keys?.contains($0.key) ?? true }
      guard !chosen.isEmpty else { return nil }
      let others = state.pending.filter { !(keys?.contains($0.key) ?? true) }
      state.pending = chosen
      runPending(&state, feed: feed, outcome: &outcome, now: now)
      if !others.isEmpty {
        state.pending += others
        outcome.pendingLeft = state.pending.count
        save(&state, outcome: &outcome)
      }
      return outcome
    }
  }

  /// Forgets the pending actions of `feeds` (those of the items in `keys`, or all): `watcher pending --drop`.
  ///
  /// They are recorded as dropped (in the state and the journal). Returns how many were dropped per feed.
  public func dropPending(_ feeds: [FeedConfig], keys: Set<String>? = nil, now: Date = Date()) -> [(
    feed: FeedConfig, dropped: Int, failure: FeedFailure?
  )] {
    feeds.compactMap { feed in
      guard var state = try? store.load(url: feed.url).state else { return nil }
      let dropped = state.pending.filter { keys?.contains($0.key) ?? true }
      guard !dropped.isEmpty else { return nil }
      state.pending.removeAll { keys?.contains($0.key) ?? true }
      for action in dropped {
        state.dropped.append(
          FeedState.DroppedAction(
            key: action.key, rule: action.rule, what: action.command ?? action.summary ?? "",
            reason: "dropped by 'watcher pending --drop'", time: now))
      }
      state.dropped = Array(state.dropped.suffix(20))
      var outcome = Outcome(feed: feed)
      guard save(&state, outcome: &outcome, durably: true) else { return (feed, 0, outcome.failures.first) }
      try? store.appendJournal(
        dropped.map {
          Self.entry($0, feed: feed, outcome: .dropped, now: now, attempt: $0.attempts, detail: "dropped by the user")
        },
        limits: journalLimits, now: now)
      return (feed, dropped.count, nil)
    }
  }

  /// Adds items to their rules' digests (a new digest goes out on its rule's schedule).
  private func collect(_ entries: [(rule: String, entry: Digest.Entry)], now: Date) throws(StateError) {
    var digests = try store.digests()
    for (rule, entry) in entries {
      if let index = digests.firstIndex(where: { $0.rule == rule }) {
        guard !digests[index].items.contains(where: { $0.feed == entry.feed && $0.key == entry.key }) else { continue }
        digests[index].items.append(entry)
        digests[index].items = Array(digests[index].items.suffix(Digest.maxItems))
      } else {
        let schedule = config.rules.first { $0.name == rule }?.actions.digest ?? DigestAction(every: 86_400)
        digests.append(Digest(rule: rule, due: schedule.due(after: now), items: [entry]))
      }
    }
    try store.saveDigests(digests)
  }

  /// Sends the digests that are due.
  ///
  /// First the rule's digest hook (the items as a JSON array on stdin), then one notification listing the
  /// titles. A failing hook is retried on later passes (up to `hook_retries`);
  /// quiet hours hold the digest; a notification that cannot be shown is kept like any other.
  private func deliverDigests(_ pass: inout Pass, now: Date) {
    let digests: [Digest]
    do {
      digests = try store.digests()
    } catch {
      pass.digestProblems.append("\(error)")
      return
    }
    guard digests.contains(where: { $0.due <= now }) else { return }
    let settings = config.settings.notify
    var remaining: [Digest] = []
    var journal: [JournalEntry] = []
    var toKeep: [KeptNotification] = []
    let digestFeed = FeedConfig(url: "", name: "digest")
    for var digest in digests {
      guard digest.due <= now, !digest.items.isEmpty, !settings.quiet.holds(settings.urgency, at: now) else {
        if !digest.items.isEmpty { remaining.append(digest) }
        continue
      }
      let count = digest.items.count
      if let hook = config.rules.first(where: { $0.name == digest.rule })?.actions.digestHook {
        let action = FeedState.PendingAction(
          kind: .hook, key: "digest:\(digest.rule)", rule: digest.rule, command: hook.command,
          arguments: hook.run?.map { $0.render(FeedItem(key: ""), feed: "digest", tags: []) }, timeout: hook.timeout,
          item: "[" + digest.items.map(\.item).joined(separator: ",") + "]",
          environment: ["WATCHER_RULE": digest.rule, "WATCHER_FEED": "digest", "WATCHER_DIGEST_COUNT": "\(count)"],
          title: "digest of rule '\(digest.rule)'", created: now)
        var attempt = action
        attempt.attempts = digest.attempts
        let result = runner.run([attempt], feed: digestFeed).first ?? .notRun
        let entry = Self.entry(
          attempt, feed: digestFeed, outcome: .ok, now: now, exitStatus: 0, detail: "\(count) items")
        switch result {
        case .done: journal.append(entry)
        case .notRun, .keep:
          remaining.append(digest)
          continue
        case .retry(_, let failure):
          digest.attempts += 1
          remaining.append(digest)
          pass.digestProblems.append("the digest hook of rule '\(digest.rule)' failed (\(failure)); will retry")
          var failed = entry
          failed.outcome = .retry
          failed.exitStatus = failure.exitStatus
          failed.detail = "\(failure)"
          journal.append(failed)
          continue
        case .drop(let failure):
          pass.digestProblems.append("the digest hook of rule '\(digest.rule)' gave up: \(failure)")
          var failed = entry
          failed.outcome = .dropped
          failed.detail = "\(failure)"
          journal.append(failed)
        }
      }
      let lines = digest.items.prefix(20).map { "\($0.feed): \($0.title ?? $0.key)" }
      let notification = FeedState.PendingAction(
        kind: .notify, key: "digest:\(digest.rule)", rule: digest.rule,
        summary: "Digest '\(digest.rule)': \(count) item\(count == 1 ? "" : "s")",
        body: (lines + (count > 20 ? ["… and \(count - 20) more"] : [])).joined(separator: "\n"),
        urgency: settings.urgency, expire: settings.expire, icon: settings.icon,
        title: "digest of rule '\(digest.rule)'", created: now)
      if case .keep(let failure) = runner.showKept([KeptNotification(feed: "digest", action: notification)]) {
        toKeep.append(KeptNotification(feed: "digest", action: notification))
        journal.append(Self.entry(notification, feed: digestFeed, outcome: .kept, now: now, detail: "\(failure)"))
      } else {
        journal.append(Self.entry(notification, feed: digestFeed, outcome: .shown, now: now, detail: "\(count) items"))
      }
      pass.digestsShown.append((digest.rule, count))
    }
    do {
      if !toKeep.isEmpty {
        let (bounded, _) = KeptNotification.prune(
          (try store.keptNotifications()) + toKeep, settings: settings, now: now)
        try store.saveKept(bounded)
      }
      try store.saveDigests(remaining)
    } catch {
      pass.digestProblems.append("\(error)")
    }
    try? store.appendJournal(journal, limits: journalLimits, now: now)
  }

  /// Shows the kept notifications (one summary when several), or keeps them, pruned to the bounds.
  private func showKept(_ pass: inout Pass, now: Date) {
    do {
      let stored = try store.keptNotifications()
      guard !stored.isEmpty else { return }
      let (all, dropped) = KeptNotification.prune(stored, settings: config.settings.notify, now: now)
      pass.keptDropped = dropped
      // What is due now: not held past now, and not held by quiet hours that are on now.
      let quiet = config.settings.notify.quiet
      let kept = all.filter {
        ($0.until ?? .distantPast) <= now && !quiet.holds($0.action.urgency ?? .normal, at: now)
      }
      let waiting = all.filter { entry in !kept.contains { $0 == entry } }
      pass.keptHeld = waiting.count
      guard !kept.isEmpty else {
        if dropped > 0 { try store.saveKept(all) }
        return
      }
      if case .keep(let failure) = runner.showKept(kept) {
        pass.keptError = .notShown(failure)
        if dropped > 0 { try store.saveKept(all) }
        return
      }
      pass.keptShown = kept.count
      try store.saveKept(waiting)
      let shown = kept.map { entry in
        Self.entry(
          entry.action, feed: FeedConfig(url: "", name: entry.feed), outcome: .shown, now: now,
          detail: kept.count > 1
            ? "kept from an earlier poll; in one summary of \(kept.count)" : "kept from an earlier poll")
      }
      try? store.appendJournal(shown, limits: journalLimits, now: now)
    } catch {
      pass.keptError = .store(error)
    }
  }

  private func feedOutcomes(
    _ feeds: [FeedConfig], force: Bool, ignoreRetryAfter: Bool, mode: Mode, now: Date, dryRun: Bool
  ) -> [Outcome] {
    var outcomes: [Outcome] = []
    var states: [FeedState] = []
    var chosen: [FeedConfig] = []
    var restarted: Set<String> = []
    // Every feed's state, read at once on every core (decoding the JSON is most of a re-poll's work).
    let directory = store.directory
    let loaded = Locked([Result<StateStore.Loaded, StateError>?](repeating: nil, count: feeds.count))
    WorkerPool.shared.perform(iterations: feeds.count) { index in
      let result = Result { () throws(StateError) in
        try StateStore.load(url: feeds[index].url, directory: directory, readOnly: dryRun)
      }
      loaded.withLock { $0[index] = result }
    }
    for (feed, result) in zip(feeds, loaded.withLock { $0 }) {
      var outcome = Outcome(feed: feed)
      let state: FeedState
      do {
        guard let result else { continue }
        let loaded = try result.get()
        state = loaded.state
        if let warning = loaded.restarted {
          outcome.warnings.append(warning)
          restarted.insert(feed.url)
        }
      } catch {
        // A state file that exists but cannot be read: never overwritten, nothing done for the feed.
        outcome.failures.append(.unreadableState(error))
        outcomes.append(outcome)
        continue
      }
      if force, let until = state.retryAfterUntil, until > now {
        guard ignoreRetryAfter else {
          outcome.heldUntil = until
          outcomes.append(outcome)
          continue
        }
        outcome.warnings.append(
          "the server asked not to be polled before \(ISODate.format(until)) (Retry-After); polling anyway (--force)")
      }
      guard force || Schedule.isDue(feed, state: state, settings: config.settings, now: now) else {
        outcome.nextDue = Schedule.nextDue(feed, state: state, settings: config.settings)
        // Not due, but actions left pending by an earlier pass (a failure, a crash) are retried every pass.
        if !state.pending.isEmpty, mode == .normal {
          if dryRun {
            outcome.planned = state.pending
          } else {
            var retried = state
            runPending(&retried, feed: feed, outcome: &outcome, now: now)
          }
        }
        outcomes.append(outcome)
        continue
      }
      outcome.polled = true
      outcomes.append(outcome)
      states.append(state)
      chosen.append(feed)
    }
    // Fetch the HTTP feeds together (concurrently, two per host); read the files directly. In batches, so
    // that a pass over 1,000 feeds holds a batch of bodies in memory, not all of them.
    let engine = RuleEngine(rules: config.rules, settings: config.settings.notify)
    let batchSize = max(32, 4 * config.settings.concurrency)
    var outcomeIndex = 0
    let (settings, transport, cancellation) = (config.settings, transport, cancellation)
    func fetch(_ batch: Range<Int>) -> (indices: [Int], fetch: @Sendable () -> [Poller.FetchResult]) {
      let httpIndices = batch.filter { FeedLocation.isHTTP(chosen[$0].url) }
      let requests = httpIndices.map {
        FetchRequest(
          url: chosen[$0].url, etag: states[$0].etag,
          lastModified: states[$0].lastModified, maxBytes: settings.maxBytes, timeout: settings.timeout)
      }
      return (
        httpIndices,
        {
          requests.isEmpty
            ? [] : transport.fetch(requests, concurrency: settings.concurrency, cancellation: cancellation)
        }
      )
    }
    // While a batch is read, saved and acted on, the next one downloads.
    var next: Prefetch?
    for batchStart in stride(from: 0, to: chosen.count, by: batchSize) {
      let batch = batchStart..<min(chosen.count, batchStart + batchSize)
      var acting: [(index: Int, feed: FeedConfig, state: FeedState, outcome: Outcome, prepared: PreparedPending)] = []
      let (httpIndices, fetchBatch) = fetch(batch)
      var fetched = next?.wait() ?? fetchBatch()
      next = nil
      if batch.upperBound < chosen.count {
        next = Prefetch(fetch(batch.upperBound..<min(chosen.count, batch.upperBound + batchSize)).fetch)
      }
      // Each body is taken out of its response and held once, by its job, so that the parse can release
      // it piece by piece while it builds the items.
      var responses: [Int: FetchResult] = [:]
      var bodies: [Int: [Data]] = [:]
      for (offset, index) in httpIndices.enumerated() {
        if case .success(var response) = fetched[offset] {
          bodies[index] = response.pieces
          response.pieces = []
          fetched[offset] = .success(response)
        }
        responses[index] = fetched[offset]
      }
      fetched = []

      // Read every feed of the batch at once, on every core: parsing and the rules are the CPU work of a
      // pass. Saving and acting follow in order, one feed at a time.
      var jobs: [(feed: FeedConfig, state: FeedState, outcome: Outcome, response: FetchResult?, at: Int)] = []
      var jobBodies: [[Data]] = []
      for index in batch {
        let feed = chosen[index]
        while outcomes[outcomeIndex].feed != feed || !outcomes[outcomeIndex].polled { outcomeIndex += 1 }
        // Stopping: leave unfinished feeds exactly as they were.
        if case .failure(.cancelled)? = responses[index] { continue }
        if cancellation?.isCancelled == true, responses[index] == nil { continue }
        jobs.append((feed, states[index], outcomes[outcomeIndex], responses[index], outcomeIndex))
        jobBodies.append(bodies.removeValue(forKey: index) ?? [])
      }
      bodies = [:]
      let bodyStore = Locked(jobBodies)
      jobBodies = []
      let reader = FeedReader(config: config, transport: transport, cancellation: cancellation)
      let read = Locked([(state: FeedState, outcome: Outcome)?](repeating: nil, count: jobs.count))
      let (sharedJobs, restartedURLs, firstPoll) = (jobs, restarted, config.settings.firstPoll)
      WorkerPool.shared.perform(iterations: jobs.count) { job in
        let (feed, response) = (sharedJobs[job].feed, sharedJobs[job].response)
        var (state, outcome) = (sharedJobs[job].state, sharedJobs[job].outcome)
        state.lastAttempt = now
        // When nothing of this feed will be acted on (catch-up, a silent first poll, a restart), its items are
        // read for their identity only.
        let silent =
          mode == .catchUp || restartedURLs.contains(feed.url) || (!state.initialized && firstPoll == .silent)
        let body = bodyStore.withLock { bodies in
          let body = bodies[job]
          bodies[job] = []
          return body
        }
        let parsed = reader.load(
          feed, response: response, body: body, state: &state, outcome: &outcome, now: now, identityOnly: silent)
        if let parsed {
          // After a corrupt state file the feed starts again silently, whatever first_poll says: its items
          // may have been handled already.
          let feedMode = restartedURLs.contains(feed.url) && mode == .normal ? .silentRestart : mode
          reader.apply(parsed, feed: feed, state: &state, outcome: &outcome, engine: engine, mode: feedMode, now: now)
        }
        read.withLock { $0[job] = (state, outcome) }
      }
      var toSave: [(job: Int, state: FeedState, outcome: Outcome)] = []
      for (job, result) in read.withLock({ $0 }).enumerated() {
        guard let (state, read) = result else { continue }
        var outcome = read
        let outcomeIndex = sharedJobs[job].at
        if dryRun {
          if mode == .normal { outcome.planned = state.pending }
          outcomes[outcomeIndex] = outcome
          continue
        }
        // Digest items are stored before the state records their items as seen: a crash between the two
        // collects an item twice (told apart by its key), never loses one.
        if !outcome.digestEntries.isEmpty {
          do {
            try collect(outcome.digestEntries, now: now)
          } catch {
            outcome.failures.append(.save(error, unsavedActions: outcome.digestEntries.count))
            outcomes[outcomeIndex] = outcome
            continue
          }
        }
        toSave.append((job, state, outcome))
      }
      // Every state of the batch is written at once: each is its own file, and a write mostly waits for
      // the disk. Act only once the pending actions are durably saved: a state that cannot be written
      // would otherwise repeat the same actions on every poll.
      let saves = Locked([Result<Void, StateError>?](repeating: nil, count: toSave.count))
      let (directory, unsaved) = (store.directory, toSave)
      WorkerPool.shared.perform(iterations: unsaved.count) { position in
        let state = unsaved[position].state
        let result = Result { () throws(StateError) in
          try StateStore.save(state, directory: directory, syncDirectory: !state.pending.isEmpty)
        }
        saves.withLock { $0[position] = result }
      }
      for (position, (job, var state, var outcome)) in toSave.enumerated() {
        let (feed, outcomeIndex) = (sharedJobs[job].feed, sharedJobs[job].at)
        if case .failure(let error) = saves.withLock({ $0[position] }) {
          outcome.failures.append(.save(error, unsavedActions: state.pending.count))
        } else if !state.pending.isEmpty, mode == .normal {
          let prepared = preparePending(&state, feed: feed, outcome: &outcome, now: now)
          acting.append((outcomeIndex, feed, state, outcome, prepared))
          continue
        }
        outcomes[outcomeIndex] = outcome
      }
      // The actions of the batch's feeds run together (their hooks share the slots), then each feed
      // records what became of its own.
      let results = runner.run(batches: acting.map { PendingBatch(actions: $0.state.pending, feed: $0.feed) })
      for (work, result) in zip(acting, results) {
        var (state, outcome) = (work.state, work.outcome)
        recordPending(&state, feed: work.feed, outcome: &outcome, prepared: work.prepared, results: result, now: now)
        outcomes[work.index] = outcome
      }
    }
    if !dryRun { store.syncDirectory() }
    return outcomes
  }

  /// Hands the pending actions to the runner and saves the state without the ones it did (the pending
  /// list was saved before, so a crash here repeats actions but never loses one).
  private func runPending(_ state: inout FeedState, feed: FeedConfig, outcome: inout Outcome, now: Date) {
    let prepared = preparePending(&state, feed: feed, outcome: &outcome, now: now)
    let results = runner.run(state.pending, feed: feed)
    recordPending(&state, feed: feed, outcome: &outcome, prepared: prepared, results: results, now: now)
  }

  /// What `preparePending` decided before the actions run: the journal so far, the notifications held.
  struct PreparedPending {
    var journal: [JournalEntry] = []
    var held: [KeptNotification] = []
  }

  /// Refreshes the pending actions from the config and holds the notifications quiet hours hold; the ones
  /// left in `state.pending` are to run now.
  private func preparePending(_ state: inout FeedState, feed: FeedConfig, outcome: inout Outcome, now: Date)
    -> PreparedPending
  {
    var journal: [JournalEntry] = []
    // Each action runs as its rule says now: a hook fixed in the config fixes its retries; an action
    // whose rule is gone is dropped.
    let refreshed = PendingRefresh.refresh(state.pending, feed: feed, config: config)
    for action in refreshed.gone {
      Self.drop(action, from: &state, reason: "its rule '\(action.rule ?? "")' is no longer in the config", now: now)
      outcome.report(.ruleGone(rule: action.rule ?? ""))
      journal.append(
        Self.entry(
          action, feed: feed, outcome: .dropped, now: now, attempt: action.attempts,
          detail: "its rule is no longer in the config"))
    }
    state.pending = refreshed.current
    // Quiet hours: notifications wait (kept, durably, until the quiet time ends); hooks are not held.
    let quiet = config.settings.notify.quiet
    var held: [KeptNotification] = []
    if quiet.isQuiet(now) {
      let until = quiet.end(after: now)
      state.pending.removeAll { action in
        guard action.kind == .notify, quiet.holds(action.urgency ?? .normal, at: now) else { return false }
        held.append(KeptNotification(feed: feed.name, action: action, until: until))
        return true
      }
      for entry in held {
        journal.append(
          Self.entry(
            entry.action, feed: feed, outcome: .held, now: now,
            detail: "quiet hours; shown at \(ISODate.format(until))"))
      }
    }
    return PreparedPending(journal: journal, held: held)
  }

  /// Records a dropped action in the state (the last 20 are kept for status).
  private static func drop(_ action: FeedState.PendingAction, from state: inout FeedState, reason: String, now: Date) {
    state.dropped.append(
      FeedState.DroppedAction(
        key: action.key, rule: action.rule, what: action.command ?? action.summary ?? "", reason: reason, time: now))
    state.dropped = Array(state.dropped.suffix(20))
  }

  /// Journals what became of each action, keeps what must wait, and saves the state without the actions
  /// that are done (the pending list was saved before they ran: a crash repeats, never loses).
  private func recordPending(
    _ state: inout FeedState, feed: FeedConfig, outcome: inout Outcome, prepared: PreparedPending,
    results: [ActionOutcome], now: Date
  ) {
    var journal = prepared.journal
    let held = prepared.held
    var kept: [FeedState.PendingAction] = []
    var toKeep: [FeedState.PendingAction] = []
    let notifications = state.pending.filter { $0.kind == .notify }.count
    let summary =
      notifications > config.settings.notify.maxPerPoll ? "in one summary of \(notifications)" : nil
    for (action, result) in zip(state.pending, results) {
      switch result {
      case .done:
        journal.append(
          Self.entry(
            action, feed: feed, outcome: action.kind == .notify ? .shown : .ok, now: now,
            exitStatus: action.kind == .hook ? 0 : nil, detail: action.kind == .notify ? summary : nil))
      case .notRun:
        kept.append(action)
        journal.append(Self.entry(action, feed: feed, outcome: .stopped, now: now, detail: "watcher was stopping"))
      case .keep(let failure):
        toKeep.append(action)
        outcome.report(.notShown(failure))
        journal.append(Self.entry(action, feed: feed, outcome: .kept, now: now, detail: "\(failure)"))
      case .retry(var updated, let failure):
        updated.lastError = "\(failure)"
        kept.append(updated)
        outcome.report(.hookWillRetry(rule: action.rule ?? "", item: Self.itemName(action), failure))
        journal.append(
          Self.entry(
            action, feed: feed, outcome: .retry, now: now, exitStatus: failure.exitStatus, detail: "\(failure)"))
      case .drop(let failure):
        Self.drop(action, from: &state, reason: "\(failure)", now: now)
        outcome.report(
          .hookDropped(rule: action.rule ?? "", item: Self.itemName(action), attempts: action.attempts + 1, failure))
        journal.append(
          Self.entry(
            action, feed: feed, outcome: .dropped, now: now, exitStatus: failure.exitStatus, detail: "\(failure)"))
      }
    }
    outcome.journal += journal
    // What failed this time, for status (cleared once every action went through).
    if let failed = journal.first(where: { [.kept, .retry, .dropped].contains($0.outcome) && $0.detail != nil }) {
      state.lastActionError = "\(failed.action) of rule '\(failed.rule ?? "feed notify")': \(failed.detail ?? "")"
    } else if !journal.isEmpty {
      state.lastActionError = nil
    }
    do {
      try store.appendJournal(journal, limits: journalLimits, now: now)
    } catch {
      outcome.warnings.append("cannot write the journal: \(error)")
    }
    // Notifications that could not be shown, or wait for quiet hours to end, move to the kept list (saved
    // first: never lost); should that fail, they stay pending here.
    if !toKeep.isEmpty || !held.isEmpty {
      do {
        let stored = try store.keptNotifications()
        let added = toKeep.map { KeptNotification(feed: feed.name, action: $0) } + held
        let (bounded, _) = KeptNotification.prune(stored + added, settings: config.settings.notify, now: now)
        try store.saveKept(bounded)
        outcome.kept += toKeep.count
        outcome.held += held.count
      } catch {
        kept += toKeep + held.map(\.action)
        outcome.report(.cannotKeep(error))
      }
    }
    // Actions the runner did not report on (a shorter answer) stay pending.
    kept += state.pending.dropFirst(results.count)
    state.pending = kept
    outcome.pendingLeft = kept.count
    save(&state, outcome: &outcome)
  }

  /// Counts a failure and sets when to try again.
  ///
  /// Exponential backoff from the feed's interval, capped at a day; a server's Retry-After wins when longer
  /// (up to a week). Saturating: no interval, count or Retry-After, whatever a state file or a server says,
  /// can overflow.
  package static func recordFailure(_ state: inout FeedState, interval: Int, retryAfter: Int?, now: Date) {
    state.consecutiveFailures = min(max(state.consecutiveFailures, 0), 1_000_000) + 1
    let (scaled, overflow) = max(interval, 1).multipliedReportingOverflow(
      by: 1 << min(state.consecutiveFailures - 1, 16))
    let backoff = overflow ? 86_400 : min(86_400, scaled)
    let held = retryAfter.map { min(max($0, 0), maxRetryAfter) }
    state.notBefore = now.addingTimeInterval(Double(max(backoff, held ?? 0)))
    state.retryAfterUntil = held.map { now.addingTimeInterval(Double($0)) }
  }

  /// Saves the state, and returns false when it could not (reported in the outcome).
  ///
  /// `durably` also syncs the directory, so the rename survives a crash.
  @discardableResult
  private func save(_ state: inout FeedState, outcome: inout Outcome, durably: Bool = false) -> Bool {
    do {
      try store.save(state, syncDirectory: durably)
      return true
    } catch {
      outcome.failures.append(.save(error, unsavedActions: state.pending.count))
      return false
    }
  }

  /// An item as messages name it: its title, else its key.
  static func itemName(_ action: FeedState.PendingAction) -> String {
    action.title ?? action.environment?["WATCHER_TITLE"] ?? action.key
  }

  /// The journal's bounds, from `settings.journal`.
  package var journalLimits: JournalLimits {
    JournalLimits(keepFor: config.settings.journalKeepFor, keepMax: config.settings.journalKeepMax)
  }

  /// A journal entry for `action` of `feed`.
  static func entry(
    _ action: FeedState.PendingAction, feed: FeedConfig, outcome: JournalEntry.Outcome, now: Date,
    exitStatus: Int? = nil, attempt: Int? = nil, detail: String? = nil
  ) -> JournalEntry {
    JournalEntry(
      time: now, feed: feed.name, title: action.title ?? action.environment?["WATCHER_TITLE"],
      link: action.link ?? action.environment?["WATCHER_LINK"], key: action.key, rule: action.rule,
      action: action.kind.rawValue, outcome: outcome, exitStatus: exitStatus, attempt: attempt ?? action.attempts + 1,
      detail: detail)
  }

  /// The key that decides novelty under a feed's identity setting.
  package static func identity(_ item: FeedItem, _ identity: FeedConfig.Identity) -> String {
    switch identity {
    case .guid: return item.key
    case .link: return item.link ?? item.key
    case .title: return item.title.map { "title:" + $0 } ?? item.key
    case .hash:
      return FeedIdentity.baseKey(FeedItem(key: "", title: item.title, published: item.published, text: item.text))
    }
  }
}

/// One batch's downloads, started on a thread of its own so that they run while the batch before is
/// read, saved and acted on.
private final class Prefetch: @unchecked Sendable {
  private let done = DispatchSemaphore(value: 0)
  /// Written by the thread before `done` is signalled, read after.
  private var results: [Poller.FetchResult] = []

  init(_ fetch: @escaping @Sendable () -> [Poller.FetchResult]) {
    let thread = Thread { [self] in
      results = fetch()
      done.signal()
    }
    thread.stackSize = 1 << 20
    thread.start()
  }

  /// The batch's results, once every download is over.
  func wait() -> [Poller.FetchResult] {
    done.wait()
    return results
  }
}
