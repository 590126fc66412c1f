// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport
import WatcherTestSupport

/// The README's install path, as a new user walks it, in a clean home: its shell block run as written, then
/// `watcher add` of a site's page on a loopback server, a poll that finds something new, and `watcher log`.
@Suite("README install path", .serialized)
struct InstallWalkTests {
  /// The first ```sh block of the README's "Installing" section.
  static func installBlock() throws -> String {
    let readme = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let section = try #require(readme.components(separatedBy: "## Installing").dropFirst().first)
    let block = try #require(section.components(separatedBy: "```sh\n").dropFirst().first)
    return try #require(block.components(separatedBy: "```").first)
  }

  @Test("make install, init, check, poll, status as the README says; then add a page URL, poll, log")
  func walk() throws {
    let binary = try #require(BinaryTests.binary)
    let home = try TemporaryDirectory()
    // A fresh login without a desktop; make installs the built binary instead of building a release one.
    let environment = [
      "HOME": home.url.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "WATCHER_BIN": binary.path,
    ]
    let block = try Self.installBlock()
    #expect(block.contains("make install PREFIX=~/.local") && block.contains("watcher init"))
    let steps = try ChildProcess.run(
      "/bin/bash", ["-e", "-c", block], environment: environment, in: Fixtures.repositoryRoot)
    #expect(steps.status == 0, "\(steps.output)\n\(steps.errors)")
    #expect(steps.output.contains("wrote \(home.url.path)/.config/watcher/rules.yaml"))
    #expect(steps.output.contains("rules.yaml: 2 feeds, 3 rules: OK"), "\(steps.output)")
    #expect(steps.output.contains("swift: 3 new: recorded silently (first poll"), "\(steps.output)")
    #expect(steps.output.contains("advisories") && steps.output.contains("FEED"))
    let installed = home.url.appendingPathComponent(".local/bin/watcher").path
    #expect(FileManager.default.isExecutableFile(atPath: installed))
    for page in ["share/man/man1/watcher.1", "share/man/man5/watcher-rules.5", "share/watcher/samples/swift-blog.atom"]
    {
      #expect(FileManager.default.fileExists(atPath: home.url.appendingPathComponent(".local/" + page).path), "\(page)")
    }

    // Whatever --help and the man pages point to is installed.
    func documents(in text: String) -> [String] {
      text.components(separatedBy: "share/doc/watcher/").dropFirst().map { rest in
        var name = String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." })
        while name.hasSuffix(".") { name.removeLast() }
        return name
      }
    }
    var pointers = Set<String>()
    for command in ["parse", "status", "log", "pending", "test-rules", "poll"] {
      pointers.formUnion(
        documents(in: try ChildProcess.run(installed, ["help", command], environment: environment).output))
    }
    for page in ["watcher.1", "watcher-rules.5"] {
      let url = Fixtures.repositoryRoot.appendingPathComponent("contrib/man/" + page)
      pointers.formUnion(
        documents(in: try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "\\-", with: "-")))
    }
    #expect(pointers.isSuperset(of: ["parse-json.md", "status-json.md", "log-json.md", "rules.md"]), "\(pointers)")
    for name in pointers {
      #expect(
        FileManager.default.fileExists(
          atPath: home.url.appendingPathComponent(".local/share/doc/watcher/" + name).path),
        "\(name) is pointed to but not installed")
    }
    // The installed example reads the installed samples.
    let example = home.url.appendingPathComponent(".local/share/watcher/rules.example.yaml").path
    let tried = try ChildProcess.run(installed, ["test-rules", "--config", example], environment: environment)
    #expect(tried.status == 0 && tried.output.contains("6 items in 2 feeds"), "\(tried.errors)")

    // A site: its page links to its feed; the feed gains an item later.
    let titles = Locked(["First post"])
    let server = try LoopbackHTTPServer { request in
      switch request.path {
      case "/":
        return .ok(
          "<!doctype html><html><head><link rel=\"alternate\" type=\"application/rss+xml\" href=\"/feed.xml\"></head></html>"
        )
      case "/feed.xml":
        let items = titles.withLock { $0 }.enumerated().map {
          "<item><title>\($0.element)</title><guid>p\($0.offset)</guid><link>https://blog.example/\($0.offset)</link></item>"
        }
        return .ok("<rss version=\"2.0\"><channel><title>Loopback Blog</title>\(items.joined())</channel></rss>")
      default: return LoopbackHTTPServer.Response(status: 404, headers: [], body: Data())
      }
    }
    defer { server.stop() }
    func watcher(_ arguments: [String]) throws -> ChildResult {
      try ChildProcess.run(installed, arguments, environment: environment, in: home.url)
    }
    let add = try watcher(["add", server.url("/")])
    #expect(add.status == 0 && add.output.contains("added 'loopback-blog'"), "\(add.errors)")
    let first = try watcher(["poll"])
    #expect(first.output.contains("loopback-blog: 1 new: recorded silently"), "\(first.output)")
    titles.withLock { $0.append("Version 2 released") }
    let second = try watcher(["poll", "--feed", "loopback-blog"])
    #expect(second.output.contains("loopback-blog: 1 new: 1 to notify, kept (no session bus)"), "\(second.output)")
    let log = try watcher(["log"])
    #expect(log.status == 0)
    #expect(
      log.output.contains("loopback-blog  \"Version 2 released\"  notify (rule 'releases'): not shown, kept for later"),
      "\(log.output)")
  }

  @Test("make uninstall removes exactly what make install wrote: a file a hook keeps beside them stays")
  func uninstallKeepsUserData() throws {
    let binary = try #require(BinaryTests.binary)
    let prefix = try TemporaryDirectory()
    let environment = ["HOME": prefix.url.path, "PATH": "/usr/bin:/bin", "WATCHER_BIN": binary.path]
    let arguments = ["-s", "PREFIX=\(prefix.url.path)", "UNITDIR=\(prefix.url.path)/units"]
    let install = try ChildProcess.run(
      "/usr/bin/make", ["install"] + arguments, environment: environment, in: Fixtures.repositoryRoot)
    try #require(install.status == 0, "\(install.errors)")
    let archive = prefix.url.appendingPathComponent("share/watcher/archive.jsonl").path
    try "{\"title\":\"kept\"}\n".write(toFile: archive, atomically: true, encoding: .utf8)
    let uninstall = try ChildProcess.run(
      "/usr/bin/make", ["uninstall"] + arguments, environment: environment, in: Fixtures.repositoryRoot)
    #expect(uninstall.status == 0, "\(uninstall.errors)")
    #expect(FileManager.default.fileExists(atPath: archive), "the hook's archive was deleted")
    let left = FileManager.default.enumerator(atPath: prefix.url.path)?.compactMap { $0 as? String }.filter {
      var isDirectory: ObjCBool = false
      return FileManager.default.fileExists(atPath: prefix.url.path + "/" + $0, isDirectory: &isDirectory)
        && !isDirectory.boolValue
    }
    #expect(left == ["share/watcher/archive.jsonl"], "\(left ?? [])")
  }
}
