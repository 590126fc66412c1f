// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Dispatch
import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFetch
import WatcherState
import WatcherSupport

/// Shows notifications and runs hooks for real (docs/rules.md, "Notifications" and "Hooks").
///
/// Notifications: more than `max_per_poll` from one feed in one pass become one summary notification; ones
/// that cannot be shown are kept (the poller stores them) and shown later, several as one "while you were
/// away" summary. Hooks: at most
/// `hook_concurrency` at once; a failed or timed-out hook is retried on later polls until `hook_retries`
/// attempts, then dropped and reported.
public struct DeliveringActionRunner: ActionRunner {
  package let notifier: any Notifier
  package let settings: Settings
  package let environment: [String: String]
  package let log: @Sendable (String) -> Void
  package let stopping: Cancellation?
  package let killing: Cancellation?
  /// Downloads and caches the items' pictures (`nil`: notifications go out without them).
  package let images: NotificationImages?
  /// Whether the picture cache's problem was said (once a process).
  private let cacheRefused = Locked(false)

  /// Creates a runner; hooks inherit `environment` plus their `WATCHER_*` variables.
  ///
  /// Once `stopping` is set no hook is started (the ones not started stay pending); once `killing` is set,
  /// running hooks and everything they started are killed (they stay pending too). Watcher sets the first
  /// on SIGINT/SIGTERM and the second a short grace later.
  public init(
    notifier: any Notifier, settings: Settings, environment: [String: String],
    stopping: Cancellation? = nil, killing: Cancellation? = nil, imageTransport: (any HTTPTransport)? = nil,
    log: @escaping @Sendable (String) -> Void
  ) {
    self.images = imageTransport.map {
      NotificationImages(directory: NotificationImages.directory(environment), transport: $0)
    }
    self.notifier = notifier
    self.settings = settings
    self.environment = environment
    self.stopping = stopping
    self.killing = killing
    self.log = log
  }

  public func run(_ actions: [FeedState.PendingAction], feed: FeedConfig) -> [ActionOutcome] {
    run(batches: [PendingBatch(actions: actions, feed: feed)])[0]
  }

  /// Shows each feed's notifications (or its one summary), then runs the hooks of every feed together, at
  /// most `hook_concurrency` at once: a feed with five new items does not leave the slots idle while the
  /// next feed is read.
  public func run(batches: [PendingBatch]) -> [[ActionOutcome]] {
    var outcomes = batches.map { [ActionOutcome](repeating: .done, count: $0.actions.count) }
    for (number, batch) in batches.enumerated() {
      let notifications = batch.actions.indices.filter { batch.actions[$0].kind == .notify }
      guard !notifications.isEmpty else { continue }
      let result = notify(notifications.map { batch.actions[$0] }, feed: batch.feed)
      for index in notifications { outcomes[number][index] = result }
    }
    // Hooks and webhooks, of every feed together, at most hook_concurrency at once.
    let hooks = batches.enumerated().flatMap { number, batch in
      batch.actions.indices.filter { batch.actions[$0].kind != .notify }.map { (number, $0) }
    }
    let results = Locked<[Int: ActionOutcome]>([:])
    BlockingPool.run(hooks.count, threads: settings.hookConcurrency) { position in
      let (number, index) = hooks[position]
      let batch = batches[number]
      let action = batch.actions[index]
      let outcome: ActionOutcome
      if stopping?.isCancelled == true {
        outcome = .notRun
      } else {
        switch action.payload {
        case .webhook(let webhook): outcome = post(webhook, of: action, feed: batch.feed)
        case .apprise(let apprise): outcome = send(apprise, of: action, feed: batch.feed)
        case .hook(let hook): outcome = run(hook, of: action, feed: batch.feed)
        // Shown above, with the rest of its feed's notifications.
        case .notify: outcome = .done
        }
      }
      results.withLock { $0[position] = outcome }
    }
    for (position, outcome) in results.withLock({ $0 }) { outcomes[hooks[position].0][hooks[position].1] = outcome }
    return outcomes
  }

  /// Sends a message through Apprise's own Python library, as JSON on its stdin.
  ///
  /// The library is started with the interpreter its `apprise` command names, and everything (the URLs and
  /// their tokens, the title, the body, the pictures) is on its stdin. Nothing of the item or the URLs is on a command line, where every local user could read it,
  /// and none of it is code (`AppriseProgram`).
  private func send(_ apprise: FeedState.PendingAction.Apprise, of action: FeedState.PendingAction, feed: FeedConfig)
    -> ActionOutcome
  {
    var variables = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
    variables["PATH"] = variables["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    guard let program = HookProgram.resolve("apprise", environment: variables) else {
      return .failed(.other("the apprise command is not installed (Debian and Ubuntu: sudo apt install apprise)"))
    }
    guard let python = AppriseProgram.interpreter(of: program, environment: variables) else {
      return .failed(.other("\(program) is not the Apprise command (no #! line naming Python)"))
    }
    if let file = apprise.file,
      let problem = FileSafety.trustedFileProblem(HomePath.expand(file, environment: variables))
    {
      return .failed(.other("the Apprise URL file is not safe to use: \(problem)"))
    }
    var request: [(String, JSONOutput)] = [
      ("type", .string(Self.appriseType(apprise.urgency))), ("title", .string(apprise.title)),
      ("body", .string(apprise.body.isEmpty ? apprise.title : apprise.body)),
      ("urls", .array(apprise.urls.map { .string($0) })),
      ("configs", .array(apprise.file.map { [.string(HomePath.expand($0, environment: variables))] } ?? [])),
    ]
    // The picture is fetched here, by the rules pictures keep to (never from an address more private than
    // the feed's), and attached as a file: Apprise is never handed a URL to fetch itself.
    let attach = apprise.attach.flatMap { images?.paths(for: [$0], feedURL: feed.url).first ?? nil }
    request.append(("attach", .array(attach.map { [.string($0)] } ?? [])))
    let started = ContinuousClock.now
    let result = HookRunner.run(
      program: python, arguments: [python, "-I", "-c", AppriseProgram.script], environment: variables,
      input: Data(JSONOutput.object(request).text.utf8), timeout: 60, stop: killing)
    if result.succeeded { return .done }
    if result.cancelled { return .interrupted(seconds: Int((ContinuousClock.now - started).components.seconds)) }
    let failure = ActionFailure.hook(result, timeout: 60)
    log(
      "apprise of rule '\(action.label(feed: feed.name) ?? "")' for '\(action.key)' in feed '\(feed.name)' failed: \(failure)"
    )
    return .failed(failure)
  }

  /// Apprise's notification type for an urgency.
  static func appriseType(_ urgency: Urgency) -> String {
    switch urgency {
    case .low, .normal: return "info"
    case .critical: return "warning"
    }
  }

  /// POSTs a webhook's document, signed with its secret when it has one; a 2xx answer is done.
  private func post(_ webhook: FeedState.PendingAction.Webhook, of action: FeedState.PendingAction, feed: FeedConfig)
    -> ActionOutcome
  {
    var secret: String?
    if let name = webhook.secretEnv {
      guard let value = environment[name] ?? ProcessInfo.processInfo.environment[name], !value.isEmpty else {
        return .failed(.webhook(status: 0, detail: "the secret's variable \(name) is not set"))
      }
      secret = value
    } else if let file = webhook.secretFile {
      if let problem = FileSafety.trustedFileProblem(HomePath.expand(file)) {
        return .failed(.webhook(status: 0, detail: "the secret file is not safe to use: \(problem)"))
      }
      guard let text = try? String(contentsOfFile: HomePath.expand(file), encoding: .utf8) else {
        return .failed(.webhook(status: 0, detail: "cannot read the secret file \(file)"))
      }
      secret = text.trimming()
    }
    let started = ContinuousClock.now
    let answer = WebhookPoster.post(
      Array((webhook.item ?? "{}").utf8), to: webhook.url, secret: secret, timeout: webhook.timeout ?? 10,
      userAgent: "watcher", stop: killing)
    if answer.succeeded { return .done }
    // Ended because watcher is stopping: it stays pending as it was, as a hook does.
    if answer.cancelled { return .interrupted(seconds: Int((ContinuousClock.now - started).components.seconds)) }
    let failure = ActionFailure.webhook(status: answer.status, detail: answer.detail ?? "")
    log(
      "webhook of rule '\(action.label(feed: feed.name) ?? "")' for '\(action.key)' in feed '\(feed.name)' failed: \(failure)"
    )
    return .failed(failure)
  }

  /// Shows the notifications (or one summary of them); every action gets the same outcome.
  private func notify(_ actions: [FeedState.PendingAction], feed: FeedConfig) -> ActionOutcome {
    var batch: [DesktopNotification]
    let shown = actions.map(DesktopNotification.init)
    if actions.count > settings.notify.maxPerPoll {
      // One summary that names the feed once (item summaries often start with it) and is as urgent as the
      // most urgent item it stands for.
      let titles = shown.map { Self.withoutFeed($0.summary, feed.name) }
      let first = titles.prefix(3).joined(separator: ", ")
      batch = [
        DesktopNotification(
          summary: "\(actions.count) new items in \(feed.name): \(first)\(titles.count > 3 ? ", …" : "")",
          body: titles.prefix(20).joined(separator: "\n"),
          urgency: shown.map(\.urgency).max() ?? settings.notify.urgency,
          expire: settings.notify.expire, icon: settings.notify.icon)
      ]
      batch[0].feed = feed.name
      batch[0].links = actions.compactMap(\.link)
    } else {
      // Each item's picture, when it has one and it can be had quickly; otherwise the notification goes
      // out without it.
      let pictures =
        images?.paths(for: shown.map(\.image), feedURL: feed.url) ?? actions.map { _ in nil }
      if shown.contains(where: { $0.image != nil }), let problem = images?.problem,
        cacheRefused.withLock({ said in
          defer { said = true }
          return !said
        })
      {
        log("warning: notifications go out without their pictures: the picture cache \(problem)")
      }
      batch = zip(actions, pictures).map { action, picture in
        var notification = DesktopNotification(action)
        notification.imagePath = picture
        (notification.feed, notification.feedURL) = (feed.name, feed.url)
        return notification
      }
    }
    for notification in batch {
      do {
        try notifier.show(notification)
      } catch {
        return .keep(.notification(error))
      }
    }
    return .done
  }

  public func announce(summary: String, body: String) {
    try? notifier.show(
      DesktopNotification(
        summary: summary, body: body, urgency: settings.notify.urgency, expire: settings.notify.expire,
        icon: settings.notify.icon))
  }

  public func showKept(_ kept: [KeptNotification]) -> ActionOutcome {
    guard let first = kept.first else { return .done }
    var notification: DesktopNotification
    if kept.count == 1 {
      notification = DesktopNotification(first.action)
      if first.feed != "digest" { notification.feed = first.feed }
    } else {
      // Each line names its feed once (a summary may already start with it).
      let lines = kept.suffix(20).map {
        "\($0.feed): \(Self.withoutFeed(DesktopNotification($0.action).summary, $0.feed))"
      }
      notification = DesktopNotification(
        summary: "While you were away: \(kept.count) notifications",
        body: (kept.count > 20 ? ["…"] : []).joined() + lines.joined(separator: "\n"),
        urgency: kept.map { DesktopNotification($0.action).urgency }.max() ?? settings.notify.urgency,
        expire: settings.notify.expire, icon: settings.notify.icon)
      // The one summary of what waited: a later one replaces its bubble.
      notification.replaces = "away"
      notification.links = kept.compactMap(\.action.link)
    }
    do {
      try notifier.show(notification)
      return .done
    } catch {
      return .keep(.notification(error))
    }
  }

  /// A summary without the "FEED: " it starts with by default, for lines that name the feed themselves.
  private static func withoutFeed(_ summary: String, _ feed: String) -> String {
    summary.hasPrefix(feed + ": ") ? String(summary.dropFirst(feed.count + 2)) : summary
  }

  private func run(_ hook: FeedState.PendingAction.Hook, of action: FeedState.PendingAction, feed: FeedConfig)
    -> ActionOutcome
  {
    var variables = environment
    for (name, value) in HookEnvironment.variables(for: action) { variables[name] = value }
    let timeout = hook.timeout ?? 30
    let input = Data((hook.item ?? "{}").utf8)
    let result: HookResult
    let started = ContinuousClock.now
    if let arguments = hook.arguments, let program = arguments.first {
      // run: the program itself, found on the hook's PATH, with each argument whole: no shell.
      let path = HookProgram.resolve(program, environment: variables) ?? program
      // Each argument is cut like a variable (64 KiB): Linux refuses longer ones (E2BIG).
      result = HookRunner.run(
        program: path, arguments: arguments.map(HookEnvironment.clipped), environment: variables, input: input,
        timeout: timeout, stop: killing)
    } else {
      result = HookRunner.run(
        command: hook.command ?? "", environment: variables, input: input, timeout: timeout, stop: killing)
    }
    if result.succeeded { return .done }
    // Ended because watcher is stopping: not the hook's fault, so it stays pending as it was.
    if result.cancelled { return .interrupted(seconds: Int((ContinuousClock.now - started).components.seconds)) }
    let failure = ActionFailure.hook(result, timeout: timeout)
    log(
      "hook of rule '\(action.label(feed: feed.name) ?? "")' for '\(action.key)' in feed '\(feed.name)' failed: \(failure)"
    )
    return .failed(failure)
  }
}
