// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Testing

@testable import WatcherConfig

/// `watcher check` on how a shell hook quotes its `$WATCHER_…` variables.
@Suite("Quoting in shell hooks")
struct HookQuotingTests {
  func warnings(_ command: String) -> [String] {
    HookLint.check(HookAction(command: command)).filter { $0.severity == .warning }.map(\.message)
  }

  @Test("single quotes and no quotes are warned of, with the fix; double quotes and assignments are fine")
  func quoting() {
    #expect(
      warnings("echo '$WATCHER_TITLE' >> f") == ["'$WATCHER_TITLE' is in single quotes: the shell does not expand it"])
    #expect(
      warnings("echo $WATCHER_TITLE >> f") == [
        "'$WATCHER_TITLE' is not quoted: the shell splits it at spaces and expands * and ? in it"
      ])
    #expect(warnings("echo \"${WATCHER_TITLE}\" '(literal)' >> f; t=$WATCHER_LINK; echo \"$t\"").isEmpty)
    #expect(warnings("echo \"it's $WATCHER_TITLE\"").isEmpty, "a single quote inside double quotes is a character")
    #expect(warnings("echo \\$WATCHER_TITLE").isEmpty, "an escaped $ is not a variable")
    #expect(
      HookLint.quotings(in: "a \"$WATCHER_A\" '$WATCHER_B' $WATCHER_C x=$WATCHER_D").map(\.quoting) == [
        .double, .single, .bare, .assigned,
      ])
  }
}
