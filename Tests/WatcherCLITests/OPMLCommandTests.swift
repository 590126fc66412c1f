// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherTestSupport

#if canImport(Glibc)
  import Glibc
#endif

@Suite("import-opml and export-opml")
struct OPMLCommandTests {
  static let opml = """
    <opml version="2.0"><body>
      <outline text="Linux"><outline text="LWN" xmlUrl="https://lwn.net/headlines/rss"/></outline>
      <outline text="Swift" xmlUrl="https://www.swift.org/atom.xml"/>
    </body></opml>
    """
  static let config = "# mine\nfeeds:\n  - url: https://www.swift.org/atom.xml  # keep\n    name: swift\n"

  @Test("import edits the config in place with a backup, skips what is there, and is idempotent")
  func importInPlace() throws {
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let opml = dir.url.appendingPathComponent("subs.opml").path
    try Self.config.write(toFile: config, atomically: true, encoding: .utf8)
    try Self.opml.write(toFile: opml, atomically: true, encoding: .utf8)

    let (printCode, printed, printNote) = run(["import-opml", opml, "--config", config, "--print"])
    #expect(printCode == 0 && printNote.contains("1 new feed; skipped 1"))
    #expect(
      printed
        == "feeds:\n  - url: \"https://lwn.net/headlines/rss\"\n    name: \"lwn\"\n    title: \"LWN\"\n    tags: [\"linux\"]\n"
    )
    #expect(try String(contentsOfFile: config, encoding: .utf8) == Self.config, "--print wrote the config")

    let (code, out, err) = run(["import-opml", opml, "--config", config])
    #expect(code == 0, "\(err)")
    #expect(out.contains("added 1 feed; skipped 1 already in the config") && out.contains("rules.yaml.bak"))
    #expect(try String(contentsOfFile: config + ".bak", encoding: .utf8) == Self.config)
    let edited = try String(contentsOfFile: config, encoding: .utf8)
    #expect(edited == Self.config + printed.dropFirst("feeds:\n".count))
    #expect(run(["check", "--config", config]).1.contains("2 feeds, 0 rules: OK"))

    #expect(run(["import-opml", opml, "--config", config]).1.contains("nothing to add"))
    #expect(try String(contentsOfFile: config, encoding: .utf8) == edited)

    // export, then import into a new config: the same feeds and tags.
    let (exportCode, exported, _) = run(["export-opml", "--config", config])
    #expect(exportCode == 0 && exported.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">"))
    let fresh = dir.url.appendingPathComponent("new/rules.yaml").path
    #expect(run(["import-opml", "-", "--config", fresh], stdin: Data(exported.utf8)).0 == 0)
    #expect(
      run(["export-opml", "--config", fresh]).1.split(separator: "\n").filter { $0.contains("<outline") }
        == exported.split(separator: "\n").filter { $0.contains("<outline") })
  }

  @Test("export keeps watcher's names and the site's htmlUrl; import reads them back, so rules naming a feed still do")
  func roundTripNames() throws {
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    feeds:
      - { url: "https://lwn.net/headlines/rss", name: kernel-news, title: LWN, site: "https://lwn.net/", tags: [linux] }
      - { url: "https://www.swift.org/atom.xml", name: swift }
    rules:
      - { name: k, feeds: [kernel-news], match: { title: "" }, notify: true }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let exported = run(["export-opml", "--config", config]).1
    #expect(exported.contains("htmlUrl=\"https://lwn.net/\" name=\"kernel-news\""), "\(exported)")
    // Into a new config; then the first config's rules, which name the feeds, load with it.
    let fresh = dir.url.appendingPathComponent("new.yaml").path
    let (code, _, err) = run(["import-opml", "-", "--config", fresh], stdin: Data(exported.utf8))
    #expect(code == 0, "\(err)")
    try
      (String(contentsOfFile: fresh, encoding: .utf8)
      + "rules:\n  - { name: k, feeds: [kernel-news], match: { title: \"\" }, notify: true }\n").write(
        toFile: fresh, atomically: true, encoding: .utf8)
    let loaded = try ConfigLoader.load(path: fresh)
    #expect(loaded.feeds.map(\.name) == ["kernel-news", "swift"])
    #expect(loaded.feeds[0].site == "https://lwn.net/" && loaded.feeds[0].title == "LWN")
    #expect(
      run(["export-opml", "--config", fresh]).1.split(separator: "\n").filter { $0.contains("<outline") }
        == exported.split(separator: "\n").filter { $0.contains("<outline") })
  }

  @Test("malformed OPML and a broken config are refused and nothing is written")
  func refusals() throws {
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let opml = dir.url.appendingPathComponent("subs.opml").path
    try "<opml><body><outline text=\"x\" xmlUrl=\"https://x/\">\n</bod".write(
      toFile: opml, atomically: true, encoding: .utf8)
    try Self.config.write(toFile: config, atomically: true, encoding: .utf8)
    let (code, _, err) = run(["import-opml", opml, "--config", config])
    #expect(code == 1 && err.contains("subs.opml:2:") && err.contains("not well-formed XML"), "\(err)")

    try Self.opml.write(toFile: opml, atomically: true, encoding: .utf8)
    let broken = Self.config + "  - url: 42\n    bogus: true\n"
    try broken.write(toFile: config, atomically: true, encoding: .utf8)
    let (brokenCode, _, brokenErr) = run(["import-opml", opml, "--config", config])
    #expect(brokenCode == 78 && brokenErr.contains("unknown key 'bogus'") && brokenErr.contains("fix the config first"))
    #expect(try String(contentsOfFile: config, encoding: .utf8) == broken)
    #expect(!FileManager.default.fileExists(atPath: config + ".bak"))
    #expect(run(["import-opml"]).0 == 64)
  }

  @Test("import adds web feeds only and names every outline it skipped, and why")
  func webFeedsOnly() throws {
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let opml = dir.url.appendingPathComponent("subs.opml").path
    try """
    <opml version="2.0"><body>
      <outline text="Local" xmlUrl="file:///etc/passwd"/>
      <outline text="Path" xmlUrl="/home/u/feed.xml"/>
      <outline text="Script" xmlUrl="javascript:alert(1)"/>
      <outline text="Ok" xmlUrl="HTTPS://example.com/feed"/>
    </body></opml>
    """.write(toFile: opml, atomically: true, encoding: .utf8)
    let (code, out, err) = run(["import-opml", opml, "--config", config])
    #expect(code == 0, "\(err)")
    #expect(out.contains("added 1 feed; skipped 3 that are not http(s) feeds"), "\(out)")
    for url in ["file:///etc/passwd", "/home/u/feed.xml", "javascript:alert(1)"] {
      #expect(err.contains("skipped '\(url)': not an http or https URL"), "\(err)")
    }
    let text = try String(contentsOfFile: config, encoding: .utf8)
    #expect(text.contains("HTTPS://example.com/feed") && !text.contains("passwd") && !text.contains("javascript"))
  }

  @Test("import reads only a regular file (a FIFO would hang)")
  func fifo() throws {
    let dir = try TemporaryDirectory()
    let fifo = dir.url.appendingPathComponent("subs.opml").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let (code, _, err) = run(["import-opml", fifo, "--config", dir.url.appendingPathComponent("rules.yaml").path])
    #expect(code == 1 && err.contains("it is a FIFO (named pipe), not a regular file"), "\(err)")
  }
}

extension OPMLCommandTests {
  @Test("import-opml writes no huge name or title, and no URL with a line break or a space, into the config")
  func importBounds() throws {
    let dir = try TemporaryDirectory()
    let huge = String(repeating: "Long title ", count: 100_000)
    let opml = """
      <opml version="2.0"><body>
      <outline type="rss" text="\(huge)" xmlUrl="https://example.org/a.xml"/>
      <outline type="rss" text="Broken" xmlUrl="https://example.org/b.xml&#10;settings: { state_dir: /tmp/x }"/>
      <outline type="rss" text="Spaced" xmlUrl="https://example.org/c d.xml"/>
      </body></opml>
      """
    let file = dir.url.appendingPathComponent("list.opml").path
    try opml.write(toFile: file, atomically: true, encoding: .utf8)
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let result = try ChildProcess.run(
      try #require(BinaryTests.binary), ["import-opml", file, "--config", config], environment: ActionTests.noBus)
    #expect(result.status == 0, "\(result.errors)")
    let text = try String(contentsOfFile: config, encoding: .utf8)
    #expect(text.utf8.count < 2_000, "\(text.utf8.count) bytes")
    #expect(!text.contains("state_dir") && !text.contains("c d.xml"), "\(text)")
    #expect(text.contains("https://example.org/a.xml"))
    #expect(result.errors.components(separatedBy: "cannot be a feed").count - 1 == 2, "\(result.errors)")
    let check = try ChildProcess.run(try #require(BinaryTests.binary), ["check", "--config", config])
    #expect(check.status == 0, "\(check.errors)")
  }
}
