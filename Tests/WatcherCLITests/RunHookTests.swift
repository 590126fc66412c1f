// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `hook: { run: [PROGRAM, ARG...] }`: a program run without a shell, each `{field}` one whole argument.
@Suite("run: hooks without a shell", .serialized)
struct RunHookTests {
  @Test("hostile titles arrive as one argument each, never split or interpreted")
  func hostileTitles() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    let hostile = ["$(touch \(path)/pwned)", "a b c; reboot", "`id` && echo x | tee \(path)/pwned2", "-rf *", "\"'\\"]
    var xml = "<rss version=\"2.0\"><channel><title>F</title>"
    for (index, title) in hostile.enumerated() {
      let escaped = title.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      xml += "<item><title>\(escaped)</title><guid>g\(index)</guid></item>"
    }
    try (xml + "</channel></rss>").write(toFile: "\(path)/feed.xml", atomically: true, encoding: .utf8)
    // The program writes each of its arguments on a line of its own, NUL-free, so splitting would show.
    let script = "\(path)/args.sh"
    try "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done >> \(path)/args.log\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o755)
    try """
    settings: { first_poll: all, max_age: none, hook_concurrency: 1 }
    feeds:
      - { url: \(path)/feed.xml, name: f }
    rules:
      - name: r
        match: { title: '' }
        hook: { run: ['\(script)', "{title}", "feed={feed}"] }
    """.write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    let check = try ChildProcess.run(binary, ["check", "--config", "\(path)/rules.yaml"])
    #expect(check.status == 0, "\(check.errors)")
    let poll = try ChildProcess.run(binary, ["poll", "--config", "\(path)/rules.yaml", "--state-dir", "\(path)/state"])
    #expect(poll.status == 0, "\(poll.errors)")
    let lines = try String(contentsOfFile: "\(path)/args.log", encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(lines.count == hostile.count * 2)
    for title in hostile {
      // A leading '-' from the item gets a space before it: it can never be an option of the program.
      let arrived = title.hasPrefix("-") ? " " + title : title
      #expect(lines.contains("[\(arrived)]"), "'\(title)' did not arrive whole: \(lines)")
    }
    #expect(lines.filter { $0 == "[feed=f]" }.count == hostile.count)
    #expect(!FileManager.default.fileExists(atPath: "\(path)/pwned"))
    #expect(!FileManager.default.fileExists(atPath: "\(path)/pwned2"))
  }

  @Test("check reports a run: program that is not found, not executable, or a template")
  func programMistakes() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    try "plain text".write(toFile: "\(path)/not-exec", atomically: true, encoding: .utf8)
    try """
    feeds:
      - { url: https://example.com/feed, name: f }
    rules:
      - { name: a, match: { title: x }, hook: { run: [no-such-program-anywhere, "{title}"] } }
      - { name: b, match: { title: x }, hook: { run: ['\(path)/not-exec'] } }
      - { name: c, match: { title: x }, hook: { run: ['{link}'] } }
      - { name: d, match: { title: x }, hook: { run: [true], command: 'true' } }
      - { name: e, match: { title: x }, hook: { run: [sh, "{titel}"] } }
    """.write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    let check = try ChildProcess.run(binary, ["check", "--config", "\(path)/rules.yaml"])
    #expect(check.status == 78)
    for expected in [
      "the program 'no-such-program-anywhere' in 'run' is not on PATH",
      "the program '\(path)/not-exec' in 'run' is not an executable file",
      "the program in 'run' cannot be a template",
      "has both 'command' and 'run'",
      "unknown template field '{titel}' in 'run'",
    ] {
      #expect(check.errors.contains(expected), "missing '\(expected)' in:\n\(check.errors)")
    }
  }

  @Test("check catches shell hook mistakes: syntax, unknown $WATCHER_ names, templates, missing scripts")
  func shellHookMistakes() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    try """
    feeds:
      - { url: https://example.com/feed, name: f, hook: 'echo "$WATCHER_TITEL"' }
    rules:
      - { name: a, match: { title: x }, hook: "echo 'unterminated" }
      - { name: b, match: { title: x }, hook: 'notify-send {title}' }
      - { name: c, match: { title: x }, hook: '\(path)/no-such-script --flag' }
      - { name: d, match: { title: x }, hook: 'printf "%s\\n" "$WATCHER_TITLE" >> \(path)/x.log' }
    """.write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    let check = try ChildProcess.run(binary, ["check", "--config", "\(path)/rules.yaml"])
    #expect(check.status == 78)
    for expected in [
      "rules.yaml:2:", "the hook uses '$WATCHER_TITEL', which watcher does not set", "did you mean '$WATCHER_TITLE'?",
      "rules.yaml:4:", "the hook's command is not valid shell", "Unterminated quoted string",
      "rules.yaml:5:", "'{title}' is not expanded in a shell command", "use \"$WATCHER_TITLE\" (quoted)",
      "rules.yaml:6:", "the hook's script \(path)/no-such-script does not exist", "4 errors in",
    ] {
      #expect(check.errors.contains(expected), "missing '\(expected)' in:\n\(check.errors)")
    }
    #expect(!check.errors.contains("rules.yaml:7:"), "a correct hook was reported")
  }

  @Test("check prints every error at once: the config's own and its hooks', in file order, counted together")
  func everyErrorAtOnce() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    try """
    feeds:
      - { url: https://example.com/feed, name: f, hook: 'echo "$WATCHER_TITEL"' }
    rules:
      - { name: a, match: { title: x }, urgency: urgent, hook: 'echo "$WATCHER_TITLE"' }
      - { name: b, match: { title: x }, hook: "echo 'unterminated" }
      - { name: c, match: { titel: x }, hook: 'echo "$WATCHER_LNK"' }
      - { name: d, match: { title: x }, hook: 'echo $WATCHER_TITLE' }
    """.write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let check = try ChildProcess.run(try #require(BinaryTests.binary), ["check", "--config", "\(path)/rules.yaml"])
    #expect(check.status == 78)
    let marks = check.errors.split(separator: "\n").filter { $0.hasPrefix("\(path)/rules.yaml:") }.map {
      $0.dropFirst(path.count + "/rules.yaml:".count).prefix { $0 != ":" }
    }
    // The feed's hook (2), the unknown key (4), the shell syntax (5), the unknown match key (6; that rule is
    // left out, so its hook is not checked), the unquoted variable (7, a warning): in file order.
    #expect(marks == ["2", "4", "5", "6", "7"], "\(check.errors)")
    #expect(check.errors.contains("unknown key 'urgency' in rule 'a'"), "\(check.errors)")
    #expect(check.errors.contains("'$WATCHER_TITEL', which watcher does not set"), "\(check.errors)")
    #expect(check.errors.contains("Unterminated quoted string"), "\(check.errors)")
    #expect(check.errors.hasSuffix("4 errors in \(path)/rules.yaml\n"), "\(check.errors)")
  }
}
