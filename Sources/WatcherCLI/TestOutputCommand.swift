// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
import WatcherFeed
import WatcherState
import WatcherSupport

/// `watcher test-output RULE`: one test item through a rule's Apprise URLs and webhook, and what happened.
struct TestOutputCommand: Command {
  let name = "test-output"
  let summary = "send one test item through a rule's apprise: URLs and webhook: and say what happened"
  let positionals = Positionals.one("RULE", "RULE (its name in the config)")
  let options = [Options.config]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard let (config, _) = ConfigOption.load(arguments, terminal: terminal) else { return .config }
    let name = arguments.positionals[0]
    guard let rule = config.rules.first(where: { $0.name == name }) else {
      terminal.error("error: no rule named '\(Terminal.field(name))' in the config")
      if let suggestion = Suggestion.closest(to: name, in: config.rules.map(\.name)) {
        terminal.error("note: did you mean '\(suggestion)'?")
      }
      return .usage
    }
    let item = FeedItem(
      key: "watcher-test-output", id: "watcher-test-output", title: "watcher test item",
      link: "https://example.org/watcher-test-output", published: WallClock.now(),
      text: "If this arrived, the rule '\(name)' reaches you.")
    let feed = FeedConfig(url: "https://example.org/feed.xml", name: "test-output")
    let document = FeedJSONWriter.itemJSON(
      item,
      extra: [
        ("feed", .string(feed.name)), ("feed_url", .string(URLSecrets.redacted(feed.url))), ("rule", .string(name)),
      ])
    var actions: [FeedState.PendingAction] = []
    if let apprise = rule.actions.apprise {
      var message = FeedState.PendingAction.Apprise(
        title: "watcher: test item for rule '\(name)'", body: item.text ?? "",
        urgency: apprise.message.urgency ?? .normal)
      (message.urls, message.file) = (apprise.urls, apprise.file)
      actions.append(
        FeedState.PendingAction(key: item.key, source: .rule(name), payload: .apprise(message), created: Date()))
    }
    if let webhook = rule.actions.webhook {
      actions.append(
        FeedState.PendingAction(
          key: item.key, source: .rule(name),
          payload: .webhook(
            .init(
              url: webhook.url, secretFile: webhook.secretFile, secretEnv: webhook.secretEnv,
              timeout: webhook.timeout, item: document)), created: Date()))
    }
    guard !actions.isEmpty else {
      terminal.error("error: the rule '\(name)' has no apprise: and no webhook: to test")
      return .usage
    }
    let runner = DeliveringActionRunner(
      notifier: LibnotifyNotifier(environment: terminal.environment), settings: config.settings,
      environment: terminal.environment, log: { _ in })
    var failed = false
    for (action, outcome) in zip(actions, runner.run(actions, feed: feed)) {
      let what = action.kind == .webhook ? action.what : "apprise"
      switch outcome {
      case .done: terminal.print("\(what): sent")
      case .failed(let failure), .keep(let failure):
        failed = true
        terminal.error("error: \(what): \(Terminal.field("\(failure)"))")
      case .notRun, .interrupted:
        failed = true
        terminal.error("error: \(what): not sent (watcher was stopping)")
      }
    }
    return failed ? .failure : .success
  }
}
