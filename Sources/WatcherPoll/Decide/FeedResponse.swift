// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherState
import WatcherSupport

/// The first step of deciding: what the response (or the file) holds, read into a parsed feed, with the
/// feed's poll times, validators and failures kept in its state.
extension FeedDecider {
  /// The parsed feed, or `nil` when there is nothing new to read (304) or the feed failed.
  func load(
    _ feed: FeedConfig, response: Result<FetchResponse, FetchError>?, body: consuming [Data], state: inout FeedState,
    outcome: inout Poller.Outcome, now: Date, identityOnly: Bool
  ) -> ParsedFeed? {
    let interval =
      feed.isAuto(config.settings)
      ? Schedule.autoInterval(feed, state: state, settings: config.settings).0
      : feed.interval ?? config.settings.interval
    func fail(_ error: FeedLoadError, retryAfter: Int? = nil) -> ParsedFeed? {
      state.recordFailure(interval: interval, retryAfter: retryAfter, now: now)
      state.lastError = "\(error)"
      outcome.failures.append(.load(error))
      return nil
    }
    guard let response else {
      // A file or a plain path.
      let path = FeedLocation.path(of: feed.url)
      let options = parseOptions(feed, state: state, identityOnly: identityOnly)
      let read =
        feed.page.map { FeedLoader.page(path: path, options: options, page: $0, remembered: state.pageSelector) }
        ?? FeedLoader.read(path, options: options)
      if case .success = read { succeed(&state) }
      if feed.page != nil { notePage(read, state: &state) }
      switch read {
      case .success(let parsed): return parsed
      case .failure(let error): return fail(error)
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
      for index in body.indices { body[index].withUnsafeBytes { hash.add($0.bytes) } }
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
        let read: Result<ParsedFeed, FeedLoadError>
        var page: Data?
        if let pageFeed = feed.page {
          read = FeedLoader.page(
            body.reduce(into: [UInt8]()) { $0 += $1 }, url: http.finalURL, charset: http.charset, page: pageFeed,
            remembered: state.pageSelector)
        } else {
          // A page feed's body is a page: whether it is a challenge is the page reader's to say (sites load
          // their protection's script on every page).
          if let by = FeedHealth.botCheck(status: http.status, body: body) {
            state.problem = "blocked:\(by)"
            return fail(.blocked(status: http.status, by: by))
          }
          page = FeedDiscovery.looksLikeHTML(body.first ?? Data()) ? body.first : nil
          read = FeedLoader.parse(http, pieces: consume body, options: options)
        }
        switch read {
        case .success(let parsed):
          state.etag = http.etag
          state.lastModified = http.lastModified
          state.bodyFingerprint = fingerprint
          succeed(&state, maxAge: http.maxAge, now: now)
          if feed.page != nil { notePage(read, state: &state) }
          return parsed
        case .failure(.parse) where page != nil:
          state.problem = nil
          return fail(.page(links: FeedLoader.feedLinks(in: page ?? Data(), response: http)))
        case .failure(let error):
          state.problem = nil
          if feed.page != nil { notePage(read, state: &state) }
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

  /// What a page feed's read says of its list's health, in the state (a list gone, turned into a bot
  /// challenge, or shrunk to a fifth of what it was is a problem, told once); after `succeed` or `fail`.
  fileprivate func notePage(_ read: Result<ParsedFeed, FeedLoadError>, state: inout FeedState) {
    switch read {
    case .failure(.blocked(_, let by)):
      state.problem = "blocked:\(by)"
    case .failure(.noList(let reason)):
      state.problem = "page:no list of posts on the page any more: \(reason)"
    case .failure:
      break
    case .success(let parsed):
      let rows = parsed.feed.items.count
      let before = state.pageRows ?? 0
      state.pageRows = rows
      state.pageSelector = parsed.pageSelector
      if before >= 5, rows * 5 < before {
        state.problem = "page:the list shrank from \(before) to \(rows) rows"
        state.pageRows = before
      }
    }
  }

  /// How to parse `feed`: with the keys its state knows, so that items seen before are read for their
  /// identity only (when identity is by id, the default; the other identities need the item's text).
  fileprivate func parseOptions(_ feed: FeedConfig, state: FeedState, identityOnly: Bool) -> FeedParser.Options {
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
  func readsIdentityOnly(_ feed: FeedConfig, state: FeedState, silent: Bool) -> Bool {
    silent && Self.identity(feed, state: state) == .guid && !wantsUpdates(feed)
  }

  /// An unchanged feed: the items it held at the last success are still in it.
  fileprivate func notModified(_ state: inout FeedState, outcome: inout Poller.Outcome, maxAge: Int?, now: Date) {
    succeed(&state, maxAge: maxAge, now: now)
    outcome.notModified = true
    for key in state.items.keys where state.items[key]?.lastSeen == state.lastSuccessBefore {
      state.items[key]?.lastSeen = now
    }
  }

  fileprivate func succeed(_ state: inout FeedState, maxAge: Int? = nil, now: Date = WallClock.now()) {
    state.lastSuccessBefore = state.lastSuccess
    state.lastSuccess = now
    state.consecutiveFailures = 0
    state.failingSince = nil
    state.problem = nil
    state.lastError = nil
    state.retryAfterUntil = nil
    state.notBefore = maxAge.map { now.addingTimeInterval(Double(min($0, 86_400))) }
  }
}

extension FeedState {
  /// Counts a failure and sets when to try again.
  ///
  /// Exponential backoff from the feed's interval, capped at a day; a server's Retry-After wins when longer
  /// (up to a week). Saturating: no interval, count or Retry-After, whatever a state file or a server says,
  /// can overflow.
  package mutating func recordFailure(interval: Int, retryAfter: Int?, now: Date) {
    consecutiveFailures = min(max(consecutiveFailures, 0), 1_000_000) + 1
    if failingSince == nil { failingSince = now }
    let (scaled, overflow) = max(interval, 1).multipliedReportingOverflow(by: 1 << min(consecutiveFailures - 1, 16))
    let backoff = overflow ? 86_400 : min(86_400, scaled)
    let held = retryAfter.map { min(max($0, 0), Poller.maxRetryAfter) }
    notBefore = now.addingTimeInterval(Double(max(backoff, held ?? 0)))
    retryAfterUntil = held.map { now.addingTimeInterval(Double($0)) }
  }
}
