// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherFeed
import WatcherState
import WatcherSupport

/// What is wrong with a feed that a person should hear about, once: it has failed for a day, moved
/// permanently, is answered by a bot check, is gone (410), or changed its item ids wholesale.
///
/// A feed is never disabled for any of these: it backs off (at most a day between tries) and recovers on
/// its own when the site does. `status` shows the problem while it lasts; a low-urgency notification tells
/// it once per change (`settings.notify.health`).
public struct FeedHealth: Sendable, Equatable {
  public enum Kind: String, Sendable {
    case failing, moved, blocked, gone, rekeyed, page
  }

  public var kind: Kind
  /// What it is, in a few words ("answered by a bot check (Cloudflare) since 08:12").
  public var summary: String
  /// What to try.
  public var advice: String
  /// What makes it a change worth telling: its kind and detail.
  public var key: String

  /// How long a feed fails before it is told.
  public static let failingFor: TimeInterval = 86_400

  /// The problem `state` shows at `now`, the most telling first; nil when it is healthy.
  public static func current(_ state: FeedState, now: Date) -> FeedHealth? {
    if let problem = state.problem, problem.hasPrefix("blocked:") {
      let by = String(problem.dropFirst("blocked:".count))
      return FeedHealth(
        kind: .blocked, summary: "answered by a bot check (\(by)) instead of the feed",
        advice:
          "watcher cannot pass it: ask the site to exempt its feed, look for another feed URL on the site "
          + "(watcher add PAGE), or give the feed a 'user_agent', 'headers' or a 'cookies' file from your browser",
        key: "blocked:\(by)")
    }
    if let problem = state.problem, problem.hasPrefix("page:") {
      return FeedHealth(
        kind: .page, summary: String(problem.dropFirst("page:".count)),
        advice:
          "'watcher parse URL' shows what the page holds now; if the site changed its layout, pin the list with "
          + "'items: CSS selector' on the feed ('watcher add URL --select' finds one)",
        key: problem)
    }
    if state.problem == "gone" {
      return FeedHealth(
        kind: .gone, summary: "gone: the server answers 410 (the feed was removed)",
        advice: "remove it (watcher remove NAME) or find where it went (watcher add SITE)", key: "gone")
    }
    // A state written before failures were dated: failing at least since its last success.
    if state.consecutiveFailures > 0, let since = state.failingSince ?? state.lastSuccess,
      now.timeIntervalSince(since) >= failingFor
    {
      return FeedHealth(
        kind: .failing,
        summary:
          "failing since \(ISODate.format(since)) (\(state.consecutiveFailures) tries): \(state.lastError ?? "?")",
        advice: "watcher keeps trying, at most a day apart; 'watcher poll --feed NAME -v' shows the latest answer",
        key: "failing")
    }
    if let moved = state.movedTo {
      return FeedHealth(
        kind: .moved, summary: "moved permanently to \(moved)", advice: "change its url in the config",
        key: "moved:\(moved)")
    }
    return nil
  }

  /// The item ids changed wholesale (watcher matched the items by their links: nothing was repeated).
  public static func rekeyed(_ note: String) -> FeedHealth {
    FeedHealth(
      kind: .rekeyed, summary: note,
      advice: "nothing was announced twice; 'watcher status' shows it", key: "rekeyed:\(StableHash.hex(of: note))")
  }

  /// Which bot-check service a failed answer's HTML comes from, if it is one.
  ///
  /// The body's first 64 KB are read. Recognised: Cloudflare, DDoS-Guard, Sucuri, Imperva, Akamai, PerimeterX, DataDome, AWS WAF,
  /// Vercel, Anubis, Reddit's block page, and any other HTML page asking for a CAPTCHA.
  public static func botCheck(status: Int, body: [Data]) -> String? {
    guard [200, 202, 403, 429, 503].contains(status) else { return nil }
    var head = Data()
    for piece in body where head.count < 65_536 { head.append(piece.prefix(65_536 - head.count)) }
    let text = LowercasedASCII(head)
    guard text.contains("<html") || text.contains("<!doctype html") || text.contains("<head") else { return nil }
    if let service = BotCheck.service(in: text) { return service }
    if status != 200, text.contains("captcha") { return "a CAPTCHA page" }
    return nil
  }
}
