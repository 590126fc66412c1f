// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// One rule: an optional scope, a condition, and actions.
public struct Rule: Sendable {
  /// Whether it applies to `feed` (its scope names the feed or one of its tags, or is empty).
  public func applies(to feed: FeedConfig) -> Bool {
    scope.isEmpty || scope.contains(feed.name) || feed.tags.contains(where: scope.contains)
  }

  /// Its name (default `rule N`), used in decisions, logs and `WATCHER_RULE`.
  public var name: String
  /// Feed names or feed tags it applies to; empty for every feed.
  public var scope: [String]
  /// What an item must satisfy.
  public var condition: Condition
  /// What happens to a matching item.
  public var actions: RuleActions
  /// Where the rule starts in the file.
  public var mark: Mark?
  /// A spread trigger (`match: { story: { feeds: 3, within: 6h } }`): the rule acts once for a story, on the
  /// item that brings it to that many feeds within that time; nil for a rule on each item.
  public var spread: StorySpread?

  /// Creates a rule.
  public init(name: String, scope: [String] = [], condition: Condition, actions: RuleActions, mark: Mark? = nil) {
    self.name = name
    self.scope = scope
    self.condition = condition
    self.actions = actions
    self.mark = mark
  }
}

/// A story's spread a rule waits for: `feeds` distinct feeds within `within` seconds.
public struct StorySpread: Sendable, Equatable {
  public var feeds: Int
  public var within: Int

  public init(feeds: Int, within: Int) {
    self.feeds = feeds
    self.within = within
  }
}

/// What a matching rule does.
public struct RuleActions: Sendable {
  /// Tags to add.
  public var tags: [String] = []
  /// Mute the item: no notification and no hook, whatever else matched.
  public var mute = false
  /// Show a notification.
  public var notify: NotifyAction?
  /// Run a hook.
  public var hook: HookAction?
  /// Look at no later rule for this item.
  public var stop = false
  /// Collect the matches and show them as one notification on a schedule.
  public var digest: DigestAction?
  /// A hook that gets a digest's items as a JSON array on stdin when it goes out.
  public var digestHook: HookAction?
  /// Also act on an item already seen whose title or text changed (`on_update: true`: release notes).
  public var onUpdate = false
  /// POST the item's document to a URL (`webhook:`).
  public var webhook: WebhookAction?
  /// Send the item through Apprise (`apprise:`): phones, chats, mail.
  public var apprise: AppriseAction?
  /// Buttons on the rule's notifications (`buttons:`), each running its hook for the item when clicked.
  public var buttons: [NotifyButton] = []
  /// One hook, webhook or Apprise message per story across feeds (`dedupe: story`), not one per item.
  public var oncePerStory = false

  /// Creates actions.
  public init(
    tags: [String] = [], mute: Bool = false, notify: NotifyAction? = nil, hook: HookAction? = nil, stop: Bool = false
  ) {
    self.tags = tags
    self.mute = mute
    self.notify = notify
    self.hook = hook
    self.stop = stop
  }

  /// Whether there is anything to do.
  package var isEmpty: Bool {
    tags.isEmpty && !mute && notify == nil && hook == nil && !stop && digest == nil && webhook == nil
      && apprise == nil
  }
}

/// A notification a rule asks for; unset parts come from the feed or the settings.
public struct NotifyAction: Sendable, Equatable {
  /// Summary template (default `{feed}: {title}`).
  public var summary: Template?
  /// Body template (default: the first 200 characters of the text).
  public var body: Template?
  /// Urgency.
  public var urgency: Urgency?
  /// Expire time, seconds.
  public var expire: Int?
  /// Icon.
  public var icon: String?

  /// Creates a notification action.
  public init(
    summary: Template? = nil, body: Template? = nil, urgency: Urgency? = nil, expire: Int? = nil, icon: String? = nil
  ) {
    self.summary = summary
    self.body = body
    self.urgency = urgency
    self.expire = expire
    self.icon = icon
  }
}

/// A button a rule adds to its notifications: its label, and the hook run for the item when it is clicked
/// (pending first, retried like any hook).
public struct NotifyButton: Sendable, Equatable {
  public var label: String
  public var hook: HookAction

  public init(label: String, hook: HookAction) {
    self.label = label
    self.hook = hook
  }
}

/// A hook a rule runs: `/bin/sh -c COMMAND`, or a program without a shell (`run:`), with the item in the
/// environment and on stdin.
public struct HookAction: Sendable, Equatable {
  /// The command exactly as written (for `run:`, the program and arguments, for messages).
  public var command: String
  /// `run: [PROGRAM, ARG...]`: the program and its arguments, each a template whose `{field}`s become the
  /// item's values as whole arguments; `nil` for a shell command.
  public var run: [Template]?
  /// Timeout, seconds (`nil`: the default 30 s).
  public var timeout: Int?
  /// Where the command is written (for `watcher check`'s messages).
  public var mark: Mark?

  /// The variables a hook gets; any other `$WATCHER_…` in a command is a mistake.
  public static let variableNames = [
    "WATCHER_FEED", "WATCHER_FEED_URL", "WATCHER_TITLE", "WATCHER_LINK", "WATCHER_ID", "WATCHER_AUTHOR",
    "WATCHER_PUBLISHED", "WATCHER_CATEGORIES", "WATCHER_TAGS", "WATCHER_TEXT", "WATCHER_CONTENT",
    "WATCHER_RULE",
  ]

  /// Creates a hook action.
  public init(command: String, run: [Template]? = nil, timeout: Int? = nil, mark: Mark? = nil) {
    self.command = command
    self.run = run
    self.timeout = timeout
    self.mark = mark
  }

  public static func == (a: HookAction, b: HookAction) -> Bool {
    a.command == b.command && a.run == b.run && a.timeout == b.timeout
  }
}

/// `webhook: { url: https://…, secret: { file: ~/.config/watcher/hook.secret }, timeout: 10s }`: the item's
/// document POSTed to a URL, signed `X-Watcher-Signature: sha256=<HMAC-SHA256 of the body>` when there is a
/// secret (read from the file or the environment variable when it is sent, never stored or printed).
public struct WebhookAction: Sendable, Equatable {
  public var url: String
  public var secretFile: String?
  public var secretEnv: String?
  /// Seconds for the whole request (default 10).
  public var timeout: Int?
  /// Where the config holds it (for `check`'s notes).
  public var mark: Mark?

  public init(
    url: String, secretFile: String? = nil, secretEnv: String? = nil, timeout: Int? = nil, mark: Mark? = nil
  ) {
    self.url = url
    self.secretFile = secretFile
    self.secretEnv = secretEnv
    self.timeout = timeout
    self.mark = mark
  }

  public static func == (a: Self, b: Self) -> Bool {
    a.url == b.url && a.secretFile == b.secretFile && a.secretEnv == b.secretEnv && a.timeout == b.timeout
  }
}

/// `apprise: URL`, a list of URLs, or `{ urls: [...], file: PATH, title: "{title}", body: "{link}", urgency: … }`:
/// the item sent through the `apprise` command (ntfy, Gotify, Telegram, Matrix, Discord, mail, …).
///
/// Its URLs carry tokens: a `file` of them (Apprise's own config format, readable only by you) keeps them
/// out of the config; they are never stored in the state or printed.
public struct AppriseAction: Sendable, Equatable {
  public var urls: [String]
  public var file: String?
  /// Title and body templates, as a notification's (default: `{feed}: {title}`, the text's start).
  public var message: NotifyAction
  /// Where the config holds it (for `check`'s notes).
  public var mark: Mark?

  public init(urls: [String], file: String? = nil, message: NotifyAction = NotifyAction(), mark: Mark? = nil) {
    self.urls = urls
    self.file = file
    self.message = message
    self.mark = mark
  }

  public static func == (a: Self, b: Self) -> Bool { a.urls == b.urls && a.file == b.file && a.message == b.message }
}

/// `digest: {every: 1d, at: "08:00"}`: a rule's matches collected and shown together on a schedule.
public struct DigestAction: Sendable, Equatable {
  /// How often it goes out, seconds.
  public var every: Int
  /// The local time of day it goes out, minutes after midnight (`nil`: `every` after the first item).
  public var at: Int?

  public init(every: Int, at: Int? = nil) {
    self.every = every
    self.at = at
  }

  /// The schedule in a few words, kept with a digest so that a changed `every` or `at` re-times it.
  public var timing: String { "every \(every)s" + (at.map { " at \($0 / 60):\($0 % 60)" } ?? "") }

  /// When a digest whose first item came at `now` goes out: the next `at` (then every `every`) after
  /// `now`, or `now + every`.
  public func due(after now: Date, calendar: some LocalTime = .current) -> Date {
    guard let at else { return now.addingTimeInterval(Double(every)) }
    // Local clock times come from the time zone, never from adding seconds to midnight: on the day clocks
    // change, 08:00 is not 8 hours after midnight.
    func local(_ minutes: Int, daysOn days: Int) -> Date {
      calendar.date(hour: minutes / 60, minute: minutes % 60, daysAfter: days, of: now)
    }
    // More than once a day: `at`, then every `every` through the day; else `at` on the next day it is ahead.
    if every < 86_400 {
      for minutes in stride(from: at, to: 24 * 60, by: max(1, every / 60)) where local(minutes, daysOn: 0) > now {
        return local(minutes, daysOn: 0)
      }
      return local(at, daysOn: 1)
    }
    let today = local(at, daysOn: 0)
    return today > now ? today : local(at, daysOn: 1)
  }

}
