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
    // found, taken when it finds more (a short post on such a page is under `minimumText`, and what is
    // left visible is its footer). A part it hides beside other text (a print copy, a spoiler) stays out.
    if best?.text.count ?? 0 < minimumText, bytes.count <= retryBytes,
      let root = HTMLTree.parse(bytes, encoding: encoding)
    {
      let (article, _) = extract(root, Attempt(readStyleHidden: true))
      if article.text.count > best?.text.count ?? 0 { best = article }
    }
    // A page built by script can carry its article only in its linked data (schema.org's `articleBody`), or
    // only in the data its framework renders it from (`__NEXT_DATA__`, `window.__INITIAL_STATE__`): one more
    // reading of the page for both.
    if best?.text.count ?? 0 < minimumText, let root = HTMLTree.parse(bytes, encoding: encoding) {
      if let body = LinkedData.articleBody(in: root), body.count > best?.text.count ?? 0 {
        best = Article(title: best?.title ?? title(of: root), text: ControlCharacters.replaced(body))
      }
      if best?.text.count ?? 0 < minimumText, let title = title(of: root),
        let body = ScriptState.articleText(in: root, title: title), body.count > best?.text.count ?? 0,
        ScriptState.agrees(body, with: best?.text ?? "")
      {
        best = Article(title: best?.title ?? title, text: ControlCharacters.replaced(body))
      }
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
    revealStreamed(body)
    closeOpenHeadings(body)
    // Found before anything is pruned (a box's children cannot be read while they are being removed).
    let rests = hiddenRests(in: body)
    prune(body) {
      isNeverText($0) || !attempt.readStyleHidden && isStyledHidden($0) && !rests.contains(ObjectIdentifier($0))
    }
    let page = Scorer()
    let pageTotal = page.paragraphText(body)
    // Found before their buttons are pruned.
    let prompts = callBoxes(in: body, sizes: page)
    prune(body) {
      (isHidden($0) && page.paragraphText($0) * 2 <= pageTotal
        || isStyledHidden($0) && page.paragraphText($0) * 5 < pageTotal * 4)
        && !rests.contains(ObjectIdentifier($0))
    }
    wrapTextRuns(body)
    splitAtDoubleBreaks(body)
    let sizes = Scorer()
    let total = sizes.paragraphText(body)
    // Found before the pruning by name takes their headings away.
    let otherPosts = Set(body.descendants.filter(opensOtherPosts).map(ObjectIdentifier.init))
    let comments = commentBoxes(in: body)
    let gallery = isPhotoStory(body, scorer: sizes)
    // Readers' comments under a heading that says so go even when they are most of a short post's page.
    prune(body) {
      comments.contains(ObjectIdentifier($0)) && total - sizes.paragraphText($0) >= minimumCommentedText
        || sizes.paragraphText($0) * 2 <= total
          && (prompts.contains(ObjectIdentifier($0)) || isFurniture($0, sizes: sizes, gallery: gallery))
    }
    let scorer = Scorer(weighClasses: attempt.weighClasses)
    let article = scorer.article(in: body, title: title)
    if attempt.cleanBoxes {
      let total = scorer.paragraphText(article)
      let keepsCaptions = isPhotoStory(article, scorer: scorer)
      clean(article, scorer: scorer, total: total, keepsCaptions: keepsCaptions)
      if !keepsCaptions { dropPictureCaptions(article, scorer: scorer) }
      dropLinkRuns(article, scorer: scorer, total: total)
      dropTrailingHeading(article)
      dropCaptions(article, scorer: scorer)
      dropCardsAndLines(article, scorer: scorer)
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
    "script", "style", "iframe", "embed", "canvas", "select", "input", "textarea", "head", "link", "meta",
  ]
  /// Elements that do not hold the article's text on a well-formed page.
  ///
  /// They are removed unless they hold most of the page's text (where a repaired page nested the article in
  /// them). An `<object>`'s content is what shows when its plugin does not, and an `<svg>` can hold HTML in a
  /// `<foreignObject>`: both are read when that is where the prose is.
  static let dropped: Set<String> = [
    "noscript", "nav", "footer", "aside", "button", "label", "dialog", "menu", "object", "svg",
  ]

  /// Class and id words of page furniture: parts of names, and (after the `/`) whole words of them.
  static let unlikely = NamePattern(
    "-ad-|ai2html|banner|breadcrumb|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends"
      + "|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate"
      + "|pagination|pager|popup|yom-remote|newsletter|subscribe|cookie|promo|toolbar|signup|login|copyright",
    words: "share|sharing|byline|author|caption|ad|ads|advert|tags")
  /// Class and id words of the lines around an article that are not its text: when, by whom, a picture's
  /// caption.
  static let dateline = NamePattern(
    "dateline|timestamp|byline|newscaption",
    words: "date|dates|time|published|publish|updated|caption|credit|credits|author|meta")
  /// The heading elements.
  static let headings: Set<String> = ["h1", "h2", "h3", "h4", "h5", "h6"]

  /// Boxes of prose that no heading holds.
  private static let proseBoxes: Set<String> = [
    "p", "div", "section", "article", "main", "table", "ul", "ol", "dl", "blockquote", "form", "h1", "h2", "h3", "h4",
    "h5", "h6",
  ]

  /// Ends a heading where a browser would have: before the first paragraph or box of them inside it.
  ///
  /// An unclosed heading (`<h2 class="title">` and no end tag) holds the rest of the page in libxml2's
  /// tree. (One closed by the wrong end tag, `<h2>Site</h3>`, is closed before libxml2 reads the page, by
  /// `HTMLTree.endTagsAsBrowsersRead`, except in a page of UTF-16 or UTF-32, which that pass leaves.) The
  /// heading keeps what comes before its first child that is (or holds, among its first 500 elements) a
  /// paragraph or another heading; that child and the rest follow it. A heading whose boxes hold no
  /// paragraph (`<h2><div>Title</div></h2>`) stays whole.
  static func closeOpenHeadings(_ body: HTMLElement) {
    for heading in body.descendants where headings.contains(heading.name) {
      guard let parent = heading.parent,
        let index = heading.children.firstIndex(where: { node in
          guard case .element(let child) = node, proseBoxes.contains(child.name) else { return false }
          return holdsProse(child)
        })
      else { continue }
      let rest = Array(heading.children[index...])
      heading.children.removeSubrange(index...)
      parent.replace(heading, with: [.element(heading)] + rest)
    }
  }

  /// Whether the box is a paragraph or heading, or holds one among its first 500 elements.
  private static func holdsProse(_ box: HTMLElement) -> Bool {
    var stack = [box]
    var looks = 500
    while looks > 0, let next = stack.popLast() {
      looks -= 1
      if next.name == "p" || headings.contains(next.name) { return true }
      stack += next.elements
    }
    return false
  }

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

  /// Puts each part a React page streamed in (`<div hidden id="S:0">`) where its script would, in place of
  /// its placeholder (`<template id="B:0">`): an article whose first paragraphs came with the page and whose
  /// rest was streamed reads in order, whole.
  static func revealStreamed(_ body: HTMLElement) {
    var placeholders: [Substring: HTMLElement] = [:]
    var parts: [(id: Substring, part: HTMLElement)] = []
    for element in body.descendants {
      guard let id = element.attributes["id"], id.count > 2, id.dropFirst().hasPrefix(":") else { continue }
      if element.name == "template", id.hasPrefix("B:") {
        placeholders[id.dropFirst(2)] = element
      } else if element.attributes["hidden"] != nil, id.hasPrefix("S:") {
        parts.append((id.dropFirst(2), element))
      }
    }
    for (id, part) in parts {
      guard let placeholder = placeholders[id], let place = placeholder.parent, let home = part.parent,
        !placeholder.isInside(part)
      else { continue }
      // A part streamed twice, or whose placeholder is gone, stays where it is.
      if place.replace(placeholder, with: part.children) { home.remove(part) }
    }
  }

  /// The hidden parts that are the rest of an article a "Continue reading" button shows: each holds two
  /// paragraphs of prose or more, after two shown ones in the same box, and does not say again what they say
  /// (a copy for print or for another screen).
  private static func hiddenRests(in body: HTMLElement) -> Set<ObjectIdentifier> {
    let sizes = Scorer()
    func isProse(_ paragraph: HTMLElement) -> Bool {
      paragraph.name == "p" && sizes.text(paragraph).length >= 80 && sizes.linkDensity(paragraph) < 0.3
    }
    func isConcealed(_ element: HTMLElement) -> Bool { isHidden(element) || isStyledHidden(element) }
    var rests = Set<ObjectIdentifier>()
    // Each box's children once, in order (a page of a million hidden parts costs a walk, not its square).
    for parent in [body] + body.descendants where parent.elements.contains(where: isConcealed) {
      var shown = Set<String>()
      for child in parent.elements {
        guard isConcealed(child) else {
          if isProse(child) { shown.insert(Paragraphs.inline(child).trimmingASCIIWhitespace) }
          continue
        }
        guard shown.count >= 2 else { continue }
        // Its first two paragraphs of prose, within its first 2,000 elements.
        var found: [HTMLElement] = []
        var stack = child.elements.reversed() as [HTMLElement]
        var looks = 2_000
        while found.count < 2, looks > 0, let next = stack.popLast() {
          looks -= 1
          if isProse(next) { found.append(next) } else { stack += next.elements.reversed() }
        }
        guard found.count == 2 else { continue }
        if !shown.contains(Paragraphs.inline(found[0]).trimmingASCIIWhitespace) {
          rests.insert(ObjectIdentifier(child))
        }
      }
    }
    return rests
  }

  /// Whether the element's content is never shown as text.
  private static func isNeverText(_ element: HTMLElement) -> Bool {
    neverText.contains(element.name)
  }

  /// Whether the element is of a kind that does not hold the article, or hidden.
  ///
  /// A `<template>` is not shown until script stamps it into the page, which it does with one that holds
  /// the page's text (and an unclosed one swallows the page); the declarative shadow root of a
  /// server-rendered web component (`shadowrootmode`) is its content, always read.
  private static func isHidden(_ element: HTMLElement) -> Bool {
    if dropped.contains(element.name) { return true }
    if element.name == "template" {
      return element.attributes["shadowrootmode"] == nil && element.attributes["shadowroot"] == nil
    }
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
  private static func isFurniture(_ element: HTMLElement, sizes: Scorer, gallery: Bool) -> Bool {
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
    // On a photo story's page, the text of its captions is left to the cleaning, which keeps it.
    if gallery, isCaptionText(element, names) { return false }
    // A short dateline, byline or caption goes even when its name also says `content`.
    if dateline.matches(names) && sizes.text(element).length < 200 { return true }
    // A formula is text, whatever its container is named (MathJax's `CtxtMenu_Attached_0` names a menu), and
    // so is a post the article quotes from a social network (in a `social-media-embed`).
    return unlikely.matches(names) && !maybe.matches(names) && !element.descendants.contains(where: isQuotedContent)
  }

  /// Whether the element is a `figcaption`'s text named as a caption (not its credit or date).
  private static func isCaptionText(_ element: HTMLElement, _ names: String) -> Bool {
    guard names.contains("caption"), !names.contains("credit") else { return false }
    var box: HTMLElement? = element
    while let current = box {
      if current.name == "figcaption" { return true }
      box = current.parent
    }
    return false
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
  static func words(_ text: String) -> [Substring] {
    text.lowercased().split { !$0.isLetter && !$0.isNumber }
  }

  /// The lower-case words of `text` joined by single spaces ("Related  Stories:" as "related stories").
  static func wordLine(_ text: String) -> String {
    words(text).joined(separator: " ")
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
        case .element(let child):
          inline = !Scorer.blockNames.contains(child.name)
          // Text inside inline elements counts too: `<span class="postbody">` with `<br>`s is a forum's post.
          if inline, !hasText, child.name != "a" {
            var (wanted, looks) = (80, 32)
            if Self.holdsText(child, wanted: &wanted, looks: &looks) { hasText = true }
          }
        }
        if !inline {
          if hasText { element.wrap(index + 1..<end, in: "p") }
          (end, hasText) = (index, false)
        }
      }
      if hasText { element.wrap(0..<end, in: "p") }
    }
  }

  /// Text in lines two `<br>`s apart becomes a paragraph a line, as Readability.js makes it.
  ///
  /// A post written so ends, like one written in `p`s, in lines that `dropLinkRuns` and the cleaning can
  /// tell apart ("You may also like..." and five headlines). Only paragraphs are split (with the runs of
  /// text `wrapTextRuns` made paragraphs): a box of such lines and nothing else is scored as one paragraph
  /// of several parts (`Scorer.breakParts`), and cut into lines it would leave its headings out.
  static func splitAtDoubleBreaks(_ root: HTMLElement) {
    // Each box's children made again once, whatever the number of lines: a page of 100,000 `a<br><br>`
    // costs one pass, not one array move per line.
    for box in [root] + root.descendants where box.elements.contains(where: { $0.name == "p" }) {
      var children: [HTMLNode] = []
      var changed = false
      for child in box.children {
        guard case .element(let paragraph) = child, paragraph.name == "p",
          case let cuts = doubleBreaks(paragraph.children), !cuts.isEmpty
        else {
          children.append(child)
          continue
        }
        changed = true
        var start = 0
        let end = paragraph.children.count
        for cut in cuts + [end..<end] {
          if start < cut.lowerBound {
            let line = HTMLElement(name: "p", attributes: paragraph.attributes, parent: box)
            line.adopt(paragraph.children[start..<cut.lowerBound])
            children.append(.element(line))
          }
          start = cut.upperBound
        }
      }
      if changed { box.children = children }
    }
  }

  /// The runs of two `<br>`s or more (with only spaces between) among `nodes`, first to last.
  private static func doubleBreaks(_ nodes: [HTMLNode]) -> [Range<Int>] {
    var runs: [Range<Int>] = []
    var start: Int?
    var (breaks, last) = (0, 0)
    func close() {
      if let start, breaks >= 2 { runs.append(start..<last + 1) }
      (start, breaks) = (nil, 0)
    }
    for (index, node) in nodes.enumerated() {
      switch node {
      case .element(let element) where element.name == "br":
        if start == nil { start = index }
        (breaks, last) = (breaks + 1, index)
      case .text(let text) where !text.contains(where: { !$0.isWhitespace }):
        continue
      default:
        close()
      }
    }
    close()
    return runs
  }

  /// Whether the element holds `wanted` bytes of text outside links, found within `looks` nodes (both
  /// counted down: deep nesting of empty inline elements costs a few dozen looks).
  private static func holdsText(_ element: HTMLElement, wanted: inout Int, looks: inout Int) -> Bool {
    for child in element.children {
      looks -= 1
      guard looks > 0 else { return false }
      switch child {
      case .text(let text):
        wanted -= text.utf8.count
        if wanted <= 0 { return true }
      case .element(let inner):
        if inner.name != "a", holdsText(inner, wanted: &wanted, looks: &looks) { return true }
      }
    }
    return false
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
}
