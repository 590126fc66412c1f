// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Testing
import WatcherSupport

@Suite("MarkupText")
struct MarkupTextTests {
  @Test(
    "escape writes &, < and > as references, byte for byte elsewhere (multi-byte text included)",
    arguments: [
      ("plain text", "plain text"), ("a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"),
      ("東京 <東京> & Zürich", "東京 &lt;東京&gt; &amp; Zürich"), ("", ""), ("&amp;", "&amp;amp;"),
      ("\u{1F600}<", "\u{1F600}&lt;"),
    ])
  func escape(_ input: String, _ expected: String) {
    #expect(MarkupText.escape(input) == expected)
  }
}
