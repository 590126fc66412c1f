// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherCLI
import WatcherSupport
import WatcherTestSupport

/// Runs the CLI in-process and returns (exit status, stdout, stderr).
func run(_ arguments: [String], stdin: Data = Data()) -> (Int32, String, String) {
  let recording = TerminalRecording()
  // Read in pieces, as a pipe is, each going on where the last stopped.
  let unread = Locked(stdin[...])
  let terminal = Terminal(
    output: { recording.writeOutput($0) }, errors: { recording.writeErrors($0) },
    readInput: { count in
      unread.withLock { rest in
        let piece = rest.prefix(count)
        rest = rest.dropFirst(piece.count)
        return Data(piece)
      }
    })
  let status = WatcherCLI.run(arguments, terminal: terminal)
  return (status, recording.output, recording.errors)
}

let fixture = Fixtures.url("Feeds/rss/rss20-namespaces.xml").path

@Suite("Command line")
struct CLITests {
  /// argv → exit status and a fragment of stderr.
  static let usageErrors: [([String], Int32, String)] = [
    ([], 64, "usage: watcher COMMAND"),
    (["pares", "x"], 64, "did you mean 'parse'?"),
    (["frobnicate"], 64, "see 'watcher --help'"),
    (["parse"], 64, "needs exactly one FILE"),
    (["parse", "a", "b"], 64, "needs exactly one FILE"),
    (["parse", "--jsn", "x"], 64, "did you mean '--json'?"),
    (["parse", "--max-size"], 64, "needs a value"),
    (["parse", "--max-size", "ten", "x"], 64, "--max-size takes a whole number of bytes above 0; 'ten' is not one"),
    (["parse", "--json=yes", "x"], 64, "takes no value"),
    (["help", "nosuch"], 64, "unknown command 'nosuch'"),
    (["--bogus"], 64, "a command comes first"),
    (["parse", "/nonexistent/feed.xml"], 1, "/nonexistent/feed.xml: cannot read: No such file or directory"),
    (["parse", "/"], 1, "cannot read: it is a directory, not a file"),
  ]

  @Test("usage errors exit 64 with a hint; unreadable files exit 1", arguments: usageErrors)
  func errors(_ arguments: [String], _ status: Int32, _ message: String) {
    let (code, out, err) = run(arguments)
    #expect(code == status)
    #expect(err.contains(message), "stderr was: \(err)")
    #expect(out.isEmpty)
  }

  @Test("--version, --help and help COMMAND")
  func help() {
    #expect(run(["--version"]).1 == "watcher \(WatcherCLI.version)\n")
    let (code, out, _) = run(["--help"])
    #expect(code == 0)
    #expect(out.contains("parse") && out.contains("--version"))
    let (helpCode, parseHelp, _) = run(["help", "parse"])
    #expect(helpCode == 0)
    #expect(parseHelp.contains("--json") && parseHelp.contains("--charset") && parseHelp.contains("--max-size"))
    #expect(run(["parse", "--help"]).1 == parseHelp)
    #expect(parseHelp.contains("FILE|URL|-") && parseHelp.contains("http(s) URL"))
    let (helpHelpCode, helpHelp, _) = run(["help", "help"])
    #expect(helpHelpCode == 0 && helpHelp.hasPrefix("usage: watcher help [COMMAND]"))
    // What --help points to is installed (make install puts both man pages in place).
    #expect(out.contains("man watcher") && out.contains("man watcher-rules"))
  }

  @Test("parse prints a readable summary, warnings on stderr as FILE:LINE:COL")
  func parseText() throws {
    let (code, out, err) = run(["parse", fixture])
    #expect(code == 0)
    // The count comes last: a file's items are written as they are read.
    #expect(out.hasPrefix("Swift & Linux [rss-2.0] https://example.com/\n\n"))
    #expect(out.hasSuffix("\n\n3 items\n"))
    #expect(out.contains("2012-01-24 14:00  Swift 6.1 released"))
    #expect(out.contains("    categories: release, swift, linux"))
    #expect(err.isEmpty)
    // Standard input, parsed whole, prints the same.
    #expect(run(["parse", "-"], stdin: try Data(contentsOf: URL(fileURLWithPath: fixture))).1 == out)
    let dates = Fixtures.url("Feeds/quirks/dates.xml").path
    let (_, _, warnings) = run(["parse", dates])
    #expect(warnings.contains("\(dates):11:61: warning: unparseable date 'not a date at all'; left empty"))
  }

  @Test("parse --json prints the documented schema")
  func parseJSON() throws {
    let (code, out, err) = run(["parse", "--json", fixture])
    #expect(code == 0)
    #expect(err.isEmpty)
    let doc = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
    #expect(Set(doc.keys) == ["feed", "items", "warnings"])
    let feed = try #require(doc["feed"] as? [String: Any])
    #expect(Set(feed.keys) == ["title", "link", "format"])
    let items = try #require(doc["items"] as? [[String: Any]])
    #expect(items.count == 3)
    #expect(
      Set(items[0].keys) == [
        "key", "id", "title", "link", "author", "categories", "published", "updated", "text", "html", "enclosures",
        "image",
      ])
    #expect(items[0]["published"] as? String == "2012-01-24T14:00:54Z")
    let enclosure = try #require((items[0]["enclosures"] as? [[String: Any]])?.first)
    #expect(Set(enclosure.keys) == ["url", "type", "length"])
    #expect(enclosure["length"] as? Int == 12_345)
  }

  @Test("parse's summary shows each item's first line of text, cut after 119 characters, not bytes")
  func parseTextCut() throws {
    let directory = try TemporaryDirectory()
    // 130 characters of two or more bytes each: "é" as e and a combining accent, and a flag of 8 bytes.
    let long = String(repeating: "e\u{301}", count: 100) + String(repeating: "🇫🇷", count: 30)
    let short = String(repeating: "🇫🇷", count: 120)
    let feed = directory.url.appendingPathComponent("feed.xml")
    try """
    <rss version="2.0"><channel><title>T</title>
    <item><title>long</title><description>\(long)&lt;br&gt;second line</description></item>
    <item><title>short</title><description>\(short)</description></item>
    <item><title>none</title></item>
    </channel></rss>
    """.write(to: feed, atomically: true, encoding: .utf8)
    let (code, out, _) = run(["parse", feed.path])
    #expect(code == 0)
    let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(
      lines.contains("    " + String(repeating: "e\u{301}", count: 100) + String(repeating: "🇫🇷", count: 19) + "…"))
    #expect(lines.contains("    " + short))
    #expect(!out.contains("second line"))
    #expect(out.hasSuffix("(no date)         none\n\n3 items\n"))
  }

  @Test("the summary's first line is cut where a count of every character would cut it")
  func firstLineAgreesWithCounting() {
    let pieces = ["a", " ", "e\u{301}", "\u{301}", "\r", "\r\n", "\n", "é", "東", "🇫🇷", "👩‍💻", "\u{200D}", "z"]
    var random = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      // Mostly ASCII, as text is, with the rest near the 120th character.
      // Plain, or in a Latin script with a character of two bytes (and its combining accent) here and there.
      let letters = Bool.random(using: &random) ? ["x"] : ["x", "x", "é", "ß", "©", "\u{2FF}", "\u{301}"]
      let plain = (0..<Int.random(in: 100...125, using: &random)).map { _ in letters.randomElement(using: &random)! }
        .joined()
      var tail = ""
      for _ in 0..<Int.random(in: 0...12, using: &random) { tail += pieces.randomElement(using: &random)! }
      for text in [plain + tail, tail + plain, tail] {
        // The line ends at the first line feed, also the one of a CR LF (one character to Swift).
        let whole = text[..<(text.unicodeScalars.firstIndex(of: "\n") ?? text.endIndex)]
        let expected = whole.count > 120 ? whole.prefix(119) + "…" : whole
        let (line, cut) = FeedTextWriter.firstLine(of: text)
        #expect(line + (cut ? "…" : "") == expected, "\(Array(text.unicodeScalars))")
      }
    }
  }

  @Test("parse reads standard input and file:// URLs")
  func otherSources() throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: fixture))
    let (code, out, _) = run(["parse", "--json", "-"], stdin: data)
    #expect(code == 0)
    #expect(out == run(["parse", "--json", fixture]).1)
    #expect(run(["parse", "--json", "file://" + fixture]).1 == out)
    let (tooLarge, _, err) = run(["parse", "--max-size", "100", "-"], stdin: data)
    #expect(tooLarge == 1)
    #expect(err == "error: -: the document is larger than the 100 bytes limit (--max-size BYTES raises it)\n")
    let (fileTooLarge, _, fileErr) = run(["parse", "--json", "--max-size", "100", fixture])
    #expect(fileTooLarge == 1)
    // With --json the error is JSON too, with the same words.
    #expect(
      fileErr == "{\"version\":1,\"level\":\"error\",\"message\":\"\(fixture): the document is larger than the 100 "
        + "bytes limit (--max-size BYTES raises it)\",\"details\":[]}\n")
  }

  @Test("a document that is not a feed is an error naming the file and what it is (a page: what it links to)")
  func notAFeed() throws {
    let dir = try TemporaryDirectory()
    let page = dir.url.appendingPathComponent("page.html")
    try "<!DOCTYPE html><html><head><title>Hi</title></head><body></body></html>".write(
      to: page, atomically: true, encoding: .utf8)
    let (code, out, err) = run(["parse", page.path])
    #expect(code == 1)
    #expect(out.isEmpty)
    #expect(
      err
        == "error: \(page.path): found an HTML page, not a feed, and it links to no feed: find the site's feed URL "
        + "(often /feed, /rss or /atom.xml)\nnote: no list of posts on it either: the page has almost no content of "
        + "its own (an app that renders in the browser?)\n")
    let empty = dir.url.appendingPathComponent("empty.xml")
    try Data().write(to: empty)
    #expect(run(["parse", empty.path]).2 == "error: \(empty.path): not a feed: the document is empty\n")
  }
}

/// The built binary, run as users run it.
@Suite("watcher binary")
struct BinaryTests {
  /// The binary the end-to-end tests run: `WATCHER_TEST_BINARY` when set (Scripts/test.sh sets it to the
  /// static release build that the quick start, `make install` and the package ship), else the debug build.
  static let binary: URL? = {
    if let shipped = ProcessInfo.processInfo.environment["WATCHER_TEST_BINARY"], !shipped.isEmpty {
      return URL(fileURLWithPath: shipped)
    }
    let candidates = [
      Bundle.main.bundleURL.appendingPathComponent("watcher"),
      Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("watcher"),
      Fixtures.repositoryRoot.appendingPathComponent(".build/debug/watcher"),
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }()

  @Test("watcher parse --json matches the in-process output and exits 0")
  func endToEnd() throws {
    let binary = try #require(Self.binary, "the watcher binary is built by 'swift build' before 'swift test'")
    let result = try ChildProcess.run(binary, ["parse", "--json", fixture])
    #expect(result.status == 0)
    #expect(result.output == run(["parse", "--json", fixture]).1)
  }

  @Test(
    "a parse pinned to one processor (taskset -c 0) keeps no second thread; with two it has one",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset")))
  func onePinnedProcessorOneThread() throws {
    let binary = try #require(Self.binary)
    /// The threads of `watcher parse --json -` once it has written most of a feed of 20,000 items and waits
    /// for the rest of its input.
    func threads(pinned: Bool) throws -> Int {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: pinned ? "/usr/bin/taskset" : binary.path)
      process.arguments = (pinned ? ["-c", "0", binary.path] : []) + ["parse", "--json", "-"]
      let input = Pipe()
      let output = Pipe()
      process.standardInput = input
      process.standardOutput = output
      try process.run()
      let items = (0..<20_000).map { "<item><title>T\($0)</title><description>a &lt;b&gt; c</description></item>" }
      let feed = Data(("<rss version=\"2.0\"><channel><title>x</title>" + items.joined()).utf8)
      let writer = input.fileHandleForWriting
      DispatchQueue.global().async { writer.write(feed) }
      var read = 0
      while read < 1_000_000 {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        read += chunk.count
      }
      let count = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/task").count
      try writer.close()
      _ = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      return count
    }
    #expect(try threads(pinned: true) == 1)
    if Processors.available > 1 { #expect(try threads(pinned: false) == 2) }
  }

  @Test("the hooks' CPU time counts as watcher's: a shell's times shows the hooks' busy loops in its child's")
  func hookTimeCounted() throws {
    let binary = try #require(Self.binary)
    let dir = try TemporaryDirectory()
    let items = (1...3).map { "<item><title>T\($0)</title><guid>g\($0)</guid></item>" }.joined()
    try Data("<rss version=\"2.0\"><channel><title>F</title>\(items)</channel></rss>".utf8)
      .write(to: dir.url.appendingPathComponent("feed.xml"))
    // Each hook burns CPU in its own shell, then records that shell's own time ("times": first line; not in
    // a pipeline, whose subshell would report its own).
    let hook =
      "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done; times > \(dir.url.path)/t$$; head -n 1 \(dir.url.path)/t$$ >> \(dir.url.path)/own"
    try Data(
      """
      settings: { state_dir: \(dir.url.path)/state, first_poll: all, max_age: none }
      feeds: [{ name: f, url: \(dir.url.path)/feed.xml }]
      rules: [{ match: { title: T }, hook: { command: '\(hook)' } }]
      """.utf8
    ).write(to: dir.url.appendingPathComponent("rules.yaml"))
    // The outer shell's "times" second line is its children's: watcher and all it waited for.
    let result = try ChildProcess.run(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "\"$0\" poll --config \"$1\" >/dev/null; times", binary.path, dir.url.path + "/rules.yaml"])
    func seconds(_ line: Substring) -> Double {
      line.split(separator: " ").reduce(0) { total, field in
        let parts = field.dropLast().split(separator: "m")
        return total + (Double(parts.first ?? "0") ?? 0) * 60 + (Double(parts.last ?? "0") ?? 0)
      }
    }
    let children = try #require(result.output.split(separator: "\n").last)
    let hooks = try String(contentsOf: dir.url.appendingPathComponent("own"), encoding: .utf8)
      .split(separator: "\n").map(seconds)
    #expect(hooks.count == 3)
    #expect(hooks.reduce(0, +) > 0.05, "the hooks' loops take measurable time")
    #expect(seconds(children) >= hooks.reduce(0, +), "children: \(children), hooks: \(hooks)")
  }

  @Test(
    "hooks run when the user cannot read watcher's program (not dumpable: no /proc access to its descriptors)",
    .enabled(if: getuid() == 0, "needs root to run the binary as another user"))
  func hooksWithoutProcAccess() throws {
    let binary = try #require(Self.binary)
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    // An execute-only copy, owned by root and started by a shell of nobody's: the kernel makes such a
    // process non-dumpable, so no other process of the user may open its descriptors through /proc/PID/fd.
    // (Started by setpriv straight from root, it stays dumpable.)
    let program = path + "/watcher"
    try FileManager.default.copyItem(atPath: binary.path, toPath: program)
    chmod(program, 0o711)
    // Writable by nobody's process, sticky like /tmp (a config in a directory anyone could replace it in is
    // refused).
    chmod(path, 0o1777)
    let items = (1...3).map { "<item><title>T\($0)</title><guid>g\($0)</guid></item>" }.joined()
    try Data("<rss version=\"2.0\"><channel><title>F</title>\(items)</channel></rss>".utf8)
      .write(to: dir.url.appendingPathComponent("feed.xml"))
    try Data(
      """
      settings: { state_dir: \(path)/state, first_poll: all, max_age: none }
      feeds: [{ name: f, url: \(path)/feed.xml }]
      rules: [{ match: { title: T }, hook: 'printf "%s\\n" "$WATCHER_TITLE" >> \(path)/out' }]
      """.utf8
    ).write(to: dir.url.appendingPathComponent("rules.yaml"))
    for file in ["feed.xml", "rules.yaml"] { chmod(path + "/" + file, 0o644) }
    let result = try ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/setpriv"),
      [
        "--reuid=65534", "--regid=65534", "--clear-groups", "--", "/bin/sh", "-c", "exec \"$0\" \"$@\"", program,
        "poll", "--config", path + "/rules.yaml",
      ],
      environment: ["PATH": "/usr/bin:/bin", "HOME": path])
    #expect(result.status == 0, "\(result.errors)")
    let out = try String(contentsOfFile: path + "/out", encoding: .utf8)
    #expect(out.split(separator: "\n").sorted() == ["T1", "T2", "T3"], "\(out)")
  }

  @Test("reading local files never loads libcurl; fetching a URL does")
  func curlOnlyToFetch() throws {
    let binary = try #require(Self.binary)
    let dir = try TemporaryDirectory()
    let page = dir.url.appendingPathComponent("page.html")
    let story = String(repeating: "A sentence of the story. ", count: 40)
    try Data("<html><body><article><p>\(story)</p></article></body></html>".utf8).write(to: page)
    // The dynamic loader lists every library it loads, dlopen's included, on stderr.
    func loadsCurl(_ arguments: [String]) throws -> Bool {
      var environment = ProcessInfo.processInfo.environment
      environment["LD_DEBUG"] = "libs"
      return try ChildProcess.run(binary, arguments, environment: environment).errors.contains("libcurl.so")
    }
    #expect(try !loadsCurl(["extract", page.path]))
    #expect(try !loadsCurl(["parse", fixture]))
    #expect(try !loadsCurl(["parse", "--json", fixture]))
    // Port 1 on loopback refuses at once: a fetch that fails, but a fetch.
    #expect(try loadsCurl(["parse", "http://127.0.0.1:1/feed.xml"]))
  }

  @Test("a missing file exits 1 with the message on stderr")
  func missingFile() throws {
    let binary = try #require(Self.binary)
    let result = try ChildProcess.run(binary, ["parse", "/nonexistent.xml"])
    #expect(result.status == 1)
    #expect(result.errors == "error: /nonexistent.xml: cannot read: No such file or directory\n")
  }
}

@Suite("parse URL")
struct ParseURLTests {
  @Test("parse fetches http URLs, resolves relative links against the final URL, and reports HTTP errors")
  func fetches() throws {
    let server = try LoopbackHTTPServer { request in
      switch request.path {
      case "/feed":
        return .ok(
          "<rss version=\"2.0\"><channel><title>Remote</title><item><title>Caf\u{E9}</title><link>/post/1</link></item></channel></rss>",
          headers: [("Content-Type", "application/rss+xml; charset=utf-8")])
      case "/moved": return .init(status: 301, headers: [("Location", "/feed")])
      default: return .init(status: 404)
      }
    }
    defer { server.stop() }
    let (code, out, err) = run(["parse", "--json", server.url("/moved")])
    #expect(code == 0, "\(err)")
    #expect(out.contains("\"title\":\"Remote\""))
    #expect(out.contains("\"link\":\"\(server.url("/post/1"))\""))
    let (missing, _, message) = run(["parse", server.url("/nothing")])
    #expect(missing == 1)
    #expect(message == "error: \(server.url("/nothing")): HTTP 404\n")
  }
}
