// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherFeed
import WatcherPoll
import WatcherRules
import WatcherState
import WatcherSupport

/// `watcher score --jsonl`: the learned score of items read as JSON lines, for scripts and for measuring
/// the learner.
///
/// Each line is `{"id", "title", "text", "author", "link", "feed", "categories", "label"}`; a `label` of 1 or
/// 0 is a 👍 or 👎 given to that item, stored in the state directory's labels as `like` and `dislike` store
/// them; every item whose label is `null` is scored from all the labels kept, one `{"id", "score"}` line
/// each. With too few labels there is no score, and standard error says so.
struct ScoreCommand: Command {
  let name = "score"
  let summary = "score items read as JSON lines by what the kept 👍 and 👎 labels say (labels in the lines are kept)"
  let positionals = Positionals.none()
  let options = [
    Options.config, Options.stateDir,
    OptionSpec(
      name: "jsonl",
      help: "read JSON lines on standard input and print one {\"id\", \"score\"} line per unlabelled item"),
  ]

  /// The most bytes read from standard input.
  static let maxInput = 256 << 20

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let directory: String
    if let explicit = arguments.value(Options.stateDir) {
      directory = HomePath.expand(explicit, environment: terminal.environment)
    } else {
      guard let (config, _) = ConfigOption.load(arguments, terminal: terminal) else { return .config }
      directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    }
    let input = terminal.readInput(Self.maxInput)
    var given: [Label] = []
    var scored: [(id: String, item: Relevance.Item)] = []
    let now = WallClock.now()
    for (id, value) in JSONLines.objects(input, terminal: terminal) {
      let item = Relevance.Item(document: value)
      switch value["label"] {
      case .number(let label)?: given.append(Label(key: id, item: item, up: label > 0.5, time: now))
      case .bool(let up)?: given.append(Label(key: id, item: item, up: up, time: now))
      default: scored.append((id, item))
      }
    }
    let labels: [Label]
    do {
      let store = try StateStore(directory: directory)
      if given.isEmpty {
        labels = try store.labels()
      } else {
        labels = try store.updateLabels { labels in
          labels += given
          return labels
        }
      }
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    let training = labels.map { (Relevance.Item($0), $0.up) }
    guard let scores = Relevance.scores(scored.map(\.item), labeled: training) else {
      terminal.error(
        "note: \(labels.count) label\(labels.count == 1 ? "" : "s") kept; the learner needs \(Relevance.minimumLabels) "
          + "before it scores anything")
      return .success
    }
    var out: [UInt8] = []
    for ((id, _), score) in zip(scored, scores) {
      out += Array("{\"id\":".utf8)
      out += JSONOutput.string(id).compact
      out += Array(",\"score\":\(score.isFinite ? score : 0)}\n".utf8)
    }
    terminal.output(out)
    return .success
  }
}
