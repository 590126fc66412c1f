// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed
import WatcherTestSupport

/// Runs `executable` with `arguments` and returns (exit status, stdout, stderr).
private func execute(
  _ executable: String, _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil
) throws -> (Int32, String, String) {
  let result = try ChildProcess.run(executable, arguments, environment: environment, in: directory)
  return (result.status, result.output, result.errors)
}

@Suite("Shell completions and contrib/")
struct ContribTests {
  /// What bash's `_watcher` offers for the words typed so far (the last one is being completed).
  func bashCompletions(_ words: [String]) throws -> [String] {
    let script = run(["completions", "bash"]).1
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("watcher-bash-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("watcher.bash")
    try script.write(to: file, atomically: true, encoding: .utf8)
    let quoted = (["watcher"] + words).map { "'\($0)'" }.joined(separator: " ")
    let program = """
      source '\(file.path)'
      COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count)
      _watcher
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    // The script asks the built watcher for feed names, as the installed one would be asked.
    var environment = ProcessInfo.processInfo.environment
    if let binary = BinaryTests.binary {
      environment["PATH"] = binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    }
    environment["WATCHER_CONFIG"] = "/nonexistent/rules.yaml"
    let (status, out, err) = try execute(
      "/bin/bash", ["--norc", "-c", program], environment: environment, in: directory)
    #expect(status == 0 && err.isEmpty, "bash said: \(err)")
    return out.split(separator: "\n").map(String.init)
  }

  @Test("bash completion offers the subcommands, poll's options, and files after --config")
  func bash() throws {
    let commands = try bashCompletions([""])
    for name in ["run", "poll", "catch-up", "status", "check", "test-rules", "parse", "completions", "help"] {
      #expect(commands.contains(name), "offered \(commands)")
    }
    #expect(try bashCompletions(["p"]) == ["poll", "parse", "pending"])
    #expect(
      try Set(bashCompletions(["poll", "--"])) == [
        "--config", "--state-dir", "--feed", "--all", "--force", "--dry-run", "--json", "--help",
      ])
    #expect(try bashCompletions(["test-rules", "--ti"]) == ["--title"])
    #expect(try bashCompletions(["help", "ca"]) == ["catch-up"])
    #expect(try bashCompletions(["completions", ""]) == ["bash", "zsh", "fish"])
    // A value that is a path gets file names (the test runs in an empty directory but for the script itself).
    #expect(try bashCompletions(["poll", "--config", "watcher."]) == ["watcher.bash"])
    // Feed names after --feed, from the config the command line names (none without a config).
    #expect(try bashCompletions(["poll", "--feed", ""]) == [])
    let example = Fixtures.repositoryRoot.appendingPathComponent("rules.example.yaml").path
    #expect(try bashCompletions(["poll", "--config", example, "--feed", ""]) == ["swift", "advisories"])
    #expect(try bashCompletions(["catch-up", "--config", example, "--feed", "adv"]) == ["advisories"])
  }

  @Test("zsh and fish offer feed names after --feed; 'completions feeds' lists them")
  func feedNames() throws {
    let example = Fixtures.repositoryRoot.appendingPathComponent("rules.example.yaml").path
    #expect(run(["completions", "feeds", "--config", example]).1 == "swift\nadvisories\n")
    let missing = run(["completions", "feeds", "--config", "/nonexistent/rules.yaml"])
    #expect(missing.0 == 78 && missing.1.isEmpty && missing.2.isEmpty)
    #expect(
      run(["completions", "zsh"]).1.contains("--feed[only this feed, due or not (repeatable)]:name:_watcher_feeds"))
    #expect(
      run(["completions", "fish"]).1.contains(
        "-l feed -x -a '(watcher completions feeds 2>/dev/null)'"))
  }

  @Test("every option of every command appears in all three completion scripts")
  func inSync() {
    let scripts = ["bash", "zsh", "fish"].map { run(["completions", $0]).1 }
    for script in scripts { #expect(!script.isEmpty) }
    for (shellIndex, script) in scripts.enumerated() {
      for name in ["poll", "test-rules", "parse", "catch-up", "status", "check", "run"] {
        #expect(script.contains(name))
      }
      // bash and zsh spell options as --name; fish as -l name.
      for option in ["config", "state-dir", "feed", "json", "charset", "max-size", "title", "now", "all"] {
        #expect(script.contains(shellIndex == 2 ? "-l \(option)" : "--\(option)"), "missing \(option)")
      }
    }
    let (code, _, err) = run(["completions", "tcsh"])
    #expect(code == 64 && err.contains("unknown shell 'tcsh'"))
    #expect(run(["completions", "bsh"]).2.contains("did you mean 'bash'?"))
    #expect(run(["completions"]).0 == 64)
  }

  @Test(
    "watcher.desktop passes desktop-file-validate, names the icon shipped beside it, and is what notifications name")
  func desktopEntry() throws {
    let validate = try #require(
      ["/usr/bin/desktop-file-validate"].first { FileManager.default.isExecutableFile(atPath: $0) },
      "desktop-file-validate comes with Debian's desktop-file-utils (Scripts/packages.sh)")
    let entry = Fixtures.repositoryRoot.appendingPathComponent("contrib/desktop/watcher.desktop")
    let (status, out, err) = try execute(
      validate, [entry.path], environment: ["PATH": "/usr/bin:/bin"],
      in:
        entry
        .deletingLastPathComponent())
    #expect(status == 0 && out.isEmpty && err.isEmpty, "\(out)\(err)")
    let text = try String(contentsOf: entry, encoding: .utf8)
    #expect(text.contains("\nNoDisplay=true\n") && text.contains("\nIcon=watcher\n"))
    #expect(
      FileManager.default.fileExists(
        atPath: Fixtures.repositoryRoot.appendingPathComponent("contrib/desktop/watcher.svg").path))
    // A broken entry is refused: the check can fail.
    let dir = try TemporaryDirectory()
    let broken = dir.url.appendingPathComponent("watcher.desktop")
    try text.replacingOccurrences(of: "Type=Application", with: "Type=Gadget").write(
      to: broken, atomically: true, encoding: .utf8)
    #expect(try execute(validate, [broken.path], environment: ["PATH": "/usr/bin:/bin"], in: dir.url).0 != 0)
  }

  @Test("the systemd user units pass systemd-analyze verify")
  func systemdUnits() throws {
    let analyze = try #require(
      ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) },
      "systemd-analyze comes with Debian's systemd package (Scripts/packages.sh)")
    let binary = try #require(BinaryTests.binary)
    // The units run %h/.local/bin/watcher; verify checks that it exists, so give it a home with one.
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("watcher-units-\(UUID())")
    defer { try? FileManager.default.removeItem(at: home) }
    let bin = home.appendingPathComponent(".local/bin")
    let runtime = home.appendingPathComponent("run")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    try FileManager.default.copyItem(at: binary, to: bin.appendingPathComponent("watcher"))
    let units = Fixtures.repositoryRoot.appendingPathComponent("contrib/systemd")
    let environment = ["HOME": home.path, "XDG_RUNTIME_DIR": runtime.path, "PATH": "/usr/bin:/bin"]
    let names = ["watcher.service", "watcher-poll.service", "watcher-poll.timer"]
    // --man=no: the man pages are not installed in the test environment.
    let arguments = ["--user", "--man=no", "verify"]
    let (status, out, err) = try execute(analyze, arguments + names, environment: environment, in: units)
    #expect(status == 0 && err.isEmpty && out.isEmpty, "systemd-analyze said: \(err)\(out)")

    // The check can fail: systemd only warns about a bad value, and the warning is what we look for.
    let broken = home.appendingPathComponent("broken.service")
    let text = try String(contentsOf: units.appendingPathComponent("watcher.service"), encoding: .utf8)
    try text.replacingOccurrences(of: "Restart=on-failure", with: "Restart=sometimes")
      .write(to: broken, atomically: true, encoding: .utf8)
    let (_, _, brokenErr) = try execute(analyze, arguments + [broken.path], environment: environment)
    #expect(brokenErr.contains("restart specifier"), "systemd-analyze said: \(brokenErr)")
  }
}

@Suite("contrib/hooks")
struct ContribHookTests {
  let hooks = Fixtures.repositoryRoot.appendingPathComponent("contrib/hooks")

  /// A scratch directory with `bin/` first on PATH holding fake `curl` and `xdg-open` that record their
  /// arguments (one per line) and standard input.
  func sandbox() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("watcher-hooks-\(UUID())")
    let bin = directory.appendingPathComponent("bin")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    for tool in ["curl", "xdg-open"] {
      let fake = bin.appendingPathComponent(tool)
      try
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$(dirname \"$0\")/../\(tool).args\"\ncat > \"$(dirname \"$0\")/../\(tool).stdin\"\n"
        .write(to: fake, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
    }
    return directory
  }

  func hook(_ name: String, in directory: URL, _ variables: [String: String], stdin: String = "") throws -> Int32 {
    var environment = [
      "PATH": directory.appendingPathComponent("bin").path + ":/usr/bin:/bin", "HOME": directory.path,
      "WATCHER_FEED": "Feed", "WATCHER_TITLE": "", "WATCHER_LINK": "", "WATCHER_TAGS": "", "WATCHER_TEXT": "",
    ]
    environment.merge(variables) { $1 }
    let input = directory.appendingPathComponent("stdin.json")
    try stdin.write(to: input, atomically: true, encoding: .utf8)
    let command = "'\(hooks.appendingPathComponent(name).path)' < '\(input.path)'"
    return try execute("/bin/sh", ["-c", command], environment: environment).0
  }

  func read(_ directory: URL, _ name: String) -> String {
    (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? "<missing>"
  }

  @Test("archive-jsonl appends one line per item")
  func archive() throws {
    let directory = try sandbox()
    defer { try? FileManager.default.removeItem(at: directory) }
    let archive = directory.appendingPathComponent("a/archive.jsonl").path
    #expect(try hook("archive-jsonl", in: directory, ["WATCHER_ARCHIVE": archive], stdin: "{\"title\":\"one\"}") == 0)
    #expect(try hook("archive-jsonl", in: directory, ["WATCHER_ARCHIVE": archive], stdin: "{\"title\":\"two\"}") == 0)
    #expect(
      read(directory.appendingPathComponent("a"), "archive.jsonl") == "{\"title\":\"one\"}\n{\"title\":\"two\"}\n")
  }

  @Test("ntfy sends hostile item text as data: on stdin, headers on one line")
  func ntfy() throws {
    let directory = try sandbox()
    defer { try? FileManager.default.removeItem(at: directory) }
    let status = try hook(
      "ntfy", in: directory,
      [
        "NTFY_TOPIC": "t", "NTFY_SERVER": "http://127.0.0.1:9", "WATCHER_TITLE": "$(touch pwned)\nX-Injected: 1",
        "WATCHER_TEXT": "@/etc/passwd", "WATCHER_LINK": "https://example.org/a",
      ])
    #expect(status == 0)
    let arguments = read(directory, "curl.args").split(separator: "\n").map(String.init)
    #expect(arguments.contains("Title: Feed: $(touch pwned) X-Injected: 1"), "curl got \(arguments)")
    #expect(arguments.contains("@-") && !arguments.contains("@/etc/passwd"))
    #expect(arguments.last == "http://127.0.0.1:9/t")
    #expect(read(directory, "curl.stdin") == "@/etc/passwd")
    #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("pwned").path))
    #expect(try hook("ntfy", in: directory, [:]) != 0, "no NTFY_TOPIC is an error")
  }

  @Test("open-in-browser opens only web links, passed as one argument")
  func browser() throws {
    let directory = try sandbox()
    defer { try? FileManager.default.removeItem(at: directory) }
    let link = "https://example.org/?q=$(touch pwned)&x=1"
    #expect(try hook("open-in-browser", in: directory, ["WATCHER_LINK": link]) == 0)
    #expect(read(directory, "xdg-open.args") == link + "\n")
    try FileManager.default.removeItem(at: directory.appendingPathComponent("xdg-open.args"))
    #expect(try hook("open-in-browser", in: directory, ["WATCHER_LINK": "file:///etc/passwd"]) == 1)
    #expect(read(directory, "xdg-open.args") == "<missing>")
    #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("pwned").path))
  }
}

@Suite("man pages")
struct ManPageTests {
  let directory = Fixtures.repositoryRoot.appendingPathComponent("contrib/man")

  func page(_ name: String) throws -> String {
    try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
  }

  @Test("watcher(1) documents every command and every option --help lists")
  func inSync() throws {
    // roff escapes hyphens; compare against the text with them undone.
    let text = try page("watcher.1").replacingOccurrences(of: "\\-", with: "-")
    // Every command --help lists: the indented lines between "commands:" and the blank line after them.
    let overview = run(["--help"]).1.components(separatedBy: "commands:\n")[1].components(separatedBy: "\n\n")[0]
    let names = overview.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
      .filter { $0 != "help" }
    #expect(names.count >= 10 && names.contains("import-opml"))
    for name in names {
      #expect(text.contains(".B \(name)\n"), "no COMMANDS entry for \(name)")
      let (_, help, _) = run(["help", name])
      for option in help.split(separator: "\n") where option.hasPrefix("  -") {
        let spelling = option.split(separator: " ").first { $0.hasPrefix("--") }.map(String.init) ?? ""
        #expect(text.contains(spelling), "watcher.1 does not mention \(spelling) of \(name)")
      }
    }
  }

  @Test("watcher-rules(5)'s example is a config that watcher check accepts")
  func example() throws {
    let text = try page("watcher-rules.5")
    let section = try #require(text.range(of: ".SH EXAMPLE\n.EX\n"))
    let end = try #require(text.range(of: "\n.EE", range: section.upperBound..<text.endIndex))
    let yaml = String(text[section.upperBound..<end.lowerBound])
      .replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\(aq", with: "'")
      .replacingOccurrences(of: "\\e", with: "\\")
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("watcher-man-\(UUID()).yaml")
    defer { try? FileManager.default.removeItem(at: file) }
    try yaml.write(to: file, atomically: true, encoding: .utf8)
    let (code, out, err) = run(["check", "--config", file.path])
    #expect(code == 0, "\(err)")
    #expect(out.contains("1 feed, 3 rules"), "\(out)")
  }

  @Test("groff renders both pages without a warning")
  func renders() throws {
    let groff = try #require(
      ["/usr/bin/groff", "/bin/groff"].first { FileManager.default.isExecutableFile(atPath: $0) },
      "groff comes with Debian's groff-base package (Scripts/packages.sh)")
    for name in ["watcher.1", "watcher-rules.5"] {
      let (status, _, err) = try execute(
        groff, ["-man", "-Tutf8", "-ww", "-z", directory.appendingPathComponent(name).path])
      #expect(status == 0 && err.isEmpty, "\(name): \(err)")
    }
  }
}

@Suite("README quick start")
struct QuickStartTests {
  @Test("Scripts/quickstart.sh in a clean HOME with no desktop: checks, dry-runs, polls for real, explains")
  func quickStart() throws {
    let binary = try #require(BinaryTests.binary)
    let home = try TemporaryDirectory()
    // What a fresh login shell without a desktop session has; the build step is skipped (WATCHER_BIN).
    let environment = [
      "HOME": home.url.path, "PATH": "/usr/bin:/bin", "TMPDIR": home.url.path, "WATCHER_BIN": binary.path,
      "LANG": "C.UTF-8",
    ]
    let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/quickstart.sh").path
    let result = try ChildProcess.run("/bin/bash", [script], environment: environment)
    #expect(result.status == 0, "\(result.errors)")
    let out = result.output
    for expected in [
      "rules.example.yaml: 2 feeds, 5 rules: OK",
      "6 items in 2 feeds: 5 touched, 1 muted, 4 notifications, 1 hook",
      "swift: 3 new: 1 to notify, kept (no session bus), 1 muted, 1 matched no rule",
      "advisories: 3 new: 3 to notify, kept (no session bus), 1 hook",
      "poll: 2 of 2 feeds polled, 6 new items, 5 actions",
      "cannot reach the desktop notification service",
      "No desktop session here",
      "FEED        LAST POLL",
    ] {
      #expect(out.contains(expected), "missing '\(expected)' in:\n\(out)")
    }
    #expect(out.contains("CVE-2026-0001"), "the example hook's archive is shown")
    // Nothing is left behind: the scratch directory (under TMPDIR, the home here) is gone.
    let created = try FileManager.default.contentsOfDirectory(atPath: home.url.path)
    #expect(created.isEmpty, "\(created)")
  }
}

@Suite("Packages")
struct PackageListTests {
  /// One of Scripts/packages.sh's lists, as bash reads it.
  static func list(_ name: String) throws -> [String] {
    let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/packages.sh").path
    let result = try ChildProcess.run("/bin/bash", ["-c", ". '\(script)'; printf '%s\\n' \"${\(name)[@]}\""])
    #expect(result.status == 0, "\(result.errors)")
    return result.output.split(separator: "\n").map(String.init)
  }

  @Test("the quick start installs what the build and the main job need, never a test tool or notification server")
  func quickStartInstallsLittle() throws {
    let build = try Self.list("WATCHER_BUILD_PACKAGES")
    let test = try Self.list("WATCHER_TEST_PACKAGES")
    #expect(build.count <= 7, "\(build)")
    for tool in ["dunst", "xfce4-notifyd", "notification-daemon", "sfeed", "lintian", "xdotool", "python3-pyatspi"] {
      #expect(!build.contains(tool), "\(tool) is a test tool")
      #expect(test.contains(tool), "\(tool) is not installed for the tests")
    }
    #expect(Set(build).isDisjoint(with: test))
  }
}
