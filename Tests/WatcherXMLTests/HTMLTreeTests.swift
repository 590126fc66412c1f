// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherXML

/// The tree libxml2's HTML parser makes, repaired where a browser reads a page otherwise.
@Suite("HTML tree")
struct HTMLTreeTests {
  /// The names on the way from the document element down to the first `p`.
  func pathToParagraph(_ page: String, encoding: String? = nil) throws -> [String] {
    let root = try #require(HTMLTree.parse(Array(page.utf8), encoding: encoding))
    var element = try #require(root.descendants.first { $0.name == "p" })
    var path = [element.name]
    while let parent = element.parent {
      path.insert(parent.name, at: 0)
      element = parent
    }
    return path
  }

  /// A heading end tag of another level ends the open heading, as a browser ends it; one in a comment, a
  /// script, a style or a text area is no tag (the heading open stays open until its own end).
  @Test(
    "the paragraph after a heading ended by any heading end tag is the body's, not the heading's",
    arguments: [
      "<h2>Town News</h3><div><p>Body</p></div>",
      "<H2 class=\"site\">Town <b>News</h3 ><div><p>Body</p></div>",
      "<h1>Town</h1><h4>News</h2>\n<div><p>Body</p></div>",
      "<!-- <h3> --><h2>Town News</h3><div><p>Body</p></div>",
      "<h3>Town<!-- <h2> --></h3><div><p>Body</p></div>",
      "<h3>Town<script>var tag = '<h2>'</script></h3><div><p>Body</p></div>",
      "<h3>Town<style>h2::before { content: '<h2>' }</style></h3><div><p>Body</p></div>",
      "<h3>Town<textarea><h2></textarea></h3><div><p>Body</p></div>",
    ])
  func headingEnds(body: String) throws {
    let path = try pathToParagraph("<html><body>\(body)</body></html>")
    #expect(path == ["html", "body", "div", "p"], "\(body)")
  }

  @Test("a UTF-16 page whose bytes happen to spell heading tags is read unchanged")
  func utf16() throws {
    // In UTF-16LE, U+3C41 U+3268 U+4E3E are the bytes `A<h2>N`, and U+3C41 U+682F U+3E33 `A</h3>`.
    let text = "\u{3C41}\u{3268}\u{4E3E}\u{3C41}\u{682F}\u{3E33}"
    var bytes: [UInt8] = [0xFF, 0xFE]
    for unit in "<html><body><p>\(text)</p></body></html>".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
    for encoding in [nil, "UTF-16LE"] {
      let root = try #require(HTMLTree.parse(bytes, encoding: encoding))
      let paragraph = try #require(root.descendants.first { $0.name == "p" })
      #expect(paragraph.children.count == 1)
      if case .text(let read) = paragraph.children.first { #expect(read == text, "\(encoding ?? "by its mark")") }
    }
  }

  @Test("`</br>` is a line break, as in browsers: the words on either side stay apart")
  func endTagLineBreak() throws {
    let page = "<html><body><div>one</br>two</BR >three<br>four</div><script>x = '</br>'</script></body></html>"
    let root = try #require(HTMLTree.parse(Array(page.utf8)))
    let div = try #require(root.descendants.first { $0.name == "div" })
    let shape = div.children.map { node -> String in
      switch node {
      case .element(let element): element.name
      case .text(let text): text
      }
    }
    #expect(shape == ["one", "br", "two", "br", "three", "br", "four"])
    let script = try #require(root.descendants.first { $0.name == "script" })
    guard case .text(let text)? = script.children.first else {
      Issue.record("the script has no text: \(script.children)")
      return
    }
    #expect(text == "x = '</br>'")
  }

  @Test("a page of many headings closed by the wrong tag is read flat, not nested ever deeper")
  func manyMismatchedHeadings() throws {
    let page = "<html><body>" + String(repeating: "<h2>Site</h3><div><p>Text of a post.</p></div>", count: 2_000)
    let root = try #require(HTMLTree.parse(Array(page.utf8)))
    let body = try #require(root.descendants.first { $0.name == "body" })
    let headings = body.children.filter { if case .element(let e) = $0 { e.name == "h2" } else { false } }
    #expect(headings.count == 2_000)
  }
}
