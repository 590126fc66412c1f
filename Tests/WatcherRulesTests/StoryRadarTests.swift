// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Testing
import WatcherConfig
import WatcherFeed
import WatcherRules
import WatcherSupport

@Suite("Stories across feeds")
struct StoryRadarTests {
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  static func item(_ key: String, _ feed: String, _ title: String, minutes: Double = 0, text: String? = nil)
    -> StoryRadar.Item
  {
    StoryRadar.Item(key: key, feed: feed, title: title, text: text, time: start.addingTimeInterval(minutes * 60))
  }

  /// A radar that has placed `background`'s posts.
  static func radar() -> StoryRadar {
    var radar = StoryRadar()
    background(&radar)
    return radar
  }

  /// A background of ordinary posts of unrelated feeds, so that word weights are those of a real stream.
  static func background(_ radar: inout StoryRadar) {
    let posts = [
      "Weekly recipe: roasted pumpkin soup", "Rust 1.90 released with new lints", "City council approves bike lanes",
      "How we cut our cloud bill in half", "Review: the best budget headphones", "Kernel 7.2 merge window opens",
      "Ten tips for better sleep", "Local team wins the regional final", "A guide to sourdough starters",
      "Interview with a lighthouse keeper", "Debian 14 freeze dates announced", "Why I switched to a standing desk",
    ]
    for (index, title) in posts.enumerated() {
      radar.add(item("bg\(index)", "background \(index)", title, minutes: Double(index)))
    }
  }

  @Test("the same story from other feeds joins one story, with the words they share")
  func groups() throws {
    var radar = Self.radar()
    let first = radar.add(Self.item("a1", "Ars", "Mozilla releases Firefox 150 with vertical tabs", minutes: 30))
    let second = radar.add(Self.item("v1", "Verge", "Firefox 150 arrives with vertical tabs built in", minutes: 40))
    let third = radar.add(Self.item("h1", "HN", "Firefox 150 release notes: vertical tabs", minutes: 50))
    #expect(!first.joined)
    #expect(second.joined && second.story == first.story)
    #expect(third.joined && third.story == first.story)
    #expect(second.why.shared.contains("firefox") && second.why.shared.contains("vertical"))
    #expect(radar.feeds(of: first.story) == ["Ars", "Verge", "HN"])
    #expect(radar.stories.map(\.id) == [first.story])
  }

  @Test("unrelated posts stay alone, and a post sharing one word joins nothing")
  func alone() throws {
    var radar = Self.radar()
    let story = radar.add(Self.item("a1", "Ars", "Mozilla releases Firefox 150 with vertical tabs", minutes: 30))
    let unrelated = radar.add(Self.item("x1", "Cooking", "Mozzarella pizza at home in ten minutes", minutes: 35))
    let oneWord = radar.add(Self.item("x2", "Gardening", "Vertical gardens for small balconies", minutes: 36))
    #expect(!unrelated.joined && unrelated.story != story.story)
    #expect(!oneWord.joined && oneWord.story != story.story)
    #expect(oneWord.why.refused != nil, "the explanation says why it did not join")
    #expect(radar.stories.isEmpty)
  }

  @Test("two posts of one feed are never one story by their words alone")
  func sameFeed() throws {
    var radar = Self.radar()
    let first = radar.add(Self.item("a1", "Ars", "Firefox 150 released with vertical tabs", minutes: 30))
    let again = radar.add(Self.item("a2", "Ars", "Firefox 150 released with vertical tabs, part two", minutes: 31))
    #expect(!again.joined && again.story != first.story)
    #expect(again.why.refused == "only items of this feed")
    // Once another feed ties the story, a later post of the first feed may join it.
    let other = radar.add(Self.item("v1", "Verge", "Firefox 150 released with vertical tabs", minutes: 32))
    #expect(other.joined)
  }

  @Test("a feed's own items are no evidence for its next one: a show's episodes do not pile into a story")
  func ownFeedNoEvidence() throws {
    var radar = Self.radar()
    // An episode reads like another feed's post by chance; the story then has two feeds.
    let post = radar.add(Self.item("n1", "News", "Game studio layoffs: five years of growth undone", minutes: 20))
    let episode = radar.add(Self.item("p1", "Podcast", "The Weekly Show: game studio layoffs", minutes: 21))
    #expect(episode.joined && episode.story == post.story)
    // The show's next episodes share "weekly show" with its own item only: they stay alone.
    for (index, guest) in ["Ada, a violinist", "the mayor of Leeds", "Kim and Sam"].enumerated() {
      let next = radar.add(
        Self.item("p\(index + 2)", "Podcast", "The Weekly Show: with \(guest)", minutes: 22 + Double(index)))
      #expect(!next.joined && next.story != post.story, "\(next.why)")
    }
    // Another feed's report of the story still joins it.
    let more = radar.add(Self.item("m1", "Wire", "Game studio layoffs undo five years of growth", minutes: 30))
    #expect(more.joined && more.story == post.story)
    #expect(radar.feeds(of: post.story) == ["News", "Podcast", "Wire"])
  }

  @Test("headlines that share only a date are not one story; a year still counts")
  func datesAreNoEvidence() throws {
    var radar = Self.radar()
    let first = radar.add(Self.item("a1", "Markets", "Opening bell 10 March: Asian markets slump", minutes: 20))
    let second = radar.add(Self.item("b1", "Photos", "News in pictures, Monday 10 March", minutes: 21))
    #expect(!second.joined && second.story != first.story)
    #expect(second.why.refused?.contains("dates not counted") == true, "\(second.why)")
    let festival = radar.add(Self.item("c1", "Austin", "SXSW 2014 opens Friday", minutes: 22))
    let guide = radar.add(Self.item("d1", "Music", "Your guide to SXSW 2014", minutes: 23))
    #expect(guide.joined && guide.story == festival.story, "\(guide.why)")
  }

  @Test("function words of other languages are not shared words: French and German headlines stay apart")
  func otherLanguagesStopWords() throws {
    var radar = Self.radar()
    let french = radar.add(Self.item("f1", "Le Monde", "La recette magique de la tarte aux pommes", minutes: 20))
    let other = radar.add(Self.item("f2", "Figaro", "La France et la question de la dette", minutes: 21))
    #expect(!other.joined && other.story != french.story, "\(other.why)")
    let german = radar.add(Self.item("g1", "Podcast", "Die mit dem Elefanten und der Giraffe", minutes: 22))
    let blog = radar.add(Self.item("g2", "Blog", "Event-Handling mit JavaScript und ohne jQuery", minutes: 23))
    #expect(!blog.joined && blog.story != german.story, "\(blog.why)")
    // The same story in French still groups.
    let report = radar.add(Self.item("f3", "Libération", "Fusillade à l'aéroport de Fort Lauderdale", minutes: 24))
    let again = radar.add(
      Self.item("f4", "Le Parisien", "Fort Lauderdale : ce que l'on sait de la fusillade à l'aéroport", minutes: 25))
    #expect(again.joined && again.story == report.story, "\(again.why)")
  }

  @Test("a story takes no item after its window, and what is kept is bounded")
  func bounded() throws {
    var settings = StoryRadar.Settings()
    settings.maxItems = 50
    var radar = StoryRadar(settings: settings)
    let first = radar.add(Self.item("a1", "Ars", "Firefox 150 released with vertical tabs"))
    let late = radar.add(Self.item("v1", "Verge", "Firefox 150 released with vertical tabs", minutes: 73 * 60))
    #expect(!late.joined && late.story != first.story)
    for index in 0..<200 {
      radar.add(Self.item("n\(index)", "feed \(index % 7)", "Post number \(index) about topic \(index % 13)"))
    }
    #expect(radar.entries.count == 50)
    #expect(radar.document.count < 50 * 1_000)
    // Long titles, links, keys and words: every field cut, and the items within the byte budget.
    settings.maxItems = 4_000
    settings.maxBytes = 100_000
    var large = StoryRadar(settings: settings)
    let long = String(repeating: "x", count: 5_000)
    for index in 0..<500 {
      var item = Self.item(long + "\(index)", "feed \(index % 7)", "\(index) " + long + " " + long + "y", minutes: 1)
      item.link = "https://example.org/" + long
      item.text = String(repeating: "word\(index) ", count: 1_000)
      large.add(item)
    }
    #expect(large.entries.count < 500 && large.entries.count > 50)
    #expect(large.document.count < 150_000, "\(large.document.count)")
    #expect(large.entries.allSatisfy { $0.key.utf8.count <= 500 && $0.title.utf8.count <= 300 })
  }

  @Test("what is kept reads back to the same stories, and placing goes on from there")
  func roundTrip() throws {
    var radar = Self.radar()
    let first = radar.add(Self.item("a1", "Ars", "Mozilla releases Firefox 150 with vertical tabs", minutes: 30))
    radar.add(Self.item("v1", "Verge", "Firefox 150 arrives with vertical tabs built in", minutes: 40))
    radar.note(first.story) { $0.fired = ["big"] }
    let bytes = radar.document
    var read = try JSONReader.read(bytes) { json in try StoryRadar(reading: &json) }
    #expect(read.entries.map(\.key) == radar.entries.map(\.key))
    #expect(read.entries.map(\.story) == radar.entries.map(\.story))
    #expect(read.entries.map(\.why.shared) == radar.entries.map(\.why.shared))
    // Similarities are kept in thousandths.
    #expect(
      read.entries.last?.why.similarity == radar.entries.last.map { ($0.why.similarity * 1_000).rounded() / 1_000 })
    #expect(read.notes[first.story]?.fired == ["big"])
    let third = read.add(Self.item("h1", "HN", "Firefox 150 release notes: vertical tabs", minutes: 50))
    #expect(third.joined && third.story == first.story)
    let fresh = read.add(Self.item("z", "Zed", "Completely different news about tractors", minutes: 51))
    #expect(fresh.story > first.story && !read.entries.dropLast().contains { $0.story == fresh.story })
  }

  @Test(
    "items filed under different sections that several feeds use are not one story; a feed's own category says nothing")
  func sections() throws {
    var radar = Self.radar()
    for (index, section) in ["Business", "Technology", "business", " technology "].enumerated() {
      var post = Self.item("s\(index)", "paper \(index)", "Quarterly report number \(index)", minutes: 20)
      post.categories = [section]
      radar.add(post)
    }
    var first = Self.item("a1", "Ars", "Mozilla releases Firefox 150 with vertical tabs", minutes: 30)
    first.categories = ["Technology"]
    let story = radar.add(first)
    var other = Self.item(
      "w1", "Wire", "Mozilla releases Firefox 150 with vertical tabs for business fleets", minutes: 31)
    other.categories = ["BUSINESS"]
    let refused = radar.add(other)
    #expect(!refused.joined && refused.story != story.story)
    #expect(refused.why.refused == "filed under 'business', the story under 'technology'")
    var own = Self.item("v1", "Verge", "Firefox 150 arrives with vertical tabs", minutes: 32)
    own.categories = ["Browsers", "Mozilla"]
    let joined = radar.add(own)
    #expect(joined.joined && joined.story == story.story, "categories no other feed uses compare with nothing")
    var shared = Self.item("h1", "HN", "Firefox 150: vertical tabs are here", minutes: 33)
    shared.categories = ["technology", "Browsers"]
    #expect(radar.add(shared).story == story.story)
  }

  @Test("a story about to become big that reads like a big one is that story: it is big once, its later items follow")
  func bigStories() throws {
    var radar = Self.radar()
    let launch = [
      ("IGN", "Titanfall live-action film teased by Respawn"), ("VG247", "Respawn teases a live-action Titanfall film"),
      ("Kotaku", "A live-action Titanfall film is coming, Respawn says"),
    ]
    var big: [StoryRadar.Entry] = []
    for (index, (feed, title)) in launch.enumerated() {
      big.append(radar.add(Self.item("l\(index)", feed, title, minutes: 30 + Double(index))))
    }
    #expect(big.allSatisfy { $0.story == big[0].story })
    #expect(radar.notes[big[0].story]?.big == true, "three feeds within six hours make a story big")
    let preload = [
      ("PC Gamer", "Titanfall preload opens on PC through Origin"), ("Polygon", "PC players can preload Titanfall now"),
      ("Eurogamer", "Titanfall PC preload is live on Origin"),
      ("GameSpot", "Titanfall preload now open for PC players"),
    ]
    var fragment: [StoryRadar.Entry] = []
    for (index, (feed, title)) in preload.enumerated() {
      fragment.append(radar.add(Self.item("p\(index)", feed, title, minutes: 40 + Double(index))))
    }
    #expect(fragment[1].story == fragment[0].story && fragment[0].story != big[0].story)
    #expect(fragment[1].why.via == nil)
    // The third feed would make the fragment big: it joins the big story instead, and says through which.
    #expect(fragment[2].story == big[0].story && fragment[2].why.via == fragment[0].story)
    #expect(fragment[2].why.viaShared.first == "titanfall")
    #expect(radar.notes[fragment[0].story]?.sameAs == big[0].story)
    #expect(radar.notes[fragment[0].story]?.big != true)
    // A later item that reads like the fragment follows it into the big story.
    #expect(fragment[3].story == big[0].story && fragment[3].why.via == fragment[0].story)
    #expect(radar.stories.map(\.id) == [big[0].story])
    #expect(radar.stories.first?.entries.count == 7)
    #expect(
      radar.feeds(of: big[0].story) == ["IGN", "VG247", "Kotaku", "Eurogamer", "GameSpot", "PC Gamer", "Polygon"])
    #expect(radar.entries(of: big[0].story).count == 7)
    // An unrelated story becomes big on its own.
    let other = [("Ars", "Debian 14 released with new installer"), ("LWN", "Debian 14 is out: new installer")]
    var debian: [StoryRadar.Entry] = []
    for (index, (feed, title)) in (other + [("HN", "Debian 14 released: the new installer")]).enumerated() {
      debian.append(radar.add(Self.item("d\(index)", feed, title, minutes: 50 + Double(index))))
    }
    #expect(debian.allSatisfy { $0.story == debian[0].story && $0.why.via == nil })
    #expect(radar.notes[debian[0].story]?.big == true)
    // All of it reads back.
    let read = try JSONReader.read(radar.document) { json in try StoryRadar(reading: &json) }
    #expect(read.entries.map(\.story) == radar.entries.map(\.story))
    #expect(read.entries.map(\.why.via) == radar.entries.map(\.why.via))
    #expect(read.entries.map(\.why.viaShared) == radar.entries.map(\.why.viaShared))
    #expect(read.notes == radar.notes)
    #expect(read.stories.map(\.entries.count) == radar.stories.map(\.entries.count))
  }

  @Test("words: marks dropped, stop words and numbers out, plurals folded")
  func words() {
    #expect(
      StoryRadar.words("EBay says Carl Icahn's board picks 'not qualified'") == [
        "ebay", "carl", "icahn", "board", "pick", "qualified",
      ])
    #expect(StoryRadar.words("Apple's iOS 7.1 — out now / 2014") == ["apple", "ios", "71", "2014"])
    #expect(
      StoryRadar.words("ÉLECTIONS: les résultats à Zürich, Class pass; 東京 news news")
        == ["élection", "résultat", "zürich", "class", "pass", "東京", "new"])
    #expect(StoryRadar.words("İstanbul Straße Σοφία").count == 3)
    #expect(StoryRadar.words(String(repeating: "x", count: 41) + " xy fine") == ["xy", "fine"])
  }

  @Test("a radar that has forgotten many items places the next ones as a radar rebuilt from what it keeps")
  func forgettingKeepsTablesRight() throws {
    var settings = StoryRadar.Settings()
    settings.maxItems = 40
    var live = StoryRadar(settings: settings)
    // Words come and go, so the numbers of forgotten words are given to new ones.
    for index in 0..<400 {
      let topic = index / 20
      live.add(
        Self.item(
          "\(index)", "feed \(index % 9)", "Topic\(topic) launch of product\(topic) model\(index % 3) update",
          minutes: Double(index)))
    }
    var rebuilt = try JSONReader.read(live.document) { json in try StoryRadar(reading: &json, settings: settings) }
    for (offset, title) in [
      "Topic19 launch of product19 model1", "Topic3 launch of product3 model2", "Unrelated tractor news today",
      "Topic19 product19 shipped", "model0 model1 model2 update",
    ].enumerated() {
      let item = Self.item("p\(offset)", "probe \(offset % 2)", title, minutes: 400 + Double(offset))
      let a = live.add(item)
      let b = rebuilt.add(item)
      #expect(a.story == b.story && a.joined == b.joined && a.why.shared == b.why.shared, "\(title)")
      // The live radar's norms are those of each story's last item, the rebuilt one's of now.
      #expect(abs(a.why.similarity - b.why.similarity) < 0.05, "\(title): \(a.why) \(b.why)")
    }
  }
}

@Suite("Spread triggers in the config")
struct StorySpreadConfigTests {
  static let feeds = "feeds:\n  - { name: a, url: /tmp/a.xml }\n"

  @Test("story: { feeds, within } is a rule's spread trigger; the rest of match still holds for the item")
  func parses() throws {
    let config = try ConfigLoader.parse(
      Self.feeds + """
        rules:
          - { name: big, match: { story: { feeds: 3, within: 6h }, title: rust }, hook: 'true', dedupe: story }
          - { name: any, match: { story: { feeds: 2, within: 1d } }, notify: true }
        """, path: "c.yaml")
    #expect(config.rules[0].spread == StorySpread(feeds: 3, within: 21_600))
    #expect(config.rules[0].actions.oncePerStory)
    #expect(config.rules[1].spread == StorySpread(feeds: 2, within: 86_400))
    // A dry run never acts for a spread trigger, and says why.
    let item = FeedItem(key: "1", title: "Rust 2.0 released")
    let decision = RuleEngine(rules: config.rules).evaluate(item, feed: config.feeds[0], now: Date())
    #expect(decision.split(by: RuleEngine(rules: config.rules).spreadRules).now.hooks.isEmpty)
    let verdicts = RuleExplainer.explain(item, feed: config.feeds[0], rules: config.rules)
    #expect(verdicts.allSatisfy { !$0.matched })
    #expect(verdicts[0].steps?.lines(indent: "").joined().contains("a spread trigger") == true)
  }

  @Test("check warns of a spread trigger whose feeds are not grouped into stories")
  func neverFires() throws {
    let rule = "rules:\n  - { name: big, match: { story: { feeds: 2, within: 6h } }, hook: 'true' }\n"
    let two = Self.feeds + "  - { name: b, url: /tmp/b.xml }\n"
    let off = try ConfigLoader.parse("settings: { stories: false }\n" + two + rule, path: "c.yaml")
    #expect(off.notices.contains { $0.message.contains("rule 'big' waits for a story across feeds") })
    let on = try ConfigLoader.parse(two + rule, path: "c.yaml")
    #expect(!on.notices.contains { $0.message.contains("waits for a story") })
  }

  @Test(
    "a story test inside not/any/all, without feeds or within, too long, and a dedupe other than story are refused",
    arguments: [
      ("match: { not: { story: { feeds: 3, within: 6h } } }", "at the top of a rule's match only"),
      ("match: { story: { feeds: 3 } }", "needs 'feeds' and 'within'"),
      ("match: { story: { feeds: 1, within: 6h } }", "'story.feeds'"),
      ("match: { story: { feeds: 3, within: 5d } }", "longer than the 3 days"),
      ("match: { title: x }\n    dedupe: item", "takes 'story', not 'item'"),
    ])
  func refused(_ rule: String, _ message: String) throws {
    let text = Self.feeds + "rules:\n  - name: r\n    hook: 'true'\n    \(rule)\n"
    do {
      _ = try ConfigLoader.parse(text, path: "c.yaml")
      Issue.record("accepted: \(rule)")
    } catch {
      #expect(error.rendered.contains(message), "\(error.rendered)")
    }
  }
}
