// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport

/// Where the config is: `--config`, else `$WATCHER_CONFIG`, else
/// `$XDG_CONFIG_HOME/watcher/rules.yaml` (default `~/.config/watcher/rules.yaml`).
public enum ConfigLocator {
  /// The path to use, and every path considered (for the "not found" message).
  public static func candidates(explicit: String?, environment: [String: String]) -> [String] {
    if let explicit { return [explicit] }
    if let fromEnvironment = environment["WATCHER_CONFIG"], !fromEnvironment.isEmpty { return [fromEnvironment] }
    let home = HomePath.home(environment)
    let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
    return [configHome + "/watcher/rules.yaml"]
  }
}
