// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Testing
import WatcherSupport
import WatcherTestSupport

/// State written by the release before this one (Tests/Fixtures/State/release-247cb37) loads in the built
/// binary and announces nothing old; a post that is new after the upgrade is still announced.
@Suite("Upgrade from the previous release's state", .serialized)
struct ReleaseUpgradeTests {
  /// Where that release read its feeds: the state files are keyed by these addresses.
  static let feeds = "/tmp/watcher-release-247cb37"
  static let names = ["blog", "changelog", "status", "noguid", "podcast", "json"]

  /// The config that release polled with, a hook on every item writing "feed|title" lines to `$ANNOUNCED`.
  static let config = """
    feeds:
      - { url: \(feeds)/blog.xml, name: blog }
      - { url: \(feeds)/changelog.xml, name: changelog }
      - { url: \(feeds)/status.xml, name: status }
      - { url: \(feeds)/noguid.xml, name: noguid }
      - { url: \(feeds)/podcast.xml, name: podcast }
      - { url: \(feeds)/json.json, name: json }
    rules:
      - name: every
        match: { title: "" }
        hook: 'printf "%s|%s\\n" "$WATCHER_FEED" "$WATCHER_TITLE" >> "$ANNOUNCED"'
    """

  /// A new post at the top of each fixture feed, in that feed's own shape.
  static let newPosts: [String: (String, String)] = [
    "blog.xml": (
      "<item>",
      """
      <item><title>Fourth post</title><link>https://blog.example.org/2026/fourth?utm_source=rss</link>\
      <guid isPermaLink="false">blog-4</guid><description>Four</description></item>
      """
    ),
    "changelog.xml": (
      "<entry>",
      """
      <entry><title>v1.8</title><id>urn:changelog:v1.8</id><link href="https://example.org/changelog#v1.8"/>\
      <updated>2026-12-04T00:00:00Z</updated><content>Next</content></entry>
      """
    ),
    "status.xml": (
      "<item>",
      """
      <item><title>Partial outage</title><link>https://status.example.net/</link>\
      <guid isPermaLink="false">incident-43</guid></item>
      """
    ),
    "noguid.xml": (
      "<item>",
      """
      <item><title>Forum topic</title><link>http://news.example.com/viewtopic.php?t=14&amp;sid=abc</link></item>
      """
    ),
    "podcast.xml": (
      "<item>",
      """
      <item><title>Weekly show</title><enclosure url="https://cdn.example.org/ep3.mp3" length="100" \
      type="audio/mpeg"/></item>
      """
    ),
    "json.json": (
      "{\"id\":\"j2\"",
      """
      {"id":"j3","url":"https://j.example.org/3","title":"Third JSON","content_text":"three"},
      """
    ),
  ]

  @Test("the previous release's state announces nothing it had seen, and a new post in each feed is announced")
  func upgrade() throws {
    let fixture = Fixtures.url("State/release-247cb37")
    let dir = try TemporaryDirectory()
    let state = dir.url.appendingPathComponent("state").path
    let files = FileManager.default
    try files.createDirectory(atPath: state, withIntermediateDirectories: true)
    for name in try files.contentsOfDirectory(atPath: fixture.appendingPathComponent("state").path) {
      try files.copyItem(atPath: fixture.appendingPathComponent("state/" + name).path, toPath: state + "/" + name)
    }
    try? files.removeItem(atPath: Self.feeds)
    try files.createDirectory(atPath: Self.feeds, withIntermediateDirectories: true)
    defer { try? files.removeItem(atPath: Self.feeds) }
    for name in try files.contentsOfDirectory(atPath: fixture.appendingPathComponent("feeds").path) {
      try files.copyItem(atPath: fixture.appendingPathComponent("feeds/" + name).path, toPath: Self.feeds + "/" + name)
    }
    let config = dir.url.appendingPathComponent("config.yaml").path
    try Self.config.write(toFile: config, atomically: true, encoding: .utf8)
    let announced = dir.url.appendingPathComponent("announced").path
    var environment = ActionTests.noBus
    environment["ANNOUNCED"] = announced
    environment["HOME"] = dir.url.path
    // That release last polled at 2026-12-05 17:03 UTC; poll an hour later, and a day after that.
    let hourLater = try #require(DateParser.parse("2026-12-05T18:05:00Z")).timeIntervalSinceNow
    environment["WATCHER_CLOCK_OFFSET"] = "\(Int(hourLater.rounded()))"
    let arguments = ["poll", "--config", config, "--state-dir", state]

    let (status, output) = try ActionTests.watcher(arguments, environment: environment)
    #expect(status == 0, "\(output)")
    #expect(output.contains("poll: 6 of 6 feeds polled, 0 new items, 0 actions"), "\(output)")
    #expect(!files.fileExists(atPath: announced), "\((try? String(contentsOfFile: announced, encoding: .utf8)) ?? "")")

    for (name, (before, post)) in Self.newPosts {
      let path = Self.feeds + "/" + name
      var text = try String(contentsOfFile: path, encoding: .utf8)
      text.replaceSubrange(try #require(text.firstRange(of: before), "\(name)"), with: post + before)
      try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
    environment["WATCHER_CLOCK_OFFSET"] = "\(Int(hourLater.rounded()) + 86_400)"
    let (again, second) = try ActionTests.watcher(arguments, environment: environment)
    #expect(again == 0, "\(second)")
    let lines = (try? String(contentsOfFile: announced, encoding: .utf8))?.split(separator: "\n").sorted() ?? []
    #expect(
      lines == [
        "blog|Fourth post", "changelog|v1.8", "json|Third JSON", "noguid|Forum topic", "podcast|Weekly show",
        "status|Partial outage",
      ], "\(second)")
  }
}
