// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// newsboat's `urls` file: one feed per line, `URL [TAG]...`, tags separated by spaces and quoted with `"`
/// when they hold one; a `"~Title"` tag renames the feed; `!` hides it (ignored here); `#` starts a comment.
enum NewsboatURLs {
  /// The subscriptions, and the entries that are not feeds; a line that is not a URL means the file is not a
  /// urls file (nor OPML) at all.
  static func parse(_ text: String) throws(OPMLError) -> (subscriptions: [OPMLSubscription], skipped: [String]) {
    var subscriptions: [OPMLSubscription] = []
    var skipped: [String] = []
    var seen: Set<String> = []
    for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = raw.trimming()
      guard !line.isEmpty, !line.hasPrefix("#") else { continue }
      let words = Self.words(line)
      guard let url = words.first else { continue }
      if url.hasPrefix("query:") || url.hasPrefix("exec:") || url.hasPrefix("filter:") {
        skipped.append(
          "line \(number + 1) (\(url.prefix(60))): a newsboat \(url.prefix { $0 != ":" }) entry, not a feed")
        continue
      }
      guard url.contains("://") else {
        throw OPMLError(
          line: number + 1, column: 1,
          message: "not an OPML document (no <opml>) nor a newsboat urls file ('\(url.prefix(40))' is not a URL)")
      }
      var title: String?
      var tags: [String] = []
      for word in words.dropFirst() {
        if word.hasPrefix("~") {
          title = String(word.dropFirst())
        } else if word != "!" {
          let tag = FeedConfig.slugify(word)
          if !tag.isEmpty, !tags.contains(tag) { tags.append(tag) }
        }
      }
      if seen.insert(url).inserted { subscriptions.append(OPMLSubscription(url: url, title: title, tags: tags)) }
    }
    return (subscriptions, skipped)
  }

  /// Splits a line into words: spaces separate, `"…"` groups (with `\"` inside), `#` outside quotes ends it.
  private static func words(_ line: String) -> [String] {
    var words: [String] = []
    var current = ""
    var quoted = false
    var inWord = false
    var escaped = false
    for character in line {
      if escaped {
        current.append(character)
        escaped = false
      } else if quoted {
        if character == "\\" {
          escaped = true
        } else if character == "\"" {
          quoted = false
        } else {
          current.append(character)
        }
      } else if character == "\"" {
        quoted = true
        inWord = true
      } else if character == " " || character == "\t" {
        if inWord { words.append(current) }
        current = ""
        inWord = false
      } else if character == "#", !inWord {
        break
      } else {
        current.append(character)
        inWord = true
      }
    }
    if inWord { words.append(current) }
    return words
  }
}
