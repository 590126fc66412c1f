// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A small seeded generator, so a failing case repeats.
public struct SplitMix {
  public var state: UInt64
  public init(seed: UInt64) { state = seed }
  public mutating func next(_ bound: Int) -> Int {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int((z ^ (z >> 31)) % UInt64(bound))
  }
}

/// A page with a header, an article with an ad and comments, and an aside: what selector tests select in.
public enum SamplePages {
  public static let selectors = Array(
    """
    <html><head><title>T</title></head><body>
    <div id="page" class="wrap main">
      <header class="site-header"><p>Menu text</p></header>
      <article class="post" data-kind="news item">
        <div class="entry-content"><p>First paragraph.</p><div class="ad"><p>Buy now</p></div><p>Second.</p></div>
        <section class="comments"><p>A comment</p></section>
      </article>
      <aside><p lang="en-GB">Aside</p></aside>
    </div>
    </body></html>
    """.utf8)
}
