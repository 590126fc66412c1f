// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
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

  package let config: Config
  package let store: StateStore
  package let transport: any HTTPTransport
  package let runner: any ActionRunner
  package let cancellation: Cancellation?
  /// Called between the batches of a pass (the daemon pings systemd's watchdog with it).
  public var heartbeat: (@Sendable () -> Void)?
  /// Spaces the requests to one host (`settings.host_gap`) and holds a host that asked to wait.
  public var pacer: HostPacer

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
    pacer = HostPacer(hostGap: config.settings.hostGap)
  }

  /// A fetch's answer.
  typealias FetchResult = Result<FetchResponse, FetchError>

  /// The longest a server's `Retry-After` is honoured (a week).
  package static let maxRetryAfter = 7 * 86_400

  /// Polls `feeds` (all of them when `force`, else the due ones) and returns one outcome per feed.
  ///
  /// A server's `Retry-After` holds even for forced feeds, unless `ignoreRetryAfter`.
  public func poll(
    _ feeds: [FeedConfig], force: Bool, ignoreRetryAfter: Bool = false, mode: Mode = .normal,
    now: Date = WallClock.now()
  ) -> [Outcome] {
    pass(feeds, force: force, ignoreRetryAfter: ignoreRetryAfter, mode: mode, now: now).outcomes
  }

  /// Polls like `poll`, and first shows the notifications kept from earlier passes when it can.
  ///
  /// With `dryRun`, everything a real pass does (fetch, diff against state, first_poll, max_age, retention,
  /// rules) except acting and saving: each outcome's `planned` lists what the real pass would do, and no
  /// file is written or moved.
  public func pass(
    _ feeds: [FeedConfig], force: Bool, ignoreRetryAfter: Bool = false, mode: Mode = .normal,
    now: Date = WallClock.now(),
    dryRun: Bool = false
  ) -> Pass {
    var pass = Pass(outcomes: [])
    if mode == .normal, !dryRun {
      pass.clickProblems = absorbClicks(now: now)
      showKept(&pass, now: now)
      deliverDigests(&pass, now: now)
    }
    pass.outcomes = feedOutcomes(
      feeds, force: force, ignoreRetryAfter: ignoreRetryAfter, mode: mode, now: now, dryRun: dryRun)
    pass.keptWaiting = (try? store.keptNotifications(readOnly: true).count) ?? 0
    return pass
  }

  /// The pass over `feeds`, in stages: load → schedule → fetch → read → save → act.
  ///
  /// Each due feed travels the stages as one `FeedJob`; its outcome goes back to the feed's place in the
  /// order given. The concurrency (reading states and feeds on every core, the next batch downloading
  /// while this one is read, saved and acted on) is in `PassStages.swift`.
  private func feedOutcomes(
    _ feeds: [FeedConfig], force: Bool, ignoreRetryAfter: Bool, mode: Mode, now: Date, dryRun: Bool
  ) -> [Outcome] {
    // One outcome per feed, 680 bytes each: made once, not regrown.
    var outcomes: [Outcome] = []
    outcomes.reserveCapacity(feeds.count)
    var due: [PassStages.Due] = []
    // A feed whose URL changed (a 301 followed in the config, an edit, remove and add): its history follows.
    let moved = dryRun ? [] : store.adoptMoved(feeds.map { ($0.url, $0.name) })
    var holds = (try? store.hostHolds(readOnly: dryRun)) ?? [:]
    let heldBefore = holds
    // States are read without their known items, which are most of a state file, to be scheduled: a feed
    // that is not due needs nothing more, and a due one is read whole by the read stage only when its poll
    // is more than a 304 (`PassStages.whole`), from the file's bytes kept since (one read of each file). A
    // pass over many feeds holds their states a batch at a time: they are read a chunk at a time to be
    // scheduled, and the due ones are read again just before their batch is fetched (10,000 feeds' states
    // held at once were a third of the daemon's memory, and their jobs, 2.6 KB each, half of it).
    let chunk = PassStages.stateChunk
    let reread = feeds.count > chunk
    for start in stride(from: 0, to: feeds.count, by: chunk) {
      let part = Array(feeds[start..<min(feeds.count, start + chunk)])
      let states = PassStages.loadStates(
        part, directory: store.directory, readOnly: dryRun, keepingBytes: !reread)
      for (offset, (feed, loaded)) in zip(part, states).enumerated() {
        guard let loaded else { continue }
        switch schedule(
          feed, loaded, force: force, ignoreRetryAfter: ignoreRetryAfter, mode: mode, now: now, dryRun: dryRun,
          hostHold: Schedule.hold(feed, in: holds).flatMap { $0 > now ? $0 : nil })
        {
        case .finished(let outcome):
          outcomes.append(outcome)
        case .due(var job):
          job.position = outcomes.count
          outcomes.append(job.outcome)
          if reread, !job.restarted {
            due.append(.later(feed: start + offset, position: job.position))
          } else {
            job.keep(loaded)
            due.append(.job(job))
          }
        }
      }
    }
    // Rules on the learned score: the model the kept labels teach, trained once for the pass.
    let engine = RuleEngine(rules: config.rules, settings: config.settings.notify).learning(
      from: store, feeds: config.feeds, byTag: config.settings.scoreByTag)
    // One reader for the pass: its story identity, the rules' buttons and the snoozed feeds are made once.
    var reader = FeedDecider(
      config: config, transport: transport, cancellation: cancellation,
      pagesDeadline: ContinuousClock.now + .seconds(config.settings.fullTextBudget.passSeconds))
    reader.recorder.snoozed = Set(store.snoozes(readOnly: dryRun, now: now).filter { $0.value > now }.keys)
    var stories = PassStories()
    // The feeds whose poll changed nothing but its times: recorded once, after the last batch (PollTimes).
    var times: [String: (times: PollTimes.Times, position: Int)] = [:]
    PassStages.inBatches(
      due, size: max(32, 4 * config.settings.concurrency), cancellation: cancellation,
      prepare: { pending in
        let (ready, unreadable) = PassStages.jobs(
          pending, feeds: feeds, outcomes: outcomes, directory: store.directory, readOnly: dryRun)
        for (position, error) in unreadable { outcomes[position].failures.append(.unreadableState(error)) }
        return ready
      },
      fetch: fetch
    ) { batch, bodies in
      heartbeat?()
      Self.noteHosts(batch, holds: &holds, now: now)
      // Feeds whose new items fetch their pages (full_text) are read, saved and acted on after the others,
      // so that pages, however slow within their budget, never hold up another feed's actions.
      let pages = batch.indices.filter { batch[$0].feed.wantsFullText(config.settings) }
      let groups = pages.isEmpty ? [Array(batch.indices)] : [batch.indices.filter { !pages.contains($0) }, pages]
      for group in groups where !group.isEmpty {
        let read = read(
          batch, group, bodies: bodies, reader: reader, mode: mode, engine: engine, now: now, dryRun: dryRun)
        let acting = save(
          read, mode: mode, dryRun: dryRun, now: now, outcomes: &outcomes, stories: &stories, times: &times)
        act(acting, now: now, outcomes: &outcomes)
      }
    }
    do {
      try PollTimes.record(times.mapValues(\.times), directory: store.directory)
    } catch {
      for entry in times.values {
        outcomes[entry.position].warnings.append("cannot record when it was polled (\(error)); it is polled again soon")
      }
    }
    if !dryRun {
      if holds != heldBefore { try? store.saveHostHolds(holds, now: now) }
      store.syncDirectory()
    }
    for (name, from) in moved {
      guard let index = outcomes.firstIndex(where: { $0.feed.name == name }) else { continue }
      outcomes[index].warnings.append(
        "its URL changed: its history came along from \(from), so what it published since is new and the rest is not")
    }
    return outcomes
  }

  /// What the batch's answers say of their hosts: a 429 or 503 holds the host (`HostHold.next`), any
  /// other answer from it clears the hold.
  static func noteHosts(_ batch: [FeedJob], holds: inout [String: HostHold], now: Date) {
    var throttled: Set<String> = []
    for job in batch {
      guard case .success(let response)? = job.response else { continue }
      // The host that answered: after a redirect, not the feed's own (one host's 429 never holds another's
      // feeds; the redirected feed backs off on its own).
      let host = HostPacer.host(of: response.finalURL)
      if response.status == 429 || response.status == 503 {
        // One hold per host and pass, however many of its feeds answered so.
        if throttled.insert(host).inserted {
          holds[host] = HostHold.next(after: holds[host], retryAfter: response.retryAfter, now: now)
        }
      } else if !throttled.contains(host), response.status < 500 {
        holds[host] = nil
      }
    }
  }

  /// What the schedule stage decided for one feed.
  enum Scheduled {
    /// Nothing more to do this pass (not due, held by `Retry-After`, an unreadable state).
    case finished(Outcome)
    /// To fetch and read.
    case due(FeedJob)
  }

  /// Schedule: whether the feed is polled now.
  ///
  /// A feed that is not due still has the actions an earlier pass left pending retried, once their wait is
  /// over.
  private func schedule(
    _ feed: FeedConfig, _ loaded: Result<StateStore.Loaded, StateError>, force: Bool, ignoreRetryAfter: Bool,
    mode: Mode, now: Date, dryRun: Bool, hostHold: Date?
  ) -> Scheduled {
    var outcome = Outcome(feed: feed)
    let state: FeedState
    var restarted = false
    switch loaded {
    case .success(let loaded):
      state = loaded.state
      if let warning = loaded.restarted {
        outcome.warnings.append(warning)
        restarted = true
      }
    case .failure(let error):
      // A state file that exists but cannot be read: never overwritten, nothing done for the feed.
      outcome.failures.append(.unreadableState(error))
      return .finished(outcome)
    }
    let waits = [state.retryAfterUntil, hostHold].compactMap { $0 }
    if force, let until = waits.map({ StoredTime.deadline($0, longest: Schedule.longestWait, now: now) }).max(),
      until > now
    {
      guard ignoreRetryAfter else {
        outcome.heldUntil = until
        return .finished(outcome)
      }
      outcome.warnings.append(
        "the server asked not to be polled before \(ISODate.format(until)) (Retry-After); polling anyway (--force)")
    }
    guard force || Schedule.isDue(feed, state: state, settings: config.settings, hostHold: hostHold, now: now) else {
      let plan = Schedule.plan(feed, state: state, settings: config.settings, hostHold: hostHold, now: now)
      (outcome.nextDue, outcome.nextBecause) = (plan.at, plan.reasons)
      // Not due, but actions left pending by an earlier pass (a crash, a failure whose wait is over) run now.
      // (A pending action whose rule is gone is dropped now, too.)
      let gone = !PendingRefresh.refresh(state.pending, feed: feed, config: config).gone.isEmpty
      if state.pending.contains(where: { Self.isDue($0, now: now) }) || gone, mode == .normal {
        if dryRun {
          outcome.planned = state.pending.filter { Self.isDue($0, now: now) }
        } else {
          var retried = state
          if state.itemsSkipped {
            // Read whole first (it was read without its items, to schedule it): it is saved with the results.
            do throws(StateError) {
              let whole = try store.load(url: feed.url)
              if let warning = whole.restarted {
                outcome.warnings.append(warning)
                return .finished(outcome)
              }
              retried = whole.state
            } catch {
              outcome.failures.append(.unreadableState(error))
              return .finished(outcome)
            }
          }
          runPending(&retried, feed: feed, outcome: &outcome, now: now)
        }
      }
      return .finished(outcome)
    }
    outcome.polled = true
    return .due(FeedJob(feed: feed, state: state, outcome: outcome, restarted: restarted))
  }

  /// Fetch: the HTTP feeds of a batch, together (concurrently, two per host).
  ///
  /// Returns the download to run, one result per HTTP feed in order; files are read by the read stage.
  private func fetch(_ jobs: ArraySlice<FeedJob>) -> @Sendable () -> [FetchResult] {
    let settings = config.settings
    let environment = ProcessInfo.processInfo.environment
    // A request that cannot be made (a header's file is missing) fails on its own; the others go.
    let made: [Result<FetchRequest, FetchError>] = jobs.filter { FeedLocation.isHTTP($0.feed.url) }.map { job in
      Self.request(job.feed, state: job.state, settings: settings, environment: environment)
    }
    let requests = made.compactMap { try? $0.get() }
    let (transport, cancellation, pacer) = (transport, cancellation, pacer)
    return {
      var fetched =
        requests.isEmpty
        ? [] : transport.fetch(requests, concurrency: settings.concurrency, cancellation: cancellation, pacer: pacer)
      fetched.reverse()
      return made.map { made in
        switch made {
        case .success: return fetched.popLast() ?? .failure(.cancelled)
        case .failure(let error): return .failure(error)
        }
      }
    }
  }

  /// The conditional GET for a feed, with its fetch options (`user_agent`, `headers`…) over the settings'.
  package static func request(
    _ feed: FeedConfig, state: FeedState, settings: Settings, environment: [String: String]
  ) -> Result<FetchRequest, FetchError> {
    var request = FetchRequest(
      url: feed.url, etag: state.etag, lastModified: state.lastModified, maxBytes: settings.maxBytes,
      timeout: settings.timeout)
    let options = feed.fetch.over(settings.fetch)
    guard !options.isEmpty else { return .success(request) }
    switch options.headerLines(environment: environment) {
    case .success(let lines): request.headers = lines
    case .failure(let error): return .failure(.notMade(error.description))
    }
    request.userAgent = options.userAgent
    request.netrc = options.netrc.map { HomePath.expand($0, environment: environment) }
    request.cookies = options.cookies.map { HomePath.expand($0, environment: environment) }
    request.proxy = options.proxy
    return .success(request)
  }

  /// Read: every feed of the batch parsed, diffed and run through the rules at once, on every core.
  ///
  /// This is the CPU work of a pass; nothing is written or done here.
  private func read(
    _ batch: [FeedJob], _ group: [Int], bodies: PassStages.Bodies, reader: FeedDecider, mode: Mode,
    engine: RuleEngine, now: Date, dryRun: Bool
  ) -> [FeedJob] {
    let read = Locked([FeedJob?](repeating: nil, count: group.count))
    let (directory, readOnly) = (store.directory, dryRun)
    WorkerPool.shared.perform(iterations: group.count) { position in
      let index = group[position]
      var job = batch[index]
      // A state read without its items does for a poll that changes nothing but its times (a 304 of a feed
      // with nothing pending); any other reads it whole: before, when there is a body to read, or after.
      let notModified = if case .success(let response)? = job.response { response.status == 304 } else { false }
      if !notModified { job = PassStages.whole(job, directory: directory, readOnly: readOnly) }
      var polled = reader.decide(job, body: bodies.take(index), mode: mode, engine: engine, now: now)
      if polled.state.itemsSkipped,
        !polled.state.pending.isEmpty
          || !(polled.saved.map { PollTimes.onlyTimesChanged(polled.state, from: $0) } ?? false)
      {
        polled = reader.decide(
          PassStages.whole(job, directory: directory, readOnly: readOnly), body: [], mode: mode, engine: engine,
          now: now)
      }
      read.withLock { $0[position] = polled }
    }
    return read.withLock { $0 }.compactMap { $0 }
  }

  /// Save: each feed's digest items, then every state of the batch at once.
  ///
  /// Returns the feeds with actions to run: they run only once their pending actions are durably saved,
  /// since a state that cannot be written would repeat them every poll.
  private func save(
    _ read: [FeedJob], mode: Mode, dryRun: Bool, now: Date, outcomes: inout [Outcome], stories: inout PassStories,
    times: inout [String: (times: PollTimes.Times, position: Int)]
  ) -> [FeedJob] {
    var read = read
    // The same story acted on for another feed: not again. The stories are saved after the states, which
    // hold the actions: a crash between the two can repeat an action, never lose one.
    let storiesChanged =
      mode == .normal && dedupe(&read, stories: &stories.acted, now: now, dryRun: dryRun) && !dryRun
    // Stories across feeds: grouped after the per-link check, so that what it dropped is not regrouped.
    groupStories(&read, stories: &stories, now: now, dryRun: dryRun)
    if !dryRun {
      let rekeys = read.flatMap { job in
        (job.outcome.rekeyNote.map {
          [
            JournalEntry(
              time: now, feed: job.feed.name, title: nil, link: nil, key: "", rule: nil, action: "identity",
              outcome: .rekeyed, detail: $0)
          ]
        } ?? [])
          + job.outcome.identityNotes
          + job.outcome.updated.map {
            JournalEntry(
              time: now, feed: job.feed.name, title: $0, link: nil, key: "", rule: nil, action: "item",
              outcome: .updated)
          }
      }
      if !rekeys.isEmpty { try? store.appendJournal(rekeys, limits: journalLimits, now: now) }
    }
    var toSave: [FeedJob] = []
    for var job in read {
      if dryRun {
        if mode == .normal { job.outcome.planned = job.state.pending.filter { Self.isDue($0, now: now) } }
        outcomes[job.position] = job.outcome
        continue
      }
      // Digest items are stored before the state records their items as seen: a crash between the two
      // collects an item twice (told apart by its key), never loses one.
      if !job.digestEntries.isEmpty {
        do {
          job.outcome.warnings += try collect(job.digestEntries, now: now)
        } catch {
          job.outcome.failures.append(.save(error, unsavedActions: job.digestEntries.count))
          outcomes[job.position] = job.outcome
          continue
        }
      }
      fitBudget(&job, now: now)
      toSave.append(job)
    }
    let saved = PassStages.saveStates(toSave.map { ($0.state, $0.saved) }, directory: store.directory)
    if storiesChanged, let acted = stories.acted {
      do {
        try store.saveStories(acted, horizon: now.addingTimeInterval(-Double(config.settings.retention)))
      } catch {
        for index in toSave.indices {
          toSave[index].outcome.warnings.append("cannot keep the stories acted on: \(error)")
        }
      }
    }
    if stories.radarChanged, let radar = stories.radar {
      stories.radarChanged = false
      do { try store.saveStoryRadar(radar) } catch {
        for index in toSave.indices {
          toSave[index].outcome.warnings.append("cannot keep the stories across feeds: \(error)")
        }
      }
    }
    for (job, result) in zip(toSave, saved) where result.timesOnly {
      times[StateStore.fileName(for: job.state.url)] = (PollTimes.Times(of: job.state, since: job.saved), job.position)
    }
    var acting: [FeedJob] = []
    for (var job, result) in zip(toSave, saved.map(\.result)) {
      if case .failure(let error) = result {
        job.outcome.failures.append(.save(error, unsavedActions: job.state.pending.count))
      } else if !job.state.pending.isEmpty, mode == .normal {
        job.prepared = preparePending(&job.state, feed: job.feed, outcome: &job.outcome, now: now)
        acting.append(job)
        continue
      }
      outcomes[job.position] = job.outcome
    }
    return acting
  }

  /// Act: the actions of the batch's feeds run together (their hooks share the slots), then each feed
  /// records what became of its own.
  private func act(_ jobs: [FeedJob], now: Date, outcomes: inout [Outcome]) {
    let results = runner.run(batches: jobs.map { PendingBatch(actions: $0.state.pending, feed: $0.feed) })
    for (var job, result) in zip(jobs, results) {
      recordPending(
        &job.state, feed: job.feed, outcome: &job.outcome, prepared: job.prepared ?? PreparedPending(),
        results: result, now: now)
      outcomes[job.position] = job.outcome
    }
  }

  /// Saves the state, and returns false when it could not (reported in the outcome).
  ///
  /// `durably` also syncs the directory, so the rename survives a crash.
  @discardableResult
  func save(_ state: inout FeedState, outcome: inout Outcome, durably: Bool = false) -> Bool {
    do {
      try store.save(state, syncDirectory: durably)
      return true
    } catch {
      outcome.failures.append(.save(error, unsavedActions: state.pending.count))
      return false
    }
  }
}
