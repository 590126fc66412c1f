// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Testing
import WatcherFeed

@Suite("HTML to text")
struct HTMLTextTests {
  static let multiLine: [(String, String?)] = [
    ("<p>One</p><p>Two</p>", "One\nTwo"),
    ("Hello <b>bold</b> <i>world</i>", "Hello bold world"),
    ("a<br>b<br/>c", "a\nb\nc"),
    ("<ul><li>x</li><li>y</li></ul>", "x\ny"),
    ("A&nbsp;B &eacute;t&eacute; &amp; &lt;tag&gt;", "A B été & <tag>"),
    ("&#8220;q&#8221; &#x2014; &#150;", "\u{201C}q\u{201D} \u{2014} \u{2013}"),
    ("&amp without semicolon &notanentity;", "& without semicolon &notanentity;"),
    ("<script>var a = '<p>no</p>';</script>after", "after"),
    ("<style>p { color: red }</style><p>text</p>", "text"),
    ("before<!-- <p>comment</p> -->after", "beforeafter"),
    ("  lots   of\n\n  space \t here  ", "lots of space here"),
    ("<div><div><p>nested</p></div></div>", "nested"),
    ("1 < 2 and 3 > 2", "1 < 2 and 3 > 2"),
    ("<a href=\"x?a=1&b=2\" title='>'>link</a> text", "link text"),
    ("&lt;p&gt;double &lt;b&gt;escaped&lt;/b&gt;&lt;/p&gt;", "double escaped"),
    ("&lt;3 is not markup", "<3 is not markup"),
    ("<p> </p><br><br>", nil),
    ("", nil),
    ("<img src=x>caption", "caption"),
    ("word<img src=x>word", "word word"),
  ]

  @Test("converts", arguments: multiLine)
  func converts(_ html: String, _ expected: String?) {
    #expect(HTMLText.plainText(fromHTML: html) == expected)
  }

  @Test("a tag ends at the first `>` outside a quoted value, wherever it falls in blocks of sixteen")
  func tagEnds() {
    for pad in 0..<34 {
      let attribute = String(repeating: "x", count: pad)
      // A quoted `>` is in the value; a quote that follows neither `=` nor a space opens nothing; an
      // unclosed quote runs to the end.
      #expect(HTMLText.plainText(fromHTML: "<a href=\"\(attribute)>\" t='>'>link</a> after") == "link after")
      #expect(HTMLText.plainText(fromHTML: "<img alt=it's\(attribute)>caption") == "caption")
      #expect(HTMLText.plainText(fromHTML: "<a b=c\(attribute)\">x</a>y") == "xy")
      #expect(HTMLText.plainText(fromHTML: "text<a href=\"\(attribute)>never closed") == "text")
    }
  }

  @Test("single-line mode joins blocks with spaces")
  func singleLine() {
    #expect(HTMLText.plainText(fromHTML: "<p>One</p><p>Two</p>", singleLine: true) == "One Two")
  }

  @Test("collapsing keeps text and drops empty")
  func collapsing() {
    #expect(HTMLText.collapsed("  a \n b\u{A0}c  ") == "a b c")
    #expect(HTMLText.collapsed("already clean") == "already clean")
    #expect(HTMLText.collapsed(" \n\t ") == nil)
    #expect(HTMLText.collapsed("¿qué?") == "¿qué?")
  }

  @Test("recognises HTML only by real markup")
  func looksLikeHTML() {
    #expect(HTMLText.looksLikeHTML("<b>bold</b>"))
    #expect(HTMLText.looksLikeHTML("Tom &amp; Jerry"))
    #expect(HTMLText.looksLikeHTML("line<br/>break"))
    #expect(!HTMLText.looksLikeHTML("AT&T"))
    #expect(!HTMLText.looksLikeHTML("a < b > c"))
    #expect(!HTMLText.looksLikeHTML("<notatag>"))
  }

  @Test("hasVisibleText is true exactly when collapsing leaves something")
  func visibleText() {
    let pieces = [" ", "\t", "\n", "\u{A0}", "a", "é", "\u{C2}", "\u{85}", "\u{2003}", ""]
    for a in pieces {
      for b in pieces {
        for c in pieces {
          let text = a + b + c
          #expect(HTMLText.hasVisibleText(text) == (HTMLText.collapsed(text) != nil), "\(text.debugDescription)")
        }
      }
    }
  }
}

extension HTMLTextTests {
  @Test(
    "collapsedLines collapses each line and drops blank ones, whatever the line ends (CR LF, CR, LF)",
    arguments: [
      ("one line", "one line"), ("  東京   line  ", "東京 line"), ("a\r\nb\rc\nd", "a\nb\nc\nd"),
      ("\n\n  first \n\n second\u{00A0}word \r\n", "first\nsecond word"), ("", nil), (" \n \r\n ", nil),
    ] as [(String, String?)])
  func collapsedLines(_ input: String, _ expected: String?) {
    #expect(HTMLText.collapsedLines(input) == expected)
  }
}
