// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherRules
import WatcherState
import WatcherSupport

/// The part of a pass that reads one feed and decides what to do.
///
/// It parses the response, diffs the items against the state, applies first_poll, max_age and retention,
/// runs the rules, and records the pending actions in the state. It writes nothing and acts on nothing, so
/// the feeds of a batch are read at once, on every core; the poller then saves and acts on them in order.
package struct FeedReader: Sendable {
  let config: Config
  let transport: any HTTPTransport
  let cancellation: Cancellation?
  /// When the pass's time for `full_text` pages runs out.
  let pagesDeadline: ContinuousClock.Instant
  /// What identifies a story under this config (made once: it is a set of parameter names).
  let stories: StoryIdentity
  /// The feeds snoozed now (their notifications are not made).
  var snoozed: Set<String> = []
  /// The buttons of each rule that has some.
  let buttonsByRule: [String: [NotifyButton]]

  init(
    config: Config, transport: any HTTPTransport, cancellation: Cancellation?,
    pagesDeadline: ContinuousClock.Instant = .now + .seconds(180)
  ) {
    self.config = config
    self.transport = transport
    self.cancellation = cancellation
    self.pagesDeadline = pagesDeadline
    stories = StoryIdentity(extra: config.settings.ignoreParameters)
    buttonsByRule = Dictionary(
      config.rules.filter { !$0.actions.buttons.isEmpty }.map { ($0.name, $0.actions.buttons) },
      uniquingKeysWith: { first, _ in first })
  }

  /// The read stage for one feed: its response parsed, its items diffed against its state, the rules run,
  /// the pending actions and digest entries recorded in the job it returns.
  ///
  /// `body` is the response's body, taken out of it so that the parse can release it piece by piece.
  func read(_ job: FeedJob, body: consuming [Data], mode: Poller.Mode, engine: RuleEngine, now: Date) -> FeedJob {
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
      apply(
        parsed, to: &job, engine: engine, mode: feedMode, now: now,
        fullText: !readsIdentityOnly(job.feed, state: job.state, silent: silent))
    }
    noteHealth(&job, mode: mode, now: now)
    return job
  }

  /// A change in the feed's health (`FeedHealth`) is told once: a warning of the poll, and a low-urgency
  /// notification, pending like any other (quiet hours hold it), unless `settings.notify.health` is off.
  private func noteHealth(_ job: inout FeedJob, mode: Poller.Mode, now: Date) {
    var events: [FeedHealth] = []
    let current = FeedHealth.current(job.state, now: now)
    if let current, current.key != job.state.healthTold {
      events.append(current)
      job.state.healthTold = current.key
    } else if current == nil {
      job.state.healthTold = nil
    }
    // Ids that changed are news only wholesale (a migration); one item or a few stay in the journal and status.
    // Told at most once a day: a feed whose ids churn on every fetch is one piece of news, not one a poll.
    if let note = job.outcome.rekeyNote, job.outcome.rekeyed >= max(5, job.outcome.items / 4),
      StoredTime.deadline(job.state.rekeyTold.map { $0.addingTimeInterval(86_400) } ?? now, longest: 86_400, now: now)
        <= now
    {
      events.append(.rekeyed(note))
      if mode == .normal, !job.restarted { job.state.rekeyTold = now }
    }
    guard !events.isEmpty, mode == .normal, !job.restarted else { return }
    let settings = config.settings.notify
    for event in events {
      if event.kind != .rekeyed { job.outcome.warnings.append("\(event.summary); \(event.advice)") }
      guard settings.health else { continue }
      job.state.pending.append(
        FeedState.PendingAction(
          key: "health:\(event.key)", source: .feed,
          payload: .notify(
            .init(
              summary:
                "watcher: feed '\(job.feed.name)' \(event.kind == .rekeyed ? "changed its item ids" : event.summary)",
              body: event.kind == .rekeyed ? event.summary : event.advice, urgency: .low, expire: settings.expire,
              icon: settings.icon)),
          title: "feed health: \(event.kind.rawValue)", link: job.state.movedTo, created: now))
    }
  }

  /// The parsed feed, or `nil` when there is nothing new to read (304) or the feed failed.
  private func load(
    _ feed: FeedConfig, response: Result<FetchResponse, FetchError>?, body: consuming [Data], state: inout FeedState,
    outcome: inout Poller.Outcome, now: Date, identityOnly: Bool
  ) -> ParsedFeed? {
    let interval =
      feed.isAuto(config.settings)
      ? Schedule.autoInterval(feed, state: state, settings: config.settings).0
      : feed.interval ?? config.settings.interval
    func fail(_ error: FeedLoadError, retryAfter: Int? = nil) -> ParsedFeed? {
      Poller.recordFailure(&state, interval: interval, retryAfter: retryAfter, now: now)
      state.lastError = "\(error)"
      outcome.failures.append(.load(error))
      return nil
    }
    guard let response else {
      // A file or a plain path.
      switch FeedLoader.read(
        FeedLocation.path(of: feed.url), options: parseOptions(feed, state: state, identityOnly: identityOnly))
      {
      case .success(let parsed):
        succeed(&state)
        return parsed
      case .failure(let error):
        return fail(error)
      }
    }
    switch response {
    case .failure(let error):
      return fail(.fetch(error))
    case .success(let http):
      if let moved = http.permanentRedirect { state.movedTo = moved }
      // The body the items were last read from, again: many servers ignore conditional GET and send 200
      // with the same bytes every time. Nothing in it can be new, so it costs what a 304 costs.
      var hash = StableHash.Fingerprint()
      for index in body.indices { body[index].withUnsafeBytes { hash.add($0) } }
      let fingerprint =
        (200..<300).contains(http.status) ? hash.finish(context: http.finalURL + "\n" + (http.charset ?? "")) : nil
      switch http.status {
      case 304:
        notModified(&state, outcome: &outcome, maxAge: http.maxAge, now: now)
        return nil
      case 200..<300 where state.initialized && fingerprint == state.bodyFingerprint:
        state.etag = http.etag
        state.lastModified = http.lastModified
        notModified(&state, outcome: &outcome, maxAge: http.maxAge, now: now)
        return nil
      case 200..<300:
        state.bodyFingerprint = nil
        let options = parseOptions(feed, state: state, identityOnly: identityOnly)
        if let by = FeedHealth.botCheck(status: http.status, body: body) {
          state.problem = "blocked:\(by)"
          return fail(.blocked(status: http.status, by: by))
        }
        let page = FeedDiscovery.looksLikeHTML(body.first ?? Data()) ? body.first : nil
        switch FeedLoader.parse(http, pieces: consume body, options: options) {
        case .success(let parsed):
          state.etag = http.etag
          state.lastModified = http.lastModified
          state.bodyFingerprint = fingerprint
          succeed(&state, maxAge: http.maxAge, now: now)
          return parsed
        case .failure(.parse) where page != nil:
          state.problem = nil
          return fail(.page(links: FeedLoader.feedLinks(in: page ?? Data(), response: http)))
        case .failure(let error):
          state.problem = nil
          return fail(error)
        }
      case let status:
        if let by = FeedHealth.botCheck(status: status, body: body) {
          state.problem = "blocked:\(by)"
          return fail(.blocked(status: status, by: by), retryAfter: http.retryAfter)
        }
        state.problem = status == 410 ? "gone" : nil
        let asks = status == 429 || status == 503 ? http.retryAfter : nil
        return fail(.status(status, retryAfter: asks), retryAfter: asks)
      }
    }
  }

  /// How to parse `feed`: with the keys its state knows, so that items seen before are read for their
  /// identity only (when identity is by id, the default; the other identities need the item's text).
  private func parseOptions(_ feed: FeedConfig, state: FeedState, identityOnly: Bool) -> FeedParser.Options {
    var options = FeedParser.options(config.settings)
    // A rule that acts on edits needs every item's title and text.
    guard Self.identity(feed, state: state) == .guid, !wantsUpdates(feed) else { return options }
    if identityOnly {
      options.identityOnly = true
    } else if state.initialized, !state.items.isEmpty {
      options.knownKeys = Set(state.items.keys)
    }
    return options
  }

  /// Whether every item of a `silent` read is read for its identity only (no text to tell an edit by).
  private func readsIdentityOnly(_ feed: FeedConfig, state: FeedState, silent: Bool) -> Bool {
    silent && Self.identity(feed, state: state) == .guid && !wantsUpdates(feed)
  }

  /// An unchanged feed: the items it held at the last success are still in it.
  private func notModified(_ state: inout FeedState, outcome: inout Poller.Outcome, maxAge: Int?, now: Date) {
    succeed(&state, maxAge: maxAge, now: now)
    outcome.notModified = true
    for key in state.items.keys where state.items[key]?.lastSeen == state.lastSuccessBefore {
      state.items[key]?.lastSeen = now
    }
  }

  private func succeed(_ state: inout FeedState, maxAge: Int? = nil, now: Date = WallClock.now()) {
    state.lastSuccessBefore = state.lastSuccess
    state.lastSuccess = now
    state.consecutiveFailures = 0
    state.failingSince = nil
    state.problem = nil
    state.lastError = nil
    state.retryAfterUntil = nil
    state.notBefore = maxAge.map { now.addingTimeInterval(Double(min($0, 86_400))) }
  }

  /// What the document says about when to poll it again: how often it posts (its items' dates, else when
  /// they were first seen), its `ttl`, `sy:updatePeriod` and skipped hours and days.
  private func learnHints(_ feed: Feed, state: inout FeedState, now: Date) {
    var times = feed.items.compactMap { $0.published ?? $0.updated }
    if times.count < 2 { times = state.items.values.map(\.firstSeen) }
    (state.hints.posts, state.hints.postsSince) = Schedule.recentPosts(times, now: now)
    state.hints.ttl = feed.refresh.ttl
    state.hints.updatePeriod = feed.refresh.updatePeriod
    state.hints.skipHours = Array(Set(feed.refresh.skipHours)).sorted()
    state.hints.skipDays = Array(Set(feed.refresh.skipDays)).sorted()
  }

  /// Diffs the parsed items against the state, applies first-poll and max_age, evaluates rules for the
  /// items to act on, and records pending actions.
  ///
  /// `fullText` is false when the items were read for their identity only: their digests would be of their
  /// titles alone, and tell an edit where there is none.
  private func apply(
    _ parsed: ParsedFeed, to job: inout FeedJob, engine: RuleEngine, mode: Poller.Mode, now: Date, fullText: Bool
  ) {
    let feed = job.feed
    var (state, outcome) = (job.state, job.outcome)
    defer { (job.state, job.outcome) = (state, outcome) }
    outcome.warnings += parsed.warnings.prefix(3).map { "\($0)" }
    var items = parsed.feed.items
    outcome.items = items.count
    // Items by their index, read in place: a copy of each (a dozen strings) would cost more than the rest.
    var fresh: [Int] = []
    let identity = Self.identity(feed, state: state)
    var novelty = Novelty(identity: stories)
    var rekeyed: [Novelty.Match] = []
    // Each item's digest is kept from its first sight, so that a rule acting on edits (on_update) added
    // later still sees an edit made before its first poll; known items are hashed only while one wants them.
    let updates = mode == .normal && state.initialized && wantsUpdates(feed)
    var updated: [Int] = []
    // Only items known before this document can come back under new keys (none on a first poll).
    let knewItems = !state.items.isEmpty
    /// One journal entry for an identity decision about one item, a bounded number a poll.
    func note(_ item: FeedItem, key: String, _ kind: JournalEntry.Outcome, _ detail: String) {
      guard outcome.identityNotes.count < Novelty.notesPerPoll else { return }
      outcome.identityNotes.append(
        JournalEntry(
          time: now, feed: feed.name, title: item.title, link: item.link, key: key, rule: nil, action: "identity",
          outcome: kind, detail: detail))
    }
    // Items the user asked to act on after all: new, whatever they resemble or however old they are.
    let asked = Set(state.announce)
    var announced: [Int] = []
    items.withUnsafeBufferPointer { buffer in
      for index in buffer.indices {
        let key = Poller.identity(buffer[index], identity)
        if !asked.isEmpty, asked.contains(key), state.items[key] == nil {
          announced.append(index)
          fresh.append(index)
          state.items[key] = novelty.record(buffer[index], key: key, now: now)
          state.announce.removeAll { $0 == key }
          continue
        }
        // The key is hashed once for a known item (the state's keys are URLs: each lookup hashes all of it).
        var slot = state.items.index(forKey: key)
        if slot == nil, knewItems, let earlier = FeedIdentity.keyBeforeCDATAFix(key),
          let known = state.items.removeValue(forKey: earlier)
        {
          // Recorded by a version that read a bare `&` in a CDATA section as `&amp;`: the same item.
          state.items[key] = known
          slot = state.items.index(forKey: key)
        }
        if let slot {
          state.items.values[slot].lastSeen = now
          // Recorded by a version that kept no stories: each item's link is learnt once, for when the ids change.
          if !state.storiesKept, let link = buffer[index].link {
            state.items.values[slot].story = novelty.story(link, key: key)
          }
          // Read in full (a rule acts on edits): an edit is an update, not a new item.
          if updates, buffer[index].title != nil || buffer[index].text != nil {
            let digest = StoryIdentity.digest(title: buffer[index].title, text: buffer[index].text)
            if let before = state.itemDigests[key], before != digest { updated.append(index) }
            state.itemDigests[key] = digest
          }
        } else if Self.isRepeat(buffer[index], key: key, of: buffer[..<index], in: state, identity: identity) {
          // The same entry twice in one document (or a copy of one known before): not a new one.
          outcome.repeats += 1
        } else if knewItems,
          let (old, match) = novelty.known(
            key: key, item: buffer[index], in: state.items,
            document: { buffer.map { (Poller.identity($0, identity), $0) } }),
          var known = state.items.removeValue(forKey: old)
        {
          known.lastSeen = now
          if let link = buffer[index].link { known.story = novelty.story(link, key: key) }
          state.items[key] = known
          if let digest = state.itemDigests.removeValue(forKey: old) { state.itemDigests[key] = digest }
          rekeyed.append(match)
          note(buffer[index], key: key, .rekeyed, "taken for the known item \(old) (\(match.words))")
        } else {
          if knewItems, let why = novelty.resemblance(key: key, item: buffer[index]) {
            note(buffer[index], key: key, .resembled, why)
          }
          fresh.append(index)
          state.items[key] = novelty.record(buffer[index], key: key, now: now)
          if fullText, buffer[index].title != nil || buffer[index].text != nil {
            state.itemDigests[key] = StoryIdentity.digest(
              title: buffer[index].title, text: buffer[index].text)
          }
        }
      }
    }
    state.storiesKept = true
    learnHints(parsed.feed, state: &state, now: now)
    noteRekeys(rekeyed, items: items.count, feed: feed, state: &state, outcome: &outcome, now: now)
    outcome.newItems = fresh.count
    // Forget items that left the feed longer ago than the retention.
    let horizon = now.addingTimeInterval(-Double(config.settings.retention))
    let expired = state.items.values.contains(where: { $0.lastSeen < horizon })
    if expired { state.items = state.items.filter { $0.value.lastSeen >= horizon } }
    if expired || state.itemDigests.count > state.items.count {
      state.itemDigests = state.itemDigests.filter { state.items[$0.key] != nil }
    }

    var act = fresh
    if mode == .catchUp || mode == .silentRestart {
      act = []
    } else if !state.initialized {
      let firstPoll = feed.firstPoll ?? config.settings.firstPoll
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
    if let maxAge = config.settings.maxAge {
      let oldest = now.addingTimeInterval(-Double(maxAge))
      let before = act.count
      act = act.filter { (items[$0].published ?? now) >= oldest }
      outcome.tooOld = before - act.count
    }
    if !announced.isEmpty { act = Array(Set(act).union(announced)).sorted() }
    outcome.actedOn = act.count
    if feed.wantsFullText(config.settings), !act.isEmpty {
      let scope = try? job.response?.get().scope
      addContent(to: &items, at: act, feed: feed, feedScope: scope ?? nil, outcome: &outcome)
    }
    // Edited items: only the rules that act on edits (on_update) see them.
    if !updated.isEmpty {
      outcome.updated = updated.map { items[$0].title ?? items[$0].key }
      let onUpdate = RuleEngine(rules: config.rules.filter(\.actions.onUpdate), settings: config.settings.notify)
      for item in updated.lazy.map({ items[$0] }) {
        let decision = onUpdate.evaluate(item, feed: feed, now: now, excerpts: false)
        record(decision, for: item, feed: feed, state: &state, outcome: &outcome, digests: &job.digestEntries, now: now)
      }
    }
    for item in act.lazy.map({ items[$0] }) {
      let decision = engine.evaluate(item, feed: feed, now: now, excerpts: false)
      record(decision, for: item, feed: feed, state: &state, outcome: &outcome, digests: &job.digestEntries, now: now)
      if decision.acts, let story = (item.link ?? (FeedLocation.isHTTP(item.key) ? item.key : nil)) {
        job.stories.append(
          (
            Poller.identity(item, identity), item.title,
            Story.bounded(novelty.identity.normalized(story) + "\n" + Story.folded(item.title))
          ))
      }
    }
  }

  /// Whether an unknown `key` is `BASE#N`, given to a repeat of an earlier entry of this document with the
  /// same title, or of an entry known before (checked only for keys the state does not know).
  static func isRepeat(
    _ item: FeedItem, key: String, of earlier: some Collection<FeedItem>, in state: FeedState,
    identity: FeedConfig.Identity
  ) -> Bool {
    guard let base = Novelty.repeatBase(key) else { return false }
    if let first = earlier.first(where: { Poller.identity($0, identity) == base }) {
      // A known first copy was read for its identity only (no title): a copy of a known entry.
      return first.title == item.title || first.title == nil && state.items[base] != nil
    }
    return state.items[base] != nil
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

  /// Says once that known items came back under new keys, and switches a feed whose ids change on every
  /// fetch (while its links stay) to link identity: more than 5% of its items, two fetches in a row.
  private func noteRekeys(
    _ rekeyed: [Novelty.Match], items: Int, feed: FeedConfig, state: inout FeedState, outcome: inout Poller.Outcome,
    now: Date
  ) {
    outcome.rekeyed = rekeyed.count
    let byLink = rekeyed.filter { $0 == .link }.count
    if byLink > 0, Double(byLink) > Double(items) * 0.05 {
      state.churn += 1
    } else {
      state.churn = 0
    }
    guard let first = rekeyed.first else { return }
    let why: String
    switch first {
    case .spelling(let difference): why = difference
    case .link: why = "new ids, same links"
    case .titleAndDate: why = "new ids, same titles and dates"
    }
    let note =
      "changed its item ids (\(why)): \(rekeyed.count) item\(rekeyed.count == 1 ? "" : "s") re-keyed, none announced"
    outcome.rekeyNote = note
    state.lastRekey = "\(ISODate.format(now)): \(note)"
    if state.churn >= 2, !feed.identityChosen, state.autoIdentity == nil {
      state.autoIdentity = "link"
      state.autoIdentityReason =
        "its ids changed on \(state.churn) fetches in a row while its links stayed (\(byLink) of \(items) items, "
        + "more than 5%); switched to link identity at \(ISODate.format(now))"
      outcome.rekeyNote = note + "; its ids change on every fetch, so its items are now told apart by their links"
    }
  }

  /// Turns the rules' decision for one item into its pending actions and digest entries, and counts it.
  private func record(
    _ decision: Decision, for item: FeedItem, feed: FeedConfig, state: inout FeedState, outcome: inout Poller.Outcome,
    digests: inout [(rule: String, entry: Digest.Entry)], now: Date
  ) {
    let key = Poller.identity(item, Self.identity(feed, state: state))
    var decision = decision
    // A snoozed feed ("Snooze feed" on a notification, `watcher snooze`): its items notify nobody for now.
    if snoozed.contains(feed.name), !decision.notifications.isEmpty {
      outcome.snoozed += 1
      decision.notifications = []
    }
    // What the actions keep of the item: every field within its stored size, whatever the feed sent.
    let item = item.stored
    // The picture only a notification shows (or Apprise attaches): looked for in the HTML only then.
    let image =
      decision.notifications.isEmpty && decision.apprise.isEmpty
      ? nil
      : item.image.flatMap { FeedLocation.isHTTP($0) ? $0 : nil }
        ?? item.html.flatMap { FeedDiscovery.firstImage(in: $0, base: item.link ?? feed.url) }
    // The document a hook gets on stdin and a webhook in its body.
    func document(rule: String) -> String {
      FeedJSONWriter.itemJSON(
        item,
        extra: [
          ("feed", .string(feed.name)), ("feed_url", .string(URLSecrets.redacted(feed.url))), ("rule", .string(rule)),
          ("tags", .array(decision.tags.map { .string($0) })),
        ])
    }
    for notification in decision.notifications {
      var shown = FeedState.PendingAction.Notification(
        summary: notification.summary, body: notification.body, urgency: notification.urgency,
        expire: notification.expire, icon: notification.icon, image: image)
      // The rule's buttons, and the document their hooks get when one is clicked.
      if let rule = notification.rule, let buttons = buttonsByRule[rule], !buttons.isEmpty {
        shown.buttons = buttons.map(\.label)
        shown.item = document(rule: rule)
      }
      state.pending.append(
        FeedState.PendingAction(
          key: key, source: notification.rule.map { .rule($0) } ?? .feed, payload: .notify(shown),
          title: item.title, link: item.link, created: now))
    }
    for hook in decision.hooks {
      let json = document(rule: hook.rule)
      // The variables its document gives, kept in memory for its run in this pass (a retry derives them).
      var payload = FeedState.PendingAction.Hook(
        command: hook.command, arguments: hook.arguments, timeout: hook.timeout, item: json)
      payload.variables = Dictionary(
        HookEnvironment.variables(item: item, feed: feed, rule: hook.rule, tags: decision.tags),
        uniquingKeysWith: { first, _ in first })
      state.pending.append(
        FeedState.PendingAction(key: key, source: hook.source, payload: .hook(payload), title: item.title, created: now)
      )
    }
    for webhook in decision.webhooks {
      let json = document(rule: webhook.rule)
      let target = webhook.action
      state.pending.append(
        FeedState.PendingAction(
          key: key, source: .rule(webhook.rule),
          payload: .webhook(
            .init(
              url: target.url, secretFile: target.secretFile, secretEnv: target.secretEnv, timeout: target.timeout,
              item: json)),
          title: item.title, link: item.link, created: now))
    }
    for apprise in decision.apprise {
      let message = apprise.message
      state.pending.append(
        FeedState.PendingAction(
          key: key, source: apprise.source,
          payload: .apprise(.init(title: message.summary, body: message.body, urgency: message.urgency, attach: image)),
          title: item.title, link: item.link, created: now))
    }
    outcome.actions +=
      decision.notifications.count + decision.hooks.count + decision.webhooks.count + decision.apprise.count
    outcome.apprised += decision.apprise.isEmpty ? 0 : 1
    outcome.webhooks += decision.webhooks.isEmpty ? 0 : 1
    if decision.muted {
      outcome.muted += 1
    } else if decision.notifications.isEmpty && decision.hooks.isEmpty && decision.webhooks.isEmpty
      && decision.apprise.isEmpty && decision.digests.isEmpty
    {
      outcome.untouched += 1
    }
    if !decision.notifications.isEmpty { outcome.notified += 1 }
    if !decision.hooks.isEmpty { outcome.hooked += 1 }
    if !decision.digests.isEmpty {
      let json = FeedJSONWriter.itemJSON(
        item, extra: [("feed", .string(feed.name)), ("feed_url", .string(URLSecrets.redacted(feed.url)))])
      for rule in decision.digests {
        outcome.digested.append((rule, item.title ?? key))
        digests.append(
          (
            rule,
            Digest.Entry(feed: feed.name, key: key, title: item.title, link: item.link, item: json, collected: now)
          ))
      }
    }
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
