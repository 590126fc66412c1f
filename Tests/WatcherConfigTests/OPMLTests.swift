// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing

@testable import WatcherConfig

@Suite("OPML and config editing")
struct OPMLTests {
  static let nested = """
    <?xml version="1.0" encoding="UTF-8"?>
    <opml version="1.0">
      <head><title>My feeds</title></head>
      <body>
        <outline text="Tech" title="Tech">
          <outline type="rss" text="LWN.net" xmlUrl="https://lwn.net/headlines/rss"/>
          <outline text="Open Source">
            <outline type="rss" text="Caf&#233; &amp; Code" xmlUrl="https://example.org/feed?a=1&amp;b=2"/>
          </outline>
          <outline type="link" text="a web page, not a feed" url="https://example.org/"/>
        </outline>
        <outline type="rss" text="LWN again, in another folder" xmlUrl="https://lwn.net/headlines/rss"/>
        <outline type="rss" xmlUrl="https://b.example/atom.xml" category="/News/World,Daily"/>
      </body>
    </opml>
    """

  @Test("folders and categories become tags; a feed in two folders is one subscription; links are not feeds")
  func parse() throws {
    let subscriptions = try OPML.parse(Data(Self.nested.utf8))
    #expect(
      subscriptions == [
        OPMLSubscription(url: "https://lwn.net/headlines/rss", title: "LWN.net", tags: ["tech"]),
        OPMLSubscription(url: "https://example.org/feed?a=1&b=2", title: "Café & Code", tags: ["tech", "open-source"]),
        OPMLSubscription(url: "https://b.example/atom.xml", title: nil, tags: ["news", "world", "daily"]),
      ])
  }

  @Test("an OPML file in another encoding is read")
  func encoding() throws {
    let latin1 = try #require(
      "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><opml><body><outline text=\"Caf\u{E9}\" xmlUrl=\"https://c.example/\"/></body></opml>"
        .data(using: .isoLatin1))
    #expect(try OPML.parse(latin1).first?.title == "Café")
  }

  static let malformed: [(String, String)] = [
    ("", "the file is empty"),
    ("<opml><body><outline text=\"a\" xmlUrl=\"https://a/\"><outline", "3:9: not well-formed XML"),  // truncated: where
    ("<rss version=\"2.0\"><channel/></rss>", "not an OPML document: found <rss>"),
    ("{\"feeds\": []}", "not well-formed XML"),
    ("<opml><body><outline text=\"a\" xmlUrl=\"https://a/\"></body></opml>", "not well-formed XML"),
  ]

  @Test("malformed OPML is refused with where and what", arguments: malformed)
  func refused(_ text: String, _ message: String) {
    let text = text.replacingOccurrences(of: "<outline", with: "\n<outline")
    #expect {
      try OPML.parse(Data(text.utf8))
    } throws: { error in
      "\(error)".contains(message)
    }
  }

  @Test("an entity bomb in OPML expands nothing")
  func bomb() throws {
    let bomb = """
      <?xml version="1.0"?>
      <!DOCTYPE opml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
      <opml><body><outline text="&c;" xmlUrl="https://a.example/"/></body></opml>
      """
    let subscriptions = try OPML.parse(Data(bomb.utf8))
    #expect(subscriptions.count == 1)
    #expect((subscriptions.first?.title ?? "").count < 100)
  }

  static let config = """
    # my config
    settings:
      interval: 30m   # keep this

    feeds:
      # the one I care about
      - url: https://www.swift.org/atom.xml
        name: swift

    # rules below
    rules:
      - match: { title: release }
        notify: true

    """

  @Test("adding feeds keeps every comment and line of the config, in place")
  func editInPlace() throws {
    let subscriptions = [
      OPMLSubscription(url: "https://WWW.swift.org/atom.xml/", title: "Swift", tags: []),
      OPMLSubscription(url: "https://a.example/feed", title: "Swift", tags: ["news"]),
      OPMLSubscription(url: "https://b.example/\"quoted\"\\", title: nil, tags: []),
    ]
    let config = try ConfigLoader.parse(Self.config, path: "rules.yaml")
    let plan = ConfigEditor.plan(subscriptions, into: config)
    #expect(plan.skipped == ["https://WWW.swift.org/atom.xml/"])
    #expect(plan.added.map(\.name) == ["swift-2", "b-example-quoted"])
    let edited = try ConfigEditor.adding(plan.added, to: Self.config, path: "rules.yaml")
    let expected = Self.config.replacingOccurrences(
      of: "    name: swift\n",
      with: """
            name: swift
          - url: "https://a.example/feed"
            name: "swift-2"
            title: "Swift"
            tags: ["news"]
          - url: "https://b.example/\\"quoted\\"\\\\"
            name: "b-example-quoted"

        """)
    #expect(edited == expected)
    let loaded = try ConfigLoader.parse(edited, path: "rules.yaml")
    #expect(
      loaded.feeds.map(\.url) == [
        "https://www.swift.org/atom.xml", "https://a.example/feed", "https://b.example/\"quoted\"\\",
      ])
    #expect(loaded.settings.interval == 1_800)
  }

  @Test("no feeds key, an empty flow list, and a flow list that cannot be edited")
  func otherShapes() throws {
    let feed = [FeedConfig(url: "https://a.example/", name: "a")]
    #expect(
      try ConfigEditor.adding(feed, to: "", path: "c") == "feeds:\n  - url: \"https://a.example/\"\n    name: \"a\"\n")
    let rulesOnly = "settings:\n  interval: 1h\n"
    #expect(try ConfigEditor.adding(feed, to: rulesOnly, path: "c").hasPrefix(rulesOnly + "feeds:\n  - url:"))
    #expect(
      try ConfigEditor.adding(feed, to: "feeds: []  # none yet\n", path: "c").hasPrefix("feeds:  # none yet\n  - url"))
    #expect(throws: ConfigEditor.EditError.self) {
      try ConfigEditor.adding(feed, to: "feeds: [{ url: https://b.example/ }]\n", path: "c")
    }
    // Items at the key's own indentation are a valid block list; the new ones follow that layout.
    let flush = "feeds:\n- url: https://b.example/\nrules: []\n"
    #expect(
      try ConfigEditor.adding(feed, to: flush, path: "c")
        == "feeds:\n- url: https://b.example/\n- url: \"https://a.example/\"\n  name: \"a\"\nrules: []\n")
  }

  @Test("export then import gives back the same feeds, names and tags")
  func roundTrip() throws {
    let feeds = [
      FeedConfig(url: "https://a.example/feed?x=1&y=<2>", name: "a-feed", tags: ["news", "world"]),
      FeedConfig(url: "https://b.example/atom.xml", name: "Café \"B\"", tags: []),
    ]
    let exported = OPML.export(feeds, date: Date(timeIntervalSince1970: 0))
    #expect(exported.contains("<dateCreated>Thu, 01 Jan 1970 00:00:00 GMT</dateCreated>"))
    let imported = try OPML.parse(Data(exported.utf8))
    #expect(imported.map(\.url) == feeds.map(\.url))
    #expect(imported.map(\.tags) == feeds.map(\.tags))
    // The names come back as they were (rules that name the feeds still do).
    let plan = ConfigEditor.plan(imported, into: Config())
    #expect(plan.added.map(\.name) == ["a-feed", "Café \"B\""])
    // A list from elsewhere (no names) is named from its titles; a name with a control character is not kept.
    var foreign = imported
    foreign[0].name = nil
    foreign[1].name = "bad\u{1B}[2J"
    #expect(ConfigEditor.plan(foreign, into: Config()).added.map(\.name) == ["a-feed", "café-b"])
  }
}
