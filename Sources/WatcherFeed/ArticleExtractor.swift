// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport
import WatcherXML

/// The main text of a web article, without its navigation, comments, related links and advertising.
///
/// The readability approach: every paragraph of the page scores its parent (fully) and grandparent (half)
/// by its length and commas; the scores are weighed by the element's kind and its class and id names
/// (`article`, `content` and `post` for; `comment`, `sidebar` and `promo` against) and by how much of its
/// text is links. The best-scoring element is the article; siblings that score near it or read as prose
/// join it. Within it, lists, tables and boxes that look like link farms, forms or picture galleries are
/// dropped. Scripts, styles and what the page's own style hides are removed first (what its style hides is
/// read only when nothing else on the page is an article); then navigation, buttons, noscript, hidden
/// elements and those whose class or id says menu, share, cookie, sidebar or dateline. These and the
/// cleaning inside the article are size-aware: none removes an element holding most of the text it works
/// on (the page's, or the chosen box's), whatever its kind, state or name says.
public enum ArticleExtractor {
  /// Why a page could not be read.
  public enum Failure: Error, Equatable {
    /// Larger than ``maxPageBytes`` (decompressed).
    case tooLarge(limit: Int)
    /// Gzip-compressed, but corrupt or larger than the limit once decompressed.
    case unreadable
  }

  /// What the extractor found.
  public struct Article: Sendable, Equatable {
    /// The article's title: the page's `og:title`, else its `<title>`, else its first `<h1>`.
    public var title: String?
    /// The main text, one paragraph per line, blank lines between paragraphs.
    public var text: String
  }

  /// The largest page read, after decompression.
  ///
  /// About three times the largest page of the evaluation set (2.9 MB). It bounds the tree built from it
  /// too: a page of nothing but tiny elements costs a few hundred megabytes at this size, a real page a few
  /// dozen.
  public static let maxPageBytes = 8 * 1_024 * 1_024

  /// The article in the page `bytes`, or `nil` when the page has no text at all.
  ///
  /// `encoding` is the charset of the server's `Content-Type`, if it named one. A gzip-compressed page (a
  /// saved `.html.gz`) is read decompressed.
  ///
  /// With a `selector` (a feed's `content_selector:`) no heuristic runs: the text is that of the elements it
  /// matches, in page order (empty when it matches nothing).
  public static func extract(_ bytes: [UInt8], encoding: String? = nil, selector: HTMLSelector? = nil)
    throws(Failure) -> Article?
  {
    if bytes.withUnsafeBufferPointer(Gzip.isGzip) {
      let inflated = try? bytes.withUnsafeBufferPointer { buffer throws(FeedParseError) in
        try Gzip.decompress(buffer, limit: maxPageBytes)
      }
      guard let inflated else { throw .unreadable }
      return try extract([UInt8](inflated), encoding: encoding, selector: selector)
    }
    guard bytes.count <= maxPageBytes else { throw .tooLarge(limit: maxPageBytes) }
    if let selector {
      guard let (root, selected) = selector.read(bytes, encoding: encoding) else { return nil }
      let title = title(of: root)
      let parts = selected.map { ControlCharacters.replaced(Paragraphs.text(of: $0)) }
      return Article(
        title: title.map(ControlCharacters.replaced), text: parts.filter { !$0.isEmpty }.joined(separator: "\n\n"))
    }
    // As Readability.js does: when the heuristics leave under `minimumText` characters, they were wrong for
    // this page; read it again with the class weights, then the cleaning turned off, and keep the first
    // long enough result, else the longest. Unlike Readability.js, the pruning by name stays on: it
    // already spares an element holding most of the page's text (a page-wide wrapper with an unlucky
    // name), and turning it off brings back what it rightly removed, such as the comments under a short
    // post.
    // A page past `retryBytes` is read once: the retries would multiply the cost of a page that is
    // mostly not an article (or built to be costly).
    var best: Article?
    for attempt in bytes.count <= retryBytes ? Attempt.sequence : [Attempt()] {
      guard let root = HTMLTree.parse(bytes, encoding: encoding) else { return nil }
      let (article, pageText) = extract(root, attempt)
      if article.text.count >= minimumText { return article }
      if best == nil || article.text.count > (best?.text.count ?? 0) { best = article }
      // The attempts differ in their weights and cleaning, not in what they prune: a page with no text
      // left to weigh (millions of empty elements) is not read again.
      if pageText == 0 { break }
    }
    // A page that script reveals once it has loaded (`<div id="page" style="display:none">`, against a flash
    // of unstyled content) holds nearly all its text in what its style hides: read so when nothing else was
    // found. A part it hides beside other text (a print copy, a spoiler) stays out.
    if best?.text.count ?? 0 < minimumText, bytes.count <= retryBytes,
      let root = HTMLTree.parse(bytes, encoding: encoding)
    {
      let (article, _) = extract(root, Attempt(readStyleHidden: true))
      if article.text.count >= minimumText { best = article }
    }
    // A page built by script can carry its article only in its linked data (schema.org's `articleBody`).
    if best?.text.count ?? 0 < minimumText, let root = HTMLTree.parse(bytes, encoding: encoding),
      let body = LinkedData.articleBody(in: root), body.count > best?.text.count ?? 0
    {
      best = Article(title: best?.title ?? title(of: root), text: ControlCharacters.replaced(body))
    }
    guard let best, !best.text.isEmpty || best.title != nil else { return nil }
    return best
  }

  /// The text an attempt must find to be taken without trying the next.
  static let minimumText = 500
  /// The largest page read again when an attempt finds too little (2 MiB; the benchmark's pages are
  /// 20 KB to 1.5 MB).
  static let retryBytes = 2 << 20

  /// Which heuristics an attempt uses.
  struct Attempt {
    var weighClasses = true
    var cleanBoxes = true
    /// What the page's style hides is read when it holds nearly all of the page's text (four fifths).
    var readStyleHidden = false

    /// All on, then each turned off in turn (and stays off).
    static let sequence = [Attempt(), Attempt(weighClasses: false), Attempt(weighClasses: false, cleanBoxes: false)]
  }

  /// The article, and the length of the text left on the page once furniture is pruned.
  private static func extract(_ root: HTMLElement, _ attempt: Attempt) -> (Article, pageText: Int) {
    let title = title(of: root)
    let body = root.descendants.first { $0.name == "body" } ?? root
    // No kind, state or name prunes an element holding most of the page's paragraph text. libxml2's repair
    // of a broken template can nest the whole article inside a `<button>` or `<nav>`; a server-rendered
    // page can stream its article into a `hidden` container that script reveals; a name can be that of a
    // page-wide wrapper (`Page-ad-margins`, `row site_header`). In each the article is inside.
    prune(body) { isNeverText($0) || !attempt.readStyleHidden && isStyledHidden($0) }
    let page = Scorer()
    let pageTotal = page.paragraphText(body)
    prune(body) {
      isHidden($0) && page.paragraphText($0) * 2 <= pageTotal
        || isStyledHidden($0) && page.paragraphText($0) * 5 < pageTotal * 4
    }
    wrapTextRuns(body)
    let sizes = Scorer()
    let total = sizes.paragraphText(body)
    // Found before the pruning by name takes their headings away.
    let otherPosts = Set(body.descendants.filter(opensOtherPosts).map(ObjectIdentifier.init))
    prune(body) { sizes.paragraphText($0) * 2 <= total && isFurniture($0, sizes: sizes) }
    let scorer = Scorer(weighClasses: attempt.weighClasses)
    let article = scorer.article(in: body)
    if attempt.cleanBoxes {
      let total = scorer.paragraphText(article)
      clean(article, scorer: scorer, total: total)
      dropLinkRuns(article, scorer: scorer, total: total)
      if !otherPosts.isEmpty {
        dropOtherPosts(article, otherPosts, scorer: scorer, total: scorer.text(article).length)
      }
    }
    if let title { dropHeading(repeating: title, in: article) }
    // A page's text reaches hooks and terminals like a feed's: without control characters.
    let text = ControlCharacters.replaced(Paragraphs.text(of: article))
    return (Article(title: title.map(ControlCharacters.replaced), text: text), scorer.text(body).length)
  }

  // MARK: - The title

  private static func title(of root: HTMLElement) -> String? {
    var pageTitle: String?
    var heading: String?
    for element in root.descendants {
      switch element.name {
      case "meta":
        let property = (element.attributes["property"] ?? element.attributes["name"] ?? "").lowercased()
        if property == "og:title", let content = element.attributes["content"],
          let title = HTMLText.collapsed(content)
        {
          return title
        }
      case "title" where pageTitle == nil: pageTitle = HTMLText.collapsed(Paragraphs.inline(element))
      case "h1" where heading == nil: heading = HTMLText.collapsed(Paragraphs.inline(element))
      default: break
      }
    }
    return pageTitle ?? heading
  }

  /// Removes the first heading that repeats the title (the page's `<title>` often adds the site's name).
  private static func dropHeading(repeating title: String, in article: HTMLElement) {
    let title = title.lowercased()
    for element in article.descendants where ["h1", "h2", "h3"].contains(element.name) {
      guard let heading = HTMLText.collapsed(Paragraphs.inline(element))?.lowercased() else { continue }
      if heading.count >= 8 && title.contains(heading) || heading == title {
        element.parent?.remove(element)
      }
      return
    }
  }

  // MARK: - Before scoring

  /// Elements whose content is never text a reader sees: removed before anything is measured.
  static let neverText: Set<String> = [
    "script", "style", "template", "iframe", "object", "embed", "svg", "canvas", "select", "input", "textarea",
    "head", "link", "meta",
  ]
  /// Elements that do not hold the article's text on a well-formed page, removed unless they hold most of
  /// the page's (where a repaired page nested the article in them).
  static let dropped: Set<String> = ["noscript", "nav", "footer", "aside", "button", "label", "dialog", "menu"]

  /// Class and id words of page furniture: parts of names, and (after the `/`) whole words of them.
  static let unlikely = NamePattern(
    "-ad-|ai2html|banner|breadcrumb|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends"
      + "|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate"
      + "|pagination|pager|popup|yom-remote|newsletter|subscribe|cookie|promo|toolbar|signup|login",
    words: "share|sharing|byline|author|caption|ad|ads|advert|tags")
  /// Class and id words of the lines around an article that are not its text: when, by whom, a picture's
  /// caption.
  static let dateline = NamePattern(
    "dateline|timestamp|byline|newscaption",
    words: "date|dates|time|published|publish|updated|caption|credit|credits|author|meta")
  /// The heading elements.
  static let headings: Set<String> = ["h1", "h2", "h3", "h4", "h5", "h6"]
  /// Class and id words of a heading that introduces other posts than the page's own ("You may like…" under
  /// `<h3 class="relatedpoststitle">`): the box it opens is that list, whatever the box is named.
  static let otherPosts = NamePattern("related|recommend|popular|trending|read-next|readnext|more-stories")
  /// Class and id words that overrule ``unlikely`` (a `main-header-content` may hold the article).
  static let maybe = NamePattern("and|article|body|column|content|main|shadow|story|entry")
  /// Class words of a post embedded from a social network (`<blockquote class="twitter-tweet">`): a quotation
  /// the article shows, whatever its container is named (`social-media-embed`).
  static let embeddedPost = NamePattern(
    "twitter-tweet|instagram-media|tiktok-embed|bluesky-embed|mastodon-embed|reddit-embed|text-post-media")
  /// Roles of page furniture.
  static let unlikelyRoles: Set<String> = [
    "menu", "menubar", "complementary", "navigation", "alert", "alertdialog", "dialog", "banner", "contentinfo",
    "search",
  ]

  /// Removes every element that cannot be (or be in) the article.
  private static func prune(_ element: HTMLElement, _ isFurniture: (HTMLElement) -> Bool) {
    // One pass over the children (removing them one by one would cost the square of their number).
    element.children.removeAll {
      if case .element(let child) = $0 { isFurniture(child) } else { false }
    }
    for child in element.elements { prune(child, isFurniture) }
  }

  /// Whether the element's content is never shown as text.
  ///
  /// A `<template>` is not shown, except the declarative shadow root of a server-rendered web component
  /// (`shadowrootmode`), which is its content.
  private static func isNeverText(_ element: HTMLElement) -> Bool {
    guard neverText.contains(element.name) else { return false }
    return element.name != "template"
      || element.attributes["shadowrootmode"] == nil && element.attributes["shadowroot"] == nil
  }

  /// Whether the element is of a kind that does not hold the article, or hidden.
  private static func isHidden(_ element: HTMLElement) -> Bool {
    if dropped.contains(element.name) { return true }
    let attributes = element.attributes
    return attributes["hidden"] != nil || attributes["aria-hidden"] == "true"
  }

  /// Whether the element's own style hides it: mostly a choice of the page's author (a copy for print, a
  /// menu for small screens), so it goes whatever it holds unless nothing else on the page is an article.
  private static func isStyledHidden(_ element: HTMLElement) -> Bool {
    guard let style = element.attributes["style"]?.lowercased().filter({ $0 != " " }) else { return false }
    return style.contains("display:none") || style.contains("visibility:hidden")
  }

  /// Whether the element's role, class or id says it is page furniture.
  private static func isFurniture(_ element: HTMLElement, sizes: Scorer) -> Bool {
    let attributes = element.attributes
    if let role = attributes["role"]?.lowercased(), unlikelyRoles.contains(role) { return true }
    guard element.name != "body", element.name != "a", element.name != "article", element.name != "main"
    else { return false }
    // Builders whose classes are generated name their parts for scripts and tests instead (Wix's
    // `data-hook="time-ago"`, Medium's `data-testid="storyPublishDate"`): a short dateline so named goes.
    if let hook = attributes["data-hook"] ?? attributes["data-testid"], dateline.matches(Self.splitCamelCase(hook)),
      sizes.text(element).length < 200
    {
      return true
    }
    let names = isHeadingAnchor(element) ? (element.attributes["class"] ?? "").lowercased() : classAndID(element)
    guard !names.isEmpty else { return false }
    // A short dateline, byline or caption goes even when its name also says `content`.
    if dateline.matches(names) && sizes.text(element).length < 200 { return true }
    // A formula is text, whatever its container is named (MathJax's `CtxtMenu_Attached_0` names a menu), and
    // so is a post the article quotes from a social network (in a `social-media-embed`).
    return unlikely.matches(names) && !maybe.matches(names) && !element.descendants.contains(where: isQuotedContent)
  }

  /// Whether the element's first child is a heading named as introducing other posts (``otherPosts``).
  private static func opensOtherPosts(_ element: HTMLElement) -> Bool {
    guard element.name != "body", element.name != "main", let first = element.elements.first,
      headings.contains(first.name)
    else { return false }
    let names = classAndID(first)
    return !names.isEmpty && otherPosts.matches(names) && !maybe.matches(names)
  }

  /// Whether the element's id spells its heading (`sharing-with-a-single-developer` on a section headed
  /// "Sharing with a single developer"): an anchor made from the heading, which says nothing of the box.
  static func isHeadingAnchor(_ element: HTMLElement) -> Bool {
    guard let id = element.attributes["id"] else { return false }
    let idWords = words(id)
    guard idWords.count >= 2, let heading = firstHeading(in: element) else { return false }
    return words(Paragraphs.inline(heading)).starts(with: idWords)
  }

  /// The first heading among the first eight elements inside `element`, in document order.
  private static func firstHeading(in element: HTMLElement) -> HTMLElement? {
    var stack = element.elements.prefix(8).reversed() as [HTMLElement]
    var seen = 0
    while let next = stack.popLast(), seen < 8 {
      seen += 1
      if headings.contains(next.name) { return next }
      stack += next.elements.prefix(8).reversed()
    }
    return nil
  }

  /// The lower-case words of `text`: runs of letters and digits.
  private static func words(_ text: String) -> [Substring] {
    text.lowercased().split { !$0.isLetter && !$0.isNumber }
  }

  /// Text beside blocks (a run of words and inline elements in a `div` that also holds paragraphs) becomes
  /// a paragraph of its own, as Readability.js does, so that it is scored like one.
  private static func wrapTextRuns(_ root: HTMLElement) {
    for element in [root] + root.descendants
    where element.name != "p" && element.elements.contains(where: { Scorer.blockNames.contains($0.name) }) {
      var index = element.children.count
      var end = index
      var hasText = false
      // From the end, so that the indices of the runs still to wrap stay the same.
      while index > 0 {
        index -= 1
        let inline: Bool
        switch element.children[index] {
        case .text(let text):
          inline = true
          if text.contains(where: { !$0.isWhitespace }) { hasText = true }
        case .element(let child): inline = !Scorer.blockNames.contains(child.name)
        }
        if !inline {
          if hasText { element.wrap(index + 1..<end, in: "p") }
          (end, hasText) = (index, false)
        }
      }
      if hasText { element.wrap(0..<end, in: "p") }
    }
  }

  /// `storyPublishDate` as `story-publish-date`, lower-cased: the words of a camel-case name.
  static func splitCamelCase(_ name: String) -> String {
    var out = ""
    for character in name {
      if character.isUppercase, !out.isEmpty { out.append("-") }
      out += character.lowercased()
    }
    return out
  }

  /// The element's class and id, lower-cased, joined by a space ("" when it has neither).
  static func classAndID(_ element: HTMLElement) -> String {
    let (name, id) = (element.attributes["class"], element.attributes["id"])
    guard name != nil || id != nil else { return "" }
    return ((name ?? "") + " " + (id ?? "")).lowercased()
  }

  // MARK: - After choosing

  /// Drops the boxes inside the article that look like furniture after all.
  ///
  /// A box holding most of the article's paragraph text (`total`) stays whatever it looks like: it is the
  /// article (an Elementor page's `elementor-widget-container`, a brief whose names are all links).
  private static func clean(_ article: HTMLElement, scorer: Scorer, total: Int) {
    article.children.removeAll {
      guard case .element(let child) = $0 else { return false }
      return scorer.paragraphText(child) * 2 <= total && isJunk(child, scorer: scorer)
    }
    for element in article.elements { clean(element, scorer: scorer, total: total) }
  }

  /// Removes a box inside the article that a heading opened as other posts ("You may like…"), when the
  /// article keeps `minimumText` characters without it: a site that shows its related posts whole (quotes,
  /// poems, short notes) has more of their text than of the article's, so neither the pruning nor `clean`,
  /// which spare what holds most of the text, take them away.
  private static func dropOtherPosts(
    _ element: HTMLElement, _ boxes: Set<ObjectIdentifier>, scorer: Scorer, total: Int
  ) {
    element.children.removeAll {
      guard case .element(let child) = $0, boxes.contains(ObjectIdentifier(child)) else { return false }
      return total - scorer.text(child).length >= minimumText
    }
    for child in element.elements { dropOtherPosts(child, boxes, scorer: scorer, total: total) }
  }

  /// Removes the runs of paragraphs inside the article that are links and little else (a "You may also
  /// like" list of titles, "DON'T MISS" and its links), with the short line that introduces a run.
  ///
  /// A run is two or more such paragraphs in a row, or one after a short line without links; a lone
  /// linked paragraph may be the article's own (a source, a document), and stays.
  private static func dropLinkRuns(_ article: HTMLElement, scorer: Scorer, total: Int) {
    for element in [article] + article.descendants where !element.children.isEmpty {
      var drop: Set<Int> = []
      var run: [Int] = []
      var lead: Int?
      var runLead: Int?
      func close() {
        if run.count >= 2 || !run.isEmpty && runLead != nil { drop.formUnion(run + (runLead.map { [$0] } ?? [])) }
        run = []
      }
      for (index, child) in element.children.enumerated() {
        guard case .element(let inner) = child, Scorer.isParagraph(inner) || linkRunNames.contains(inner.name) else {
          if case .text(let text) = child, !text.contains(where: { !$0.isWhitespace }) { continue }
          close()
          lead = nil
          continue
        }
        let facts = scorer.text(inner)
        if facts.length == 0 { continue }
        if isReadMore(inner, scorer: scorer) {
          close()
          drop.insert(index)
          lead = nil
        } else if scorer.linkDensity(inner) >= 0.75 && scorer.paragraphText(inner) * 2 <= total {
          if run.isEmpty { runLead = lead }
          run.append(index)
          lead = nil
        } else {
          close()
          lead = facts.length <= 40 && facts.linkLength == 0 ? index : nil
        }
      }
      close()
      guard !drop.isEmpty else { continue }
      element.children = element.children.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
    }
  }

  /// Whether the element is a formula or a post quoted from a social network: text, whatever holds it.
  private static func isQuotedContent(_ element: HTMLElement) -> Bool {
    element.name == "math" || element.name == "blockquote" && embeddedPost.matches(classAndID(element))
  }

  /// Whether two or more of the element's links are tags (`rel="tag"`).
  private static func isTagList(_ element: HTMLElement) -> Bool {
    element.descendants.lazy.filter { $0.name == "a" && ($0.attributes["rel"] ?? "").lowercased().contains("tag") }
      .prefix(2).count == 2
  }

  /// Labels of a line that points to another article ("Read more: …", "[Related: …]", "Leggi anche: …").
  static let readMoreLabels: Set<String> = [
    "read more", "read also", "also read", "related", "see more", "see also", "more", "also", "don't miss",
    "dont miss", "recommended", "related article", "related story", "related stories", "read next", "up next",
    "more on this", "more from", "leggi anche", "lesen sie auch", "mehr zum thema", "lire aussi", "à lire aussi",
    "a lire aussi", "lea también", "lee también", "leia também", "leia mais", "lees ook", "läs också", "czytaj też",
  ]

  /// Whether the element is a line pointing to another article: a label of ``readMoreLabels``, a colon, and
  /// a link that is most of the line.
  private static func isReadMore(_ element: HTMLElement, scorer: Scorer) -> Bool {
    let facts = scorer.text(element)
    guard facts.length <= 300, facts.linkLength * 2 >= facts.length else { return false }
    let line = Paragraphs.inline(element).lowercased().drop { $0.isWhitespace || $0 == "[" || $0 == "(" }
    guard let colon = line.prefix(24).firstIndex(of: ":") else { return false }
    let words = line[..<colon].map { $0 == "\u{2019}" ? "'" : $0 }.split(whereSeparator: \.isWhitespace)
    return readMoreLabels.contains(words.map { String($0) }.joined(separator: " "))
  }

  /// The elements besides paragraphs that a run of links is made of, or introduced by.
  static let linkRunNames: Set<String> = ["li", "h1", "h2", "h3", "h4", "h5", "h6"]

  /// Readability's conditional cleaning: headings that are links or furniture, and boxes (lists, tables,
  /// divs) that are furniture by name, picture galleries, link lists, or nearly empty.
  private static func isJunk(_ element: HTMLElement, scorer: Scorer) -> Bool {
    let name = element.name
    // A list of the post's tags (`rel="tag"`, as blog engines write them), whatever holds it.
    if scorer.linkDensity(element) >= 0.5, isTagList(element) { return true }
    if ["h1", "h2", "h3"].contains(name) {
      return scorer.classWeight(element) < 0 || scorer.linkDensity(element) > 0.33
    }
    // A page laid out in a table (as many were until about 2010) has its menu in a cell beside the article's:
    // a cell of three links or more that is mostly links. Cells of a table of data, short as they are, stay.
    if name == "td" || name == "th" {
      return scorer.linkDensity(element) > 0.5
        && element.descendants.lazy.filter { $0.name == "a" }.prefix(3).count == 3
    }
    guard ["table", "ul", "ol", "div", "section", "fieldset", "figure", "dl", "form"].contains(name) else {
      return name == "figcaption"
    }
    let weight = scorer.classWeight(element)
    if weight < 0 { return !element.descendants.contains(where: isQuotedContent) }
    let text = scorer.text(element)
    // Prose has commas; a box with many is kept whatever else it holds.
    if text.commas >= 10 { return false }
    let all = element.descendants
    // Readability turns a div without block children into a p before this count; so does this one.
    let paragraphs = all.reduce(0) { $0 + (Scorer.isParagraph($1) ? 1 : 0) }
    let images = all.reduce(0) { $0 + ($1.name == "img" ? 1 : 0) }
    let listItems = all.reduce(0) { $0 + ($1.name == "li" ? 1 : 0) }
    let density = scorer.linkDensity(element)
    if images > 1 && Double(paragraphs) / Double(images) < 0.5 { return true }
    if name != "ul" && name != "ol" && listItems > paragraphs + 100 { return true }
    if text.length < 25 && (images == 0 || images > 2) { return true }
    return weight < 25 ? density > 0.2 : density > 0.5
  }
}
