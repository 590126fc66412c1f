// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport
import WatcherXML

/// Before scoring: the boxes that the buttons and links in them show to be furniture, whatever they are
/// named: a paywall's prompt to subscribe, readers' comments with a Reply under each.
extension ArticleExtractor {
  /// Class and id words of a paywall or registration wall: the box that asks the reader to subscribe or sign
  /// in, or (on some sites) the part of the article behind it.
  static let paywall = NamePattern("paywall|regwall|tinypass|poool")
  /// Words of the links and buttons that ask the reader to subscribe, sign in or register.
  static let subscribeCalls = NamePattern(
    "subscri|abonn|login|log-in|log in|signin|sign-in|sign in|register|sign up|signup|sign-up|newsletter|anmelden"
      + "|inscri|suscrib|iscriviti")
  /// The most text a box around a sign-up form has: its heading and a line or two of pitch.
  static let maxSignUpBox = 400

  /// The boxes that a button or link in them shows to be furniture, found before buttons are pruned: a
  /// paywall's prompt (`isPaywallPrompt`) and readers' comments (`replyThreads`).
  static func callBoxes(in body: HTMLElement, sizes: Scorer) -> Set<ObjectIdentifier> {
    var subscribe: [HTMLElement] = []
    var replies: [HTMLElement] = []
    // Forms, and buttons that ask outside a form: a page built by script often sends its address field with
    // a button and no form (`<div><input type="email"><button>Sign up</button></div>`).
    var signUps: [HTMLElement] = []
    for element in body.descendants where ["a", "button", "form"].contains(element.name) {
      // Labels are short: the text of longer links is never made.
      let label =
        element.name != "form" && sizes.text(element).length <= 30
        ? Paragraphs.inline(element).trimmingASCIIWhitespace.lowercased() : ""
      if element.name != "a" || subscribeCalls.matches(label)
        || subscribeCalls.matches((element.attributes["href"] ?? "").lowercased())
      {
        subscribe.append(element)
      }
      if element.name == "form"
        || element.name == "button" && subscribeCalls.matches(label)
          // A form holds it within a few levels: a sign-up button is near its form's top.
          && !isInside(["form"], element)
      {
        signUps.append(element)
      }
      if element.name != "form", replies.count < maxReplyCalls, replyLabels.contains(where: label.hasPrefix),
        !isInSentence(element)
      {
        replies.append(element)
      }
    }
    var boxes = signUpBoxes(signUps, in: body, sizes: sizes)
    var seen = Set<ObjectIdentifier>()
    for call in subscribe {
      var box = call.parent
      while let current = box, current !== body, seen.insert(ObjectIdentifier(current)).inserted {
        if isPaywallPrompt(current, sizes: sizes) { boxes.insert(ObjectIdentifier(current)) }
        box = current.parent
      }
    }
    return boxes.union(replyThreads(replies, in: body, sizes: sizes))
  }

  /// The boxes around a form (or a button outside one) that asks the reader to subscribe or sign up, whatever
  /// they are named.
  ///
  /// A newsletter's box: "Get the daily", its pitch, an address field and a "Sign up" button. The box is the
  /// form with its heading and pitch, up to the largest box of under `maxSignUpBox` characters. A form is one
  /// when its button says so, or its address or name does (`/newsletter`, Mailchimp's `list-manage`); a
  /// button is one when it says so.
  static func signUpBoxes(_ forms: [HTMLElement], in body: HTMLElement, sizes: Scorer) -> Set<ObjectIdentifier> {
    var boxes = Set<ObjectIdentifier>()
    for form in forms where !boxes.contains(ObjectIdentifier(form)) {
      let names = ((form.attributes["action"] ?? "") + " " + classAndID(form)).lowercased()
      let asks =
        form.name == "button" || subscribeCalls.matches(names) || names.contains("list-manage")
        || form.descendants.contains { part in
          (part.name == "button" || part.name == "a") && sizes.text(part).length <= 30
            && subscribeCalls.matches(Paragraphs.inline(part).lowercased())
        }
      guard asks, sizes.text(form).length < maxSignUpBox else { continue }
      var box = form
      for _ in 0..<maxLineDepth {
        guard let parent = box.parent, parent !== body, sizes.text(parent).length < maxSignUpBox else { break }
        box = parent
      }
      boxes.insert(ObjectIdentifier(box))
    }
    return boxes
  }

  /// Whether a box named as a paywall is the prompt (a short box with a button, a form, or a link that asks
  /// to subscribe or sign in, which `callBoxes` found in it), not the part of the article some sites put
  /// behind it under the same name.
  private static func isPaywallPrompt(_ element: HTMLElement, sizes: Scorer) -> Bool {
    sizes.text(element).length < 1_000 && paywall.matches(classAndID(element))
  }

  /// The most reply links counted on a page (a thread of a thousand comments is found by them; a page of a
  /// million, built to be costly, costs no more).
  static let maxReplyCalls = 1_000

  /// Labels of the link or button under each reader's comment that answers it, in a dozen languages.
  static let replyLabels = [
    "reply", "antworten", "répondre", "repondre", "rispondi", "responder", "responda", "odpowiedz", "beantwoorden",
    "reageer", "svara", "svar", "vastaa", "odpovědět", "ответить", "返信", "回复", "回覆", "답글",
  ]

  /// The boxes of reader comments, whatever they are named (`#kommentare`, `#responses`): boxes of two
  /// entries or more that each have a link or button answering it (`calls`: "Reply", "Antworten"), where
  /// those entries are nearly all of the box's text (an article with its comments under it is not one).
  static func replyThreads(_ calls: [HTMLElement], in body: HTMLElement, sizes: Scorer) -> Set<ObjectIdentifier> {
    guard calls.count >= 2 else { return [] }
    var counts: [ObjectIdentifier: Int] = [:]
    for call in calls {
      var box: HTMLElement? = call
      while let current = box, current !== body {
        counts[ObjectIdentifier(current), default: 0] += 1
        box = current.parent
      }
    }
    // The boxes that hold a quoted post or a formula, found once (not searched again for each box).
    var quoting = Set<ObjectIdentifier>()
    for quoted in body.descendants where isQuotedContent(quoted) {
      var box = quoted.parent
      while let current = box, quoting.insert(ObjectIdentifier(current)).inserted { box = current.parent }
    }
    var threads = Set<ObjectIdentifier>()
    for element in body.descendants where counts[ObjectIdentifier(element), default: 0] >= 2 {
      let entries = element.elements.filter { counts[ObjectIdentifier($0)] != nil }
      guard entries.count >= 2, !quoting.contains(ObjectIdentifier(element)) else { continue }
      let entryText = entries.reduce(0) { $0 + sizes.text($1).length }
      if entryText * 5 >= sizes.text(element).length * 4 { threads.insert(ObjectIdentifier(element)) }
    }
    return threads
  }

  /// The least paragraph text left beside a comment box for it to go (a page of comments alone keeps them).
  static let minimumCommentedText = 100

  /// Words a heading over readers' comments is made of ("3 comments", "Kommentare", "Leave a reply").
  static let commentHeadings: Set<String> = [
    "comment", "comments", "kommentar",
    "kommentare", "commentaire", "commentaires", "comentario", "comentarios", "comentário", "comentários",
    "commento", "commenti", "reacties", "reactie", "kommentarer", "kommentit", "komentarze", "komentarzy",
    "комментарии", "комментариев", "комментарий", "コメント", "评论", "評論", "留言", "댓글", "leave a reply",
    "leave a comment", "post a comment", "add a comment", "join the discussion", "join the conversation",
    "what do you think?", "laisser un commentaire", "deja un comentario", "kommentar schreiben",
    "lascia un commento", "one thought on", "one response to", "one reply to", "one comment on",
    "comentar", "comente", "commenter", "kommentieren", "commentare", "reageer", "reageren", "write a comment",
    "escribe un comentario", "deja tu comentario", "deixe seu comentário", "deixe um comentário",
  ]
  /// Words that head readers' comments only with their count ("3 responses"): alone, a section of an article
  /// ("Responses", "Reactions") may be headed so.
  static let countedCommentHeadings: Set<String> = [
    "response", "responses", "reply", "replies", "reactions", "thoughts on", "responses to", "replies to",
    "comments on", "réponses à", "commentaires sur", "kommentare zu", "comentarios en", "commenti su",
  ]
  /// Whether a heading's words are readers' comments said with a word or two before them ("Top rated comments",
  /// "Latest comments", "Reader comments", "Show all comments").
  static func isQualifiedCommentHeading(_ words: String) -> Bool {
    let parts = words.split(separator: " ")
    guard let last = parts.last, parts.count >= 2, parts.count <= 4, ["comment", "comments"].contains(last) else {
      return false
    }
    return parts.dropLast().allSatisfy { commentQualifiers.contains(String($0)) }
  }

  /// Words said before "comments" in a heading over readers' comments.
  static let commentQualifiers: Set<String> = [
    "top", "rated", "latest", "recent", "newest", "oldest", "best", "most", "popular", "liked", "featured",
    "reader", "readers", "readers'", "user", "users", "show", "view", "all", "hide", "load", "our", "your",
  ]
  /// Marks that open the post's title quoted after the words ("10 thoughts on “Title”", WordPress's own).
  static let openingQuotes: Set<Character> = ["\u{201C}", "\"", "\u{AB}", "\u{201E}", "\u{2018}", "'"]

  /// The boxes that a heading over readers' comments opens (its first element), whatever they are named.
  ///
  /// The heading is only the word and perhaps a count ("3 responses", "12 Kommentare", "Comments (4)", "Leave
  /// a reply"), or the words and the post's title quoted ("12 thoughts on “Title”", "One reply to “Title”").
  static func commentBoxes(in body: HTMLElement) -> Set<ObjectIdentifier> {
    var boxes = Set<ObjectIdentifier>()
    for heading in body.descendants where headings.contains(heading.name) {
      guard let box = heading.parent, box !== body, box.name != "main", box.name != "article",
        box.elements.first === heading
      else { continue }
      var said = Paragraphs.inline(heading).lowercased()
      // The post's title quoted after the words is not counted ("12 thoughts on “A long title”").
      if let quote = said.firstIndex(where: openingQuotes.contains), quote > said.startIndex {
        said = String(said[..<quote])
      }
      guard said.count <= 40 else { continue }
      // The count goes, before or after the word: "3 comments", "comments (3)", "komentarze: 3".
      let words = said.split { !$0.isLetter && $0 != "?" && $0 != "'" }.joined(separator: " ")
      if commentHeadings.contains(words) || countedCommentHeadings.contains(words) && said.contains(where: \.isNumber)
        || isQualifiedCommentHeading(words)
      {
        boxes.insert(ObjectIdentifier(box))
      }
    }
    return boxes
  }

  /// Whether the element's first child is a heading named as introducing other posts (``otherPosts``).
  static func opensOtherPosts(_ element: HTMLElement) -> Bool {
    guard element.name != "body", element.name != "main", let first = element.elements.first,
      headings.contains(first.name)
    else { return false }
    // The heading's name, the box's own name ("related" over a list of teasers), or the heading's words.
    for names in [classAndID(first), classAndID(element)] where !names.isEmpty {
      if otherPosts.matches(names) && !maybe.matches(names) { return true }
    }
    return otherPostsHeadings.contains(wordLine(Paragraphs.inline(first)))
  }

  /// Headings over other posts than the page's own, whole ("Related stories", "You may also like"); an
  /// article's own "Related work" is not one.
  static let otherPostsHeadings: Set<String> = [
    "related stories", "related articles", "related posts", "related news", "related content", "more stories",
    "more news", "you may also like", "you might also like", "recommended for you", "recommended stories",
    "most read", "most popular", "popular stories", "trending now", "read next", "more from us",
    "lesen sie auch", "das könnte sie auch interessieren", "à lire aussi", "sur le même sujet",
    "también te puede interesar", "noticias relacionadas", "potrebbe interessarti anche", "leia também",
    "te puede interesar", "ti potrebbe interessare", "você pode gostar", "você também pode gostar", "veja também",
    "vous aimerez aussi", "vous aimerez peut être aussi", "das könnte dich auch interessieren",
  ]

  /// Whether text stands right before or after the element among its parent's children: a link in a sentence
  /// ("Press Reply to answer"), not one under a comment.
  static func isInSentence(_ element: HTMLElement) -> Bool {
    guard let parent = element.parent, let index = parent.index(of: element) else { return false }
    return [index - 1, index + 1].contains { near in
      guard parent.children.indices.contains(near), case .text(let text) = parent.children[near] else { return false }
      return !text.allSatisfy(\.isWhitespace)
    }
  }
}
