// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

@testable import WatcherFeed
@testable import WatcherXML

/// The fast reader (`watcher_fast.h`) reads a document exactly as libxml2 alone reads it: the same feed,
/// items and warnings (line and column included), whether it reads the whole document or hands the rest to
/// libxml2 at the first construct it does not take, however the input is cut.
///
/// `ReferenceFoldingTests` compares the two on hand-made and randomly damaged feeds; these tests add the
/// constructs the fast reader hands over at, one by one, and every file of the corpus.
@Suite("The fast reader")
struct FastReaderTests {
  /// The fast reader against libxml2 alone (`ReferenceFoldingTests.read` without folding), cut in pieces.
  static func expectSame(
    _ document: [UInt8], sizes: [Int], context: String = "", sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let (expected, expectedWarnings) = ReferenceFoldingTests.read(
      document, folding: false, chunkSize: max(document.count, 1))
    for size in sizes {
      let (feed, warnings) = ReferenceFoldingTests.read(
        document, folding: true, chunkSize: size, minimumRun: XMLStreamParser.defaultMinimumRun)
      #expect(feed == expected, "\(context) chunk size \(size)", sourceLocation: sourceLocation)
      #expect(warnings == expectedWarnings, "\(context) chunk size \(size)", sourceLocation: sourceLocation)
    }
  }

  /// A feed with `body` as the text of its first item's description, `attribute` on its category, and
  /// `namespaces` declared on its root.
  static func feed(body: String = "text", attribute: String = "a", namespaces: String = "", extra: String = "")
    -> String
  {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <rss version="2.0"\(namespaces)>
      <channel><title>T</title>
        <item><title>One</title><guid>1</guid>
          <description>\(body)</description>
          <category domain="\(attribute)">c</category>\(extra)
        </item>
        <item><title>Two &amp; more</title><guid>2</guid></item>
      </channel>
    </rss>
    """
  }

  @Test(
    "each construct the fast reader leaves to libxml2 reads as libxml2 reads it, warnings and all",
    arguments: [
      // Entities only libxml2 knows, references it refuses, characters XML does not allow.
      feed(body: "a &nbsp; b &eacute;"), feed(body: "bad &#0; ref"), feed(body: "&#xD800; and &#1;"),
      feed(body: "a \u{01} control"), feed(body: "]]> in text"), feed(body: "nonchar \u{FFFE} here"),
      feed(body: "&bogus; &amp"), feed(body: "a < b"), feed(body: "<b>unclosed</i>"),
      // Attributes: unquoted, `<` inside, repeated, an unbound or reserved prefix, without a value.
      feed(attribute: "a\" b=c x=\"y"), feed(attribute: "a<b"), feed(attribute: "a\" domain=\"b"),
      feed(attribute: "a\" p:x=\"1"), feed(attribute: "a\" single x"), feed(attribute: "a &nbsp; b"),
      feed(attribute: "tab\there\nline\r\nend &#10; &amp; &lt;"), feed(body: "cr\r\nlf &#13; &#13;&#10; \r&amp;\n"),
      // Namespaces: relative, empty for a prefix, rebinding xml, declared twice.
      feed(namespaces: " xmlns:a=\"relative\""), feed(namespaces: " xmlns:a=\"\""),
      feed(namespaces: " xmlns:xml=\"http://example.com/\""),
      feed(namespaces: " xmlns:a=\"http://a.example/\" xmlns:a=\"http://b.example/\""),
      feed(namespaces: " xmlns:a=\"http://a.example/\"", extra: "<a:x a:y=\"1\" y=\"2\">v</a:x><b:x>v</b:x>"),
      // Markup: a DOCTYPE, processing instructions, comments, CDATA, names the reader does not take.
      "<!DOCTYPE rss>\n" + feed(),
      // After a hand-over libxml2 reads the rest folded, long runs of text cut out.
      "<!DOCTYPE rss>\n" + feed(body: String(repeating: "a long run &amp; ", count: 20)),
      feed(extra: "<?xml version=\"1.0\"?>"), feed(extra: "<!-- a -- b -->"),
      feed(extra: "<x:y:z>v</x:y:z>"), feed(extra: "<caf\u{E9}>v</caf\u{E9}>"), feed(extra: "<![CDATA[a]]>"),
      feed(extra: "<?pi data?><!-- ok --><![CDATA[<b>x</b> & y]]>"),
      // Handed over inside markup the reader wrote into a captured XHTML content itself.
      """
      <feed xmlns="http://www.w3.org/2005/Atom"><title>x</title><entry><id>1</id><content type="xhtml">\
      <div xmlns="http://www.w3.org/1999/xhtml"><p>a <b>b &bogus; c</b> d<br/></p></div></content>\
      <title>after</title></entry><entry><id>2</id><title>two</title></entry></feed>
      """,
      // A declaration the reader does not take, trailing junk, an end that never comes.
      "<?xml version=\"1.1\"?>" + feed(), "<?xml version='1.0' encoding='latin1' standalone='yes' ?>" + feed(),
      feed() + "\njunk after", feed() + "<!-- a comment --><?pi?>",
      String(feed().prefix(300)),
    ])
  func handOff(_ text: String) {
    let document = Array(text.utf8)
    Self.expectSame(document, sizes: [document.count, 1, 2, 3, 7, 64], context: text)
  }

  @Test("an XHTML content is written as libxml2's elements write it, namespaces and empty elements alike")
  func xhtml() {
    let text = """
      <feed xmlns="http://www.w3.org/2005/Atom" xmlns:h="http://www.w3.org/1999/xhtml"><title>x</title>
      <entry><id>1</id><title>t</title><content type="xhtml"><h:div><h:p class='a "q"'>one<h:br/>two \
      &lt;&amp;&gt; <h:a href="x?a=1&amp;b=2">link</h:a></h:p><svg xmlns="http://www.w3.org/2000/svg"><g/></svg>\
      </h:div></content></entry></feed>
      """
    Self.expectSame(Array(text.utf8), sizes: [text.utf8.count, 1, 5, 33])
    let (feed, _) = ReferenceFoldingTests.read(Array(text.utf8), folding: true, chunkSize: 1 << 20)
    #expect(feed?.items.first?.html?.contains("<h:br></h:br>two &lt;&amp;&gt;") == true, "\(String(describing: feed))")
  }

  @Test("every XML file of the corpus reads the same through the fast reader", .tags(.corpus))
  func corpus() throws {
    var compared = 0
    for path in CorpusRobustnessTests.files {
      let data = try Data(contentsOf: CorpusRobustnessTests.corpus.appendingPathComponent(path))
      let document = [UInt8](data)
      guard let first = document.first(where: { $0 > 32 }), first == UInt8(ascii: "<") else { continue }
      Self.expectSame(document, sizes: [document.count, 4_096, 97], context: path)
      compared += 1
    }
    #expect(compared > 3_000)
  }
}
