// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Dispatch
import Foundation
import Testing
import WatcherState
import WatcherTestSupport

@testable import WatcherActions
@testable import WatcherConfig
@testable import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Real `/bin/sh` hooks that save what they receive.
@Suite("Hooks")
struct HookRunnerTests {
  @Test("the command runs as written; item data arrives only as environment and stdin, never as code")
  func dataIsNeverCode() throws {
    let dir = try TemporaryDirectory()
    let out = dir.url.appendingPathComponent("out").path
    let hostile = "$(touch \(dir.url.path)/pwned); `touch \(dir.url.path)/pwned2` ; reboot"
    let result = HookRunner.run(
      command: "printf '%s\\n' \"$WATCHER_TITLE\" > '\(out)'; cat >> '\(out)'",
      environment: ["WATCHER_TITLE": hostile, "PATH": "/usr/bin:/bin"], input: Data("{\"title\":1}".utf8),
      timeout: 10)
    #expect(result.succeeded, "\(result)")
    #expect(try String(contentsOfFile: out, encoding: .utf8) == hostile + "\n{\"title\":1}")
    #expect(!FileManager.default.fileExists(atPath: dir.url.path + "/pwned"))
    #expect(!FileManager.default.fileExists(atPath: dir.url.path + "/pwned2"))
  }

  @Test("exit status and the end of stderr are reported")
  func failure() {
    let result = HookRunner.run(
      command: "echo first >&2; echo 'the real problem' >&2; exit 3", environment: [:], input: Data(), timeout: 10)
    #expect(result.exitStatus == 3 && !result.succeeded)
    #expect(result.stderrTail == "first\nthe real problem")
    #expect(result.describe(timeout: 10) == "exit 3")
  }

  @Test("a hook past its timeout is killed with its whole process group")
  func timeout() throws {
    let dir = try TemporaryDirectory()
    let marker = dir.url.appendingPathComponent("grandchild-survived").path
    let started = Date()
    let result = HookRunner.run(
      command: "(sleep 3; touch '\(marker)') & sleep 30", environment: ["PATH": "/usr/bin:/bin"], input: Data(),
      timeout: 1)
    #expect(result.timedOut && !result.succeeded)
    #expect(Date().timeIntervalSince(started) < 10)
    Thread.sleep(forTimeInterval: 3.5)
    #expect(!FileManager.default.fileExists(atPath: marker), "a grandchild outlived the timeout")
  }

  @Test("the timeout runs from start to exit, even when the hook closes its output at once")
  func timeoutWithoutOutput() {
    let started = Date()
    let result = HookRunner.run(
      command: "exec >/dev/null 2>&1; sleep 8", environment: ["PATH": "/usr/bin:/bin"], input: Data(), timeout: 1)
    #expect(result.timedOut && !result.succeeded, "\(result)")
    #expect(Date().timeIntervalSince(started) < 4, "the timeout did not hold once the pipes closed")
  }

  @Test("the hook's own exit decides: a background child holding stdout neither delays nor fails it")
  func exitDecides() throws {
    let dir = try TemporaryDirectory()
    let log = dir.url.appendingPathComponent("log").path
    let started = Date()
    let result = HookRunner.run(
      command: "echo run >> '\(log)'; sleep 8 & exit 0", environment: ["PATH": "/usr/bin:/bin"], input: Data(),
      timeout: 5)
    #expect(result.succeeded, "\(result)")
    #expect(Date().timeIntervalSince(started) < 3)
    #expect(try String(contentsOfFile: log, encoding: .utf8) == "run\n")
  }

  @Test(
    "on timeout every process the hook started dies, also those that left its process group",
    arguments: [
      "setsid sh -c 'echo $$ > \"$PIDFILE\"; exec sleep 600' & sleep 30",
      "(setsid sh -c 'echo $$ > \"$PIDFILE\"; exec sleep 600' &) ; sleep 30",
      "sh -c 'trap \"\" TERM; echo $$ > \"$PIDFILE\"; while :; do sleep 1; done' & sleep 30",
    ])
  func timeoutKillsEscapees(command: String) throws {
    let dir = try TemporaryDirectory()
    let pidFile = dir.url.appendingPathComponent("pid").path
    let result = HookRunner.run(
      command: command, environment: ["PATH": "/usr/bin:/bin", "PIDFILE": pidFile], input: Data(), timeout: 1)
    #expect(result.timedOut, "\(result)")
    let text = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    let pid = try #require(Int32(text))
    #expect(kill(pid, 0) != 0 && errno == ESRCH, "process \(pid) outlived the hook's timeout")
  }

  @Test("stopping ends a running hook and all it started at once")
  func stop() throws {
    let dir = try TemporaryDirectory()
    let pidFile = dir.url.appendingPathComponent("pid").path
    let stop = Cancellation()
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { stop.cancel() }
    let started = Date()
    let result = HookRunner.run(
      command: "setsid sh -c 'echo $$ > \"$PIDFILE\"; exec sleep 600' & sleep 30",
      environment: ["PATH": "/usr/bin:/bin", "PIDFILE": pidFile], input: Data(), timeout: 30, stop: stop)
    #expect(result.cancelled && !result.succeeded, "\(result)")
    #expect(Date().timeIntervalSince(started) < 5)
    let pid = try #require(
      Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(kill(pid, 0) != 0, "process \(pid) outlived the stop")
  }

  @Test("a program that cannot be started is reported by name")
  func cannotStart() {
    let result = HookRunner.run(
      program: "/nonexistent/tool", arguments: ["tool"], environment: [:], input: Data("x".utf8), timeout: 5)
    #expect(!result.succeeded)
    #expect(result.describe(timeout: 5) == "cannot start /nonexistent/tool: No such file or directory")
  }

  @Test("megabytes on stdout and stderr and a large stdin do not deadlock")
  func bigOutput() {
    let input = Data(repeating: 65, count: 1_000_000)
    let result = HookRunner.run(
      command: "head -c 2000000 /dev/zero; head -c 300000 /dev/zero >&2; wc -c", environment: ["PATH": "/usr/bin:/bin"],
      input: input, timeout: 20)
    #expect(result.succeeded, "\(result)")
    #expect(result.stdoutBytes > 2_000_000)
  }

  @Test("the hook starts with an empty signal mask and no ignored signal, so SIGTERM and SIGPIPE work on it")
  func signalMask() {
    signal(SIGPIPE, SIG_IGN)  // as watcher does; the hook must not inherit it
    let result = HookRunner.run(
      // glibc's posix_spawn leaves its two internal signals (32, 33) ignored; no standard signal may be.
      command:
        "ign=$(grep SigIgn /proc/self/status | cut -f2); blk=$(grep SigBlk /proc/self/status | cut -f2);"
        + " [ $((0x$ign & 0x7fffffff)) -eq 0 ] && [ $((0x$blk)) -eq 0 ]",
      environment: ["PATH": "/usr/bin:/bin"], input: Data(), timeout: 10)
    #expect(result.succeeded, "the hook inherited blocked or ignored signals")
  }

  @Test("a program that is not executable is reported, and the next hook still runs")
  func notExecutable() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.appendingPathComponent("not-a-program").path
    try "just text".write(toFile: path, atomically: true, encoding: .utf8)
    let failed = HookRunner.run(program: path, arguments: ["x"], environment: [:], input: Data(), timeout: 5)
    #expect(!failed.succeeded && failed.describe(timeout: 5).hasPrefix("cannot start \(path): "), "\(failed)")
    #expect(HookRunner.run(command: "exit 0", environment: [:], input: Data(), timeout: 5).succeeded)
  }

  @Test("a shell hook runs as a subshell of a shell that is already running, not as a new program")
  func hostedShell() {
    // In a subshell `$$` is the shell that forked it; the subshell's own pid is in /proc/self.
    let result = HookRunner.run(
      command: "IFS=' ' read -r pid rest < /proc/self/stat; [ \"$pid\" != \"$$\" ]", environment: [:],
      input: Data(), timeout: 10)
    #expect(result.succeeded, "the hook was a shell of its own: \(result)")
  }

  @Test("a hook that is itself `sh -c CODE`, as a command or a run: program, runs CODE in the kept shell")
  func systemShellHosted() throws {
    let hosted = "IFS=' ' read -r pid rest < /proc/self/stat; [ \"$pid\" != \"$$\" ]"
    let quoted = "'" + hosted.replacing("'", with: "'\\''") + "'"
    for command in ["sh -c \(quoted)", "  /bin/sh -c \(quoted)\n", "/usr/bin/sh -c \(quoted) sh"] {
      let result = HookRunner.run(command: command, environment: [:], input: Data(), timeout: 10)
      #expect(result.succeeded, "\(command) started a shell of its own: \(result)")
    }
    for program in ["/usr/bin/sh", "/bin/sh"] {
      let result = HookRunner.run(
        program: program, arguments: ["sh", "-c", hosted], environment: [:], input: Data(), timeout: 10)
      #expect(result.succeeded, "run: [\(program), -c, …] started a shell of its own: \(result)")
    }
    // Arguments after the name are $1…, exactly; a name the kept shell cannot take ($0) gets a shell of its own.
    let dir = try TemporaryDirectory()
    let out = dir.url.appendingPathComponent("out").path
    let code = "printf '%s|' \"$#\" \"$1\" \"$2\" > '\(out)'"
    let words = ["a b", "c'd $(touch \(dir.url.path)/pwned)", "-e"]
    let viaRun = HookRunner.run(
      program: "/usr/bin/sh", arguments: ["sh", "-c", code, "sh"] + words, environment: [:], input: Data(), timeout: 10)
    #expect(viaRun.succeeded, "\(viaRun)")
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "3|a b|c'd $(touch \(dir.url.path)/pwned)|")
    let named = HookRunner.run(
      program: "/bin/sh", arguments: ["sh", "-c", "[ \"$0\" = announce ] && \(hosted)", "announce"], environment: [:],
      input: Data(), timeout: 10)
    #expect(named.succeeded, "$0 is the name given, in a kept shell of that name: \(named)")
    let viaCommand = HookRunner.run(
      command: "sh -c \"printf '%s|' \\\"\\$#\\\" > '\(out)'\" sh 'x y' z", environment: [:], input: Data(), timeout: 10
    )
    #expect(viaCommand.succeeded, "\(viaCommand)")
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "2|")
    #expect(!FileManager.default.fileExists(atPath: dir.url.path + "/pwned"))
    // Anything the outer shell would act on first keeps the outer shell: an assignment, a second command.
    let outer = [("X=2 sh -c 'exit $X'", Int32(2)), ("sh -c 'exit 3'; exit 4", 4), ("sh -c 'exit 3' || exit 5", 5)]
    for (command, status) in outer {
      let result = HookRunner.run(command: command, environment: [:], input: Data(), timeout: 10)
      #expect(result.exitStatus == status, "\(command): \(result)")
    }
  }

  @Test("a run: shell script is read in a kept shell, exactly as its own shell would run it; other scripts are not")
  func scriptsHosted() throws {
    let dir = try TemporaryDirectory()
    let out = dir.url.appendingPathComponent("out").path
    func script(_ name: String, _ text: String, mode: Int = 0o755) throws -> String {
      let path = dir.url.appendingPathComponent(name).path
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
      return path
    }
    let hosted = "IFS=' ' read -r pid rest < /proc/self/stat; [ \"$pid\" != \"$$\" ]"
    let body = "\(hosted) || exit 90\nprintf '%s|' \"$0\" \"$#\" \"$@\" > '\(out)'\n"
    let words = ["a b", "c'd $(touch \(dir.url.path)/pwned)", "-e", ""]
    // $0 is the script's path and $1… its arguments, whichever name of the shell its #! line uses, and
    // whether it is the program or the shell's operand.
    for (first, program) in [("#!/bin/sh", nil), ("#! /usr/bin/sh  ", nil), ("#!/bin/sh", "/usr/bin/sh")] {
      let path = try script("hook.sh", first + "\n" + body)
      let arguments = program == nil ? ["hook.sh"] + words : ["sh", path] + words
      let result = HookRunner.run(
        program: program ?? path, arguments: arguments, environment: ["PATH": "/usr/bin:/bin"], input: Data(),
        timeout: 10)
      #expect(result.succeeded, "\(first) \(program ?? ""): \(result)")
      #expect(try String(contentsOfFile: out, encoding: .utf8) == ([path, "4"] + words).map { $0 + "|" }.joined())
    }
    #expect(!FileManager.default.fileExists(atPath: dir.url.path + "/pwned"))
    // Its #! options hold; its exit status, traps and stdin are its own.
    let strict = try script("strict.sh", "#!/bin/sh -eu\n\(hosted) || exit 90\nfalse\nexit 0\n")
    let failed = HookRunner.run(program: strict, arguments: ["strict.sh"], environment: [:], input: Data(), timeout: 10)
    #expect(failed.exitStatus == 1, "\(failed)")
    let trapped = try script(
      "trap.sh", "#!/bin/sh\n\(hosted) || exit 90\ntrap 'echo bye >&2' EXIT\nread -r line; echo \"$line\" >&2; exit 7\n"
    )
    let exited = HookRunner.run(
      program: trapped, arguments: ["trap.sh"], environment: [:], input: Data("hello\n".utf8), timeout: 10)
    #expect(exited.exitStatus == 7 && exited.stderrTail == "hello\nbye", "\(exited)")
    // Another interpreter, an option `set` does not take, or no #! line: a program of its own, as before.
    for (name, text) in [
      ("bash.sh", "#!/bin/bash\n[ -n \"$BASH_VERSION\" ] && ! { \(hosted); }\n"),
      ("login.sh", "#!/bin/sh -l\n! { \(hosted); }\n"),
    ] {
      let path = try script(name, text)
      let result = HookRunner.run(program: path, arguments: [name], environment: [:], input: Data(), timeout: 10)
      #expect(result.succeeded, "\(name) ran in the kept shell: \(result)")
    }
    // A script that is not executable still cannot be started.
    let unexecutable = try script("plain.sh", "#!/bin/sh\nexit 0\n", mode: 0o644)
    let refused = HookRunner.run(
      program: unexecutable, arguments: ["plain.sh"], environment: [:], input: Data(), timeout: 10)
    #expect(refused.describe(timeout: 10).hasPrefix("cannot start \(unexecutable): "), "\(refused)")
  }

  @Test("the literal words of a command: what the shell would pass on unchanged, nothing it would expand")
  func literalWords() {
    let cases: [(String, [String]?)] = [
      ("sh -c 'echo \"$1\"' sh", ["sh", "-c", "echo \"$1\"", "sh"]),
      ("  sh\t-c \"a b\"'c'd  ", ["sh", "-c", "a bcd"]),
      ("/bin/sh -c ''", ["/bin/sh", "-c", ""]),
      ("sh -c x São=1", ["sh", "-c", "x", "São=1"]),
      ("sh -c \"$HOME\"", nil), ("sh -c \"`id`\"", nil), ("sh -c \"a\\b\"", nil), ("sh -c $x", nil),
      ("A=1 sh -c x", nil), ("sh -c x > f", nil), ("sh -c x; y", nil), ("sh -c x\ny", nil), ("sh -c 'x", nil),
      ("sh -c \"x", nil), ("sh -c *", nil), ("~/sh -c x", nil), ("sh -c x # c", nil), ("sh -c x &", nil),
      ("sh -c x | y", nil), ("(sh -c x)", nil), ("{ sh -c x; }", nil), ("sh -c a\\\nb", nil),
      ("sh -c 'it'\\''s' a\\ b\\$", ["sh", "-c", "it's", "a b$"]),
    ]
    for (command, words) in cases { #expect(HookProgram.literalWords(command) == words, "\(command)") }
  }

  @Test("a command that only starts one program with literal words starts it without a shell in between")
  func directProgram() throws {
    let dir = try TemporaryDirectory()
    func file(_ name: String, _ text: String, mode: Int = 0o755) throws -> String {
      let path = dir.url.appendingPathComponent(name).path
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
      return path
    }
    let script = try file("hook.sh", "#!/bin/sh\nexit 0\n")
    let bare = try file("bare", "exit 0\n")
    let plain = try file("plain.sh", "#!/bin/sh\n", mode: 0o644)
    let home = ["HOME": dir.url.path, "PATH": "/usr/bin:/bin"]
    func direct(_ command: String, _ environment: [String: String] = home) -> [String]? {
      HookProgram.directProgram(of: command, environment: environment).map { [$0.program] + $0.arguments }
    }
    #expect(direct("sh -c x")?.dropFirst() == ["sh", "-c", "x"] && HookProgram.isSystemShell(direct("sh -c x")![0]))
    #expect(direct("sh -x \(script) a")?.dropFirst() == ["sh", "-x", script, "a"])
    #expect(direct(" \(script) 'a b'  c") == [script, script, "a b", "c"])
    #expect(direct("~/hook.sh it\\'s") == [script, script, "it's"])
    #expect(direct("/bin/true --x") == ["/bin/true", "/bin/true", "--x"])
    // What the shell would look up, expand or read itself, or could not start, stays a shell command.
    for command in [
      "bash -c x", "true", "printf x", "hook.sh", "\(script) \"$HOME\"", "\(script) > out", "X=1 \(script)",
      "\(bare)", plain, dir.url.path, "\(dir.url.path)/missing", "'~/hook.sh'", "~/hook.sh; x",
    ] {
      #expect(direct(command) == nil, "\(command)")
    }
    #expect(direct("sh -c x", ["PATH": "/nonexistent"]) == nil)
    #expect(direct("~/hook.sh", ["PATH": "/usr/bin:/bin"]) == nil)
    // Each runs as the shell would have run it: a script in the kept shell, `$0` as the shell gives it.
    let out = dir.url.appendingPathComponent("out").path
    let hosted = "IFS=' ' read -r pid rest < /proc/self/stat; [ \"$pid\" != \"$$\" ] || exit 90"
    let reporter = try file("report.sh", "#!/bin/sh\n\(hosted)\nprintf '%s|' \"$0\" \"$@\" > '\(out)'\n")
    for (command, expected) in [
      ("~/report.sh 'a b'", "\(reporter)|a b|"), ("sh \(reporter) x", "\(reporter)|x|"), ("\(bare)", nil),
    ] {
      let result = HookRunner.run(command: command, environment: home, input: Data(), timeout: 10)
      #expect(result.succeeded, "\(command): \(result)")
      if let expected { #expect(try String(contentsOfFile: out, encoding: .utf8) == expected, "\(command)") }
    }
    let missing = HookRunner.run(command: "\(dir.url.path)/missing", environment: home, input: Data(), timeout: 10)
    #expect(missing.exitStatus == 127, "the shell's own answer: \(missing)")
  }

  @Test("hooks one after another each get exactly their own variables: every byte, added, changed, removed")
  func hostedVariables() throws {
    let dir = try TemporaryDirectory()
    let out = dir.url.appendingPathComponent("out").path
    let bytes = String(decoding: (1...255).map { UInt8($0) }, as: UTF8.self)
    let values = [
      "it's '' \\ $(touch \(dir.url.path)/pwned) `x` \"q\" \n\nend", "São Paulo\t東京", bytes, "", "'",
    ]
    for (index, value) in values.enumerated() {
      var environment = ["PATH": "/usr/bin:/bin", "WATCHER_TITLE": value]
      if index % 2 == 0 { environment["EXTRA_\(index)"] = "x\(index)" }
      let result = HookRunner.run(
        command: "printf '%s' \"$WATCHER_TITLE\" > '\(out)'; env | cut -d= -f1 | grep '^EXTRA_' | tr '\\n' ' ' >&2",
        environment: environment, input: Data(), timeout: 10)
      #expect(result.succeeded, "\(result)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(value.utf8), "value \(index)")
      #expect(result.stderrTail == (index % 2 == 0 ? "EXTRA_\(index) " : ""), "variables of hook \(index)")
    }
    #expect(!FileManager.default.fileExists(atPath: dir.url.path + "/pwned"))
  }

  @Test("exit statuses come back exactly; a hook that kills its shell is reported, and the next one runs")
  func hostedStatuses() {
    for status in [0, 1, 7, 126, 255] {
      let result = HookRunner.run(command: "exit \(status)", environment: [:], input: Data(), timeout: 10)
      #expect(result.exitStatus == Int32(status) && result.signal == nil, "\(result)")
    }
    let killed = HookRunner.run(command: "kill -9 $$", environment: [:], input: Data(), timeout: 10)
    #expect(!killed.succeeded && killed.signal == 9, "\(killed)")
    let broken = HookRunner.run(command: "if then (", environment: [:], input: Data(), timeout: 10)
    #expect(broken.exitStatus == 2, "\(broken)")
    #expect(HookRunner.run(command: "exit 0", environment: [:], input: Data(), timeout: 10).succeeded)
  }

  @Test("a hook has its three streams and no other descriptor")
  func onlyThreeDescriptors() {
    let result = HookRunner.run(
      command: "for fd in 3 4 5 6 7 8 9; do if (: <&$fd) 2>/dev/null; then echo \"open: $fd\" >&2; exit 1; fi; done",
      environment: [:], input: Data(), timeout: 10)
    #expect(result.succeeded, "\(result.stderrTail)")
  }

  @Test("only http(s) links are ever handed to xdg-open")
  func webLinksOnly() {
    for link in ["https://example.com/a", "HTTP://EXAMPLE.COM"] { #expect(LinkOpener.isWebLink(link)) }
    for link in ["file:///etc/passwd", "javascript:alert(1)", "smb://host/share", "steam://run/1", "-x", ""] {
      #expect(!LinkOpener.isWebLink(link), "\(link)")
    }
  }
}

/// `hook_concurrency` is how many hooks run at once, whatever the number of processors.
@Suite("Hook concurrency")
struct HookConcurrencyTests {
  @Test("hook_concurrency 6 runs six hooks at once, also on a machine with fewer processors")
  func sixAtOnce() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    // Each hook announces itself, then waits (at most 20 s) until all six have: with fewer at once, the
    // first ones would wait in vain and report failure.
    let command =
      "touch \"\(path)/$WATCHER_ID\"; i=0; while [ $(ls \"\(path)\" | wc -l) -lt 6 ] && [ $i -lt 200 ]; do "
      + "sleep 0.1; i=$((i+1)); done; [ $(ls \"\(path)\" | wc -l) -ge 6 ]"
    var settings = Settings()
    settings.hookConcurrency = 6
    let runner = DeliveringActionRunner(
      notifier: NoNotifier(), settings: settings, environment: [:], log: { _ in })
    let actions = (1...6).map { index in
      FeedState.PendingAction(
        kind: .hook, key: "k\(index)", rule: "r", command: command, timeout: 60,
        environment: ["WATCHER_ID": "hook-\(index)"], created: Date())
    }
    let outcomes = runner.run(actions, feed: FeedConfig(url: "test:", name: "f"))
    #expect(outcomes.allSatisfy { if case .done = $0 { true } else { false } }, "\(outcomes)")
  }
}

/// A notification service that is never there (these tests run hooks only).
struct NoNotifier: Notifier {
  func show(_ notification: DesktopNotification) throws(ActionError) {
    throw .notificationService("no notification service (a test)")
  }
}
