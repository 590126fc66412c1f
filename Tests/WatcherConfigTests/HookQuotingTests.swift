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

  @Test("the code argument of a shell or an interpreter in a run: hook is found, through env and options")
  func codeArgument() {
    let cases: [([String], Int?)] = [
      (["sh", "-c", "echo", "sh", "x"], 2), (["/bin/bash", "-ec", "x"], 2), (["dash", "-e", "-c", "x"], 3),
      (["zsh", "-o", "errexit", "-c", "x"], 4), (["sh", "+x", "-c", "--", "x"], 4),
      (["env", "A=1", "sh", "-c", "x"], 4),
      (["/usr/bin/env", "-i", "bash", "-c", "x"], 4), (["python3", "-c", "x"], 2), (["perl", "-E", "x"], 2),
      (["node", "--eval", "x"], 2), (["sh", "script.sh", "-c"], nil), (["bash", "--norc", "x"], nil),
      (["notify-send", "-c", "x"], nil), (["sh", "-c"], nil), (["env"], nil), (["python3", "script.py", "x"], nil),
    ]
    for (words, index) in cases { #expect(ConfigMapper.codeArgument(words)?.index == index, "\(words)") }
  }

  @Test("a template in the code a run: hook hands a shell or an interpreter is refused; as an argument it is fine")
  func templateAsCode() throws {
    for (hook, refused) in [
      ("[sh, -c, 'echo {title}']", "'{title}' in 'run' would be run as code by sh"),
      ("[env, bash, -ec, 'curl {link}']", "'{link}' in 'run' would be run as code by bash"),
      ("[python3, -c, 'print(\"{author}\")']", "'{author}' in 'run' would be run as code by python3"),
      ("[sh, -c, 'echo \"$1\"', sh, '{title}']", nil), ("[echo, -c, '{title}']", nil),
    ] {
      let yaml = "feeds:\n  - url: https://example.com/f\nrules:\n  - { match: { title: x }, hook: { run: \(hook) } }\n"
      if let refused {
        let error = #expect(throws: ConfigError.self, "\(hook)") { try ConfigLoader.parse(yaml, path: "t.yaml") }
        guard case .invalid(_, let diagnostics, _)? = error else { continue }
        #expect(diagnostics.map(\.message) == [refused], "\(hook)")
      } else {
        #expect(throws: Never.self, "\(hook)") { try ConfigLoader.parse(yaml, path: "t.yaml") }
      }
    }
  }
}
