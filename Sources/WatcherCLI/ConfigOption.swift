// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherConfig

/// `--config F`, shared by the commands that read the config.
enum ConfigOption {
  static let spec = OptionSpec(
    name: "config", value: "FILE", help: "the config file (default: $WATCHER_CONFIG, then ~/.config/watcher/rules.yaml)"
  )

  /// Loads the config the arguments and environment point at, or prints why not and returns the exit code.
  static func load(_ arguments: Arguments, terminal: Terminal) -> (config: Config, path: String)? {
    let candidates = ConfigLocator.candidates(explicit: arguments.value("config"), environment: terminal.environment)
    let path = candidates[0]
    do {
      return (try ConfigLoader.load(path: path), path)
    } catch {
      if case .notFound = error {
        terminal.errors(Array(ConfigError.notFound(tried: candidates).rendered.utf8))
      } else {
        terminal.errors(Array(error.rendered.utf8))
      }
      return nil
    }
  }
}

/// `watcher check [--config F]`: validate the config and print every problem.
struct CheckCommand: Command {
  let name = "check"
  let summary = "validate the config; print every problem (exit 78 if invalid)"
  let usage = "[--config FILE]"
  let options = [ConfigOption.spec, OptionSpec(name: "help", short: "h", value: nil, help: "show this help")]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard arguments.positionals.isEmpty else {
      terminal.error("error: 'watcher check' takes no arguments besides --config")
      return .usage
    }
    guard let (config, path) = ConfigOption.load(arguments, terminal: terminal) else { return .config }
    if !config.notices.isEmpty {
      let source = try? String(contentsOfFile: path, encoding: .utf8)
      terminal.errors(Array(DiagnosticRenderer.render(config.notices, path: path, source: source).utf8))
    }
    let feeds = config.feeds.count
    let rules = config.rules.count
    terminal.print("\(path): \(feeds) feed\(feeds == 1 ? "" : "s"), \(rules) rule\(rules == 1 ? "" : "s"): OK")
    return .success
  }
}
