// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherFeed
import WatcherSupport
import WatcherXML

#if canImport(Glibc)
  import Glibc
#endif

/// Adds feeds to a config file as text, so the user's comments, order and layout stay exactly as they were.
///
/// The config is never re-serialized: new entries are inserted at the end of the top-level `feeds:` list (or
/// a `feeds:` list is appended), and the result must load with every old feed and every new one, or nothing
/// is written.
public enum ConfigEditor {
  /// Why feeds could not be added.
  public struct EditError: Error, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// What an import would do.
  public struct Plan: Sendable {
    /// The entries to add, with unique names.
    public var added: [FeedConfig]
    /// URLs already in the config (or twice in the import), skipped.
    public var skipped: [String]
    /// URLs that are not http(s) feeds (a `file:` path, a `javascript:` link, a relative link), skipped:
    /// an import adds web feeds only.
    public var notWeb: [String] = []
    /// The URLs that cannot be a line of the config: longer than `maxURLBytes`, or holding a space, a line
    /// break or another control character.
    public var invalid: [String] = []
  }

  /// The longest URL an import writes into the config.
  public static let maxURLBytes = 8_192
  /// The longest title an import writes (cut, with "…").
  public static let maxTitleCharacters = 200

  /// Whether `url` can be written as it is on one line of the config.
  static func isWritable(_ url: String) -> Bool {
    url.utf8.count <= maxURLBytes
      && !url.unicodeScalars.contains { $0.value <= 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 }
  }

  /// `text` cut to `maxTitleCharacters` characters (what YAML cannot hold raw is quoted when written).
  static func oneLine(_ text: String) -> String {
    let line = text.trimming(.spaces)
    return line.count > maxTitleCharacters ? String(line.prefix(maxTitleCharacters - 1)) + "…" : line
  }

  /// Which subscriptions are new to `config`, named uniquely (a slug of the title, else of the URL).
  public static func plan(_ subscriptions: [OPMLSubscription], into config: Config) -> Plan {
    var urls = Set(config.feeds.map { normalized($0.url) })
    var names = Set(config.feeds.map(\.name))
    var plan = Plan(added: [], skipped: [])
    for subscription in subscriptions {
      guard isWritable(subscription.url) else {
        plan.invalid.append(subscription.url)
        continue
      }
      guard FeedLocation.isHTTP(subscription.url), URLComponents(string: subscription.url)?.host?.isEmpty == false
      else {
        plan.notWeb.append(subscription.url)
        continue
      }
      guard urls.insert(normalized(subscription.url)).inserted else {
        plan.skipped.append(subscription.url)
        continue
      }
      // The name an export gave it, when it is still free; else one from its title.
      // A name of watcher's own: one line of at most 100 printable characters.
      let kept = subscription.name.flatMap { name in
        name.count <= 100 && !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
          ? name : nil
      }
      let name =
        kept.flatMap { names.contains($0) ? nil : $0 }
        ?? uniqueName(title: subscription.title.map(oneLine), url: subscription.url, taken: names)
      names.insert(name)
      var feed = FeedConfig(
        url: subscription.url, name: name, title: subscription.title.map(oneLine).flatMap { $0.isEmpty ? nil : $0 },
        tags: subscription.tags.prefix(20).map(oneLine).filter { !$0.isEmpty })
      feed.site = subscription.site.flatMap { FeedLocation.isHTTP($0) && isWritable($0) ? $0 : nil }
      plan.added.append(feed)
    }
    return plan
  }

  /// A name for a feed: a slug of its title ("The H" → "the-h"), else of its URL, made unique among `taken`
  /// with a counter ("the-h-2").
  public static func uniqueName(title: String?, url: String, taken: Set<String>) -> String {
    var base = String(
      (title.map(FeedConfig.slugify).flatMap { $0.isEmpty ? nil : $0 } ?? FeedConfig.slug(for: url)).prefix(60))
    while base.hasSuffix("-") { base.removeLast() }
    var name = base
    var counter = 2
    while taken.contains(name) {
      name = "\(base)-\(counter)"
      counter += 1
    }
    return name
  }

  /// The same feed written differently: scheme and host case, a default port, a trailing slash.
  package static func normalized(_ url: String) -> String {
    var text = FeedLocation.normalized(url.trimming(.spaces))
    while text.hasSuffix("/") { text.removeLast() }
    return text
  }

  /// YAML list entries for `feeds`, indented by `indent`.
  public static func entries(_ feeds: [FeedConfig], indent: String = "  ") -> String {
    var out = ""
    for feed in feeds {
      out +=
        "\(indent)- \(feed.page == nil ? "url" : "page"): \(quoted(feed.url))\n\(indent)  name: \(quoted(feed.name))\n"
      if let rows = feed.page?.pins?.items { out += "\(indent)  items: \(quoted(rows.text))\n" }
      if let title = feed.title, title != feed.name { out += "\(indent)  title: \(quoted(title))\n" }
      if let site = feed.site { out += "\(indent)  site: \(quoted(site))\n" }
      if !feed.tags.isEmpty { out += "\(indent)  tags: [\(feed.tags.map(quoted).joined(separator: ", "))]\n" }
      if feed.autoInterval == true {
        out += "\(indent)  interval: auto\n"
      } else if let interval = feed.interval {
        out += "\(indent)  interval: \(durationText(interval))\n"
      }
      if feed.notify { out += "\(indent)  notify: true\n" }
      if let fullText = feed.fullText { out += "\(indent)  full_text: \(fullText)\n" }
      switch feed.firstPoll {
      case nil: break
      case .silent: out += "\(indent)  first_poll: silent\n"
      case .all: out += "\(indent)  first_poll: all\n"
      case .latest(let n): out += "\(indent)  first_poll: latest \(n)\n"
      }
    }
    return out
  }

  /// Seconds as the config writes a duration, in the largest unit that divides them: "15m", "2h", "1d".
  public static func durationText(_ seconds: Int) -> String {
    for (unit, size) in [("w", 604_800), ("d", 86_400), ("h", 3_600), ("m", 60)] where seconds % size == 0 {
      return "\(seconds / size)\(unit)"
    }
    return "\(seconds)s"
  }

  /// `text` with `feeds` added to its top-level `feeds:` list.
  public static func adding(_ feeds: [FeedConfig], to original: String, path: String) throws(EditError) -> String {
    let (text, restore) = plainLines(original)
    return restore(try addingLines(feeds, to: text, path: path))
  }

  private static func addingLines(_ feeds: [FeedConfig], to text: String, path: String) throws(EditError) -> String {
    var lines = text.components(separatedBy: "\n")
    if lines.last == "" { lines.removeLast() }
    func isKey(_ line: String) -> Bool {
      guard let first = line.first, !" \t#-.".contains(first) else {
        return line.hasPrefix("---") || line.hasPrefix("...")
      }
      return true
    }
    guard let start = lines.firstIndex(where: { $0.hasPrefix("feeds:") || $0.hasPrefix("feeds :") }) else {
      // No feeds yet: append the list.
      let body = lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
      return try validated(body + "feeds:\n" + entries(feeds), adding: feeds.count, to: text, path: path)
    }
    let rest = lines[start].drop { $0 != ":" }.dropFirst().trimming(.spaces)
    if rest.hasPrefix("[") {
      guard rest.hasPrefix("[]") else {
        throw EditError(
          description: "\(path):\(start + 1): 'feeds' is written as a [flow, list]; add the entries by hand "
            + "(use --print to get them)")
      }
      lines[start] = "feeds:" + rest.dropFirst(2)
    } else if !rest.isEmpty, !rest.hasPrefix("#") {
      throw EditError(description: "\(path):\(start + 1): 'feeds' is not a list; fix it first (watcher check)")
    }
    var end = lines.index(after: start)
    while end < lines.count, !isKey(lines[end]) { end += 1 }
    // Blank lines and comments just before the next key belong to it.
    while end > start + 1,
      lines[end - 1].trimming(.spaces).isEmpty
        || lines[end - 1].hasPrefix("#")
    {
      end -= 1
    }
    let indent =
      lines[(start + 1)..<end].first { $0.trimming(.spaces).hasPrefix("- ") }
      .map { String($0.prefix { $0 == " " }) } ?? "  "
    var entryLines = entries(feeds, indent: indent).components(separatedBy: "\n")
    entryLines.removeLast()
    lines.insert(contentsOf: entryLines, at: end)
    return try validated(lines.joined(separator: "\n") + "\n", adding: feeds.count, to: text, path: path)
  }

  /// `text` without the entry of `feed` (one of `config.feeds`, read from `text`): its lines, from its `-` to
  /// the next entry or the end of the list, comments inside it included; the other lines stay as they were.
  public static func removing(_ feed: FeedConfig, from config: Config, text original: String, path: String)
    throws(EditError) -> String
  {
    let (text, restore) = plainLines(original)
    return restore(try removingLines(feed, from: config, text: text, path: path))
  }

  private static func removingLines(_ feed: FeedConfig, from config: Config, text: String, path: String)
    throws(EditError) -> String
  {
    var lines = text.components(separatedBy: "\n")
    let hadNewline = lines.last == ""
    if hadNewline { lines.removeLast() }
    guard let index = config.feeds.firstIndex(where: { $0.url == feed.url && $0.name == feed.name }),
      let mark = feed.mark, mark.line >= 1, mark.line <= lines.count
    else {
      throw EditError(description: "\(path): cannot find the entry of '\(feed.name)' in the file")
    }
    /// The line of the `-` that starts the entry whose mapping starts at `mark`.
    func dashLine(_ mark: Mark) -> Int? {
      var line = mark.line - 1
      while line >= 0 {
        let content = lines[line].trimming(.spaces)
        if content.hasPrefix("- ") || content == "-" { return line }
        if line < mark.line - 1, !content.isEmpty, !content.hasPrefix("#") { return nil }
        line -= 1
      }
      return nil
    }
    guard let start = dashLine(mark) else {
      throw EditError(
        description: "\(path):\(mark.line): the feeds are not a block list ('- url: …' entries); remove "
          + "'\(feed.name)' by hand")
    }
    var end: Int
    if index + 1 < config.feeds.count, let next = config.feeds[index + 1].mark, let nextStart = dashLine(next) {
      end = nextStart
    } else {
      let indent = lines[start].prefix { $0 == " " }.count
      end = start + 1
      while end < lines.count {
        let line = lines[end]
        let content = line.trimming(.spaces)
        // The entry's own lines are indented deeper than its `-`.
        if !content.isEmpty, !content.hasPrefix("#"), line.prefix(while: { $0 == " " }).count <= indent { break }
        end += 1
      }
    }
    // Blank lines and comments just before what follows belong to it.
    while end > start + 1 {
      let content = lines[end - 1].trimming(.spaces)
      guard content.isEmpty || content.hasPrefix("#") else { break }
      end -= 1
    }
    // Comments just above the entry's `-` are about it; the blank lines after it go with it.
    var first = start
    while first > 0, lines[first - 1].trimming(.spaces).hasPrefix("#"),
      lines[first - 1].prefix(while: { $0 == " " }).count >= lines[start].prefix(while: { $0 == " " }).count
    {
      first -= 1
    }
    while end < lines.count, lines[end].trimming(.spaces).isEmpty { end += 1 }
    lines.removeSubrange(first..<end)
    let new = lines.joined(separator: "\n") + (hadNewline ? "\n" : "")
    do {
      let after = try ConfigLoader.parse(new, path: path)
      guard after.feeds.count == config.feeds.count - 1, !after.feeds.contains(where: { $0.url == feed.url }) else {
        throw EditError(description: "\(path): the edited config would not be the same without '\(feed.name)'")
      }
      return new
    } catch let error as ConfigError {
      throw EditError(
        description: "without '\(feed.name)' the config would not load, so nothing was changed (a rule may "
          + "name it in feeds:):\n\(error.rendered)")
    } catch let error as EditError {
      throw error
    } catch {
      throw EditError(description: "\(error)")
    }
  }

  /// Refuses an edit unless the new text loads with exactly `count` more feeds than the old one.
  private static func validated(_ new: String, adding count: Int, to old: String, path: String) throws(EditError)
    -> String
  {
    let before = (try? ConfigLoader.parse(old, path: path))?.feeds.count ?? 0
    do {
      let after = try ConfigLoader.parse(new, path: path)
      guard after.feeds.count == before + count else {
        throw EditError(description: "\(path): the edited config would not hold the new feeds as expected")
      }
      return new
    } catch let error as ConfigError {
      throw EditError(
        description: "the edited config would not load, so nothing was changed (use --print and add the entries "
          + "by hand):\n\(error.rendered)")
    } catch {
      throw EditError(description: "\(error)")
    }
  }

  /// Writes `text` to `path` atomically (keeping its permissions), after copying the old file to `PATH.bak`.
  ///
  /// Returns the backup's path, or `nil` when there was no old file.
  public static func write(_ text: String, to given: String) throws(EditError) -> String? {
    // A symlinked config (dotfiles kept in a repository) is edited where it lives: the link stays a link.
    let path = resolvedLink(given)
    let directory = FilePath.directory(path)
    var info = stat()
    var backup: String?
    var mode: mode_t = 0o644
    if stat(path, &info) == 0 {
      mode = info.st_mode & 0o7777
      backup = path + ".bak"
      guard let old = FileManager.default.contents(atPath: path) else {
        throw EditError(description: "cannot read \(path)")
      }
      // The backup keeps everything but the credentials written inline (a header's value, a proxy's
      // password): a backup is copied and shared more carelessly than the config.
      let redactedOld = Data(redactedForBackup(String(decoding: old, as: UTF8.self)).utf8)
      do {
        try AtomicFile.write(
          redactedOld, to: path + ".bak", directory: directory.isEmpty ? "." : directory, mode: mode)
      } catch {
        throw EditError(description: "cannot write the backup: \(error)")
      }
    } else {
      try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }
    do {
      try AtomicFile.write(
        Data(text.utf8), to: path, directory: directory.isEmpty ? "." : directory, mode: mode)
    } catch {
      throw EditError(description: "\(error)")
    }
    return backup
  }

  /// `text` with each credential written inline replaced, line for line: the value of a secret header
  /// (`Authorization`, `Cookie`, `X-Api-Key`…) under `headers:` (block or flow), and a URL's password
  /// (`http://me:***@proxy`).
  public static func redactedForBackup(_ text: String) -> String {
    // Most configs have neither a headers block nor a URL with credentials: a byte search says so at once.
    guard text.utf8.contains(bytes: "headers:") || text.utf8.contains(bytes: "@") else { return text }
    var out: [String] = []
    var headersIndent: Int?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var line = redactedPasswords(String(line))
      let indent = line.prefix { $0 == " " || $0 == "-" }.count
      let body = line.dropFirst(indent).drop { $0 == " " }
      if let open = headersIndent, indent <= open, !body.isEmpty, !body.hasPrefix("#") { headersIndent = nil }
      if let range = line.firstRange(of: "headers:") {
        let rest = line[range.upperBound...].trimming(.spaces)
        if rest.hasPrefix("{") {
          line = String(line[..<range.upperBound]) + " " + redactedFlow(rest)
        } else if rest.isEmpty || rest.hasPrefix("#") {
          headersIndent = indent
        }
      } else if headersIndent != nil, let colon = body.firstIndex(of: ":") {
        let key = body[..<colon].trimming(.these("\"' "))
        let value = body[body.index(after: colon)...].trimming(.spaces)
        if FetchOptions.isSecret(key), !value.isEmpty, !value.hasPrefix("{") {
          line = String(line[..<line.index(after: colon)]) + " \"<redacted>\""
        }
      }
      out.append(line)
    }
    return out.joined(separator: "\n")
  }

  /// `scheme://user:password@host` with the password as `***`, wherever it is in `line`.
  private static func redactedPasswords(_ line: String) -> String {
    guard line.contains("@"), line.contains("://") else { return line }
    var result = ""
    var rest = Substring(line)
    while let scheme = rest.firstRange(of: "://") {
      result += rest[..<scheme.upperBound]
      rest = rest[scheme.upperBound...]
      let authority = rest.prefix { !"/ \"',}".contains($0) }
      if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
        result += authority[..<colon] + ":***"
        rest = rest[at...]
      }
    }
    return result + rest
  }

  /// A flow mapping of headers (`{ Authorization: "Bearer x", Accept: y }`) with the secret values redacted.
  private static func redactedFlow(_ flow: String) -> String {
    // The brace that closes the first one (the line may go on: `headers: { … }, name: x }`).
    var level = 0
    var closing: String.Index?
    for index in flow.indices {
      if flow[index] == "{" { level += 1 }
      if flow[index] == "}" {
        level -= 1
        if level == 0 {
          closing = index
          break
        }
      }
    }
    guard let end = closing else { return flow }
    let inner = flow[flow.index(after: flow.startIndex)..<end]
    var depth = 0
    var parts: [String] = [""]
    for character in inner {
      if character == "{" { depth += 1 }
      if character == "}" { depth -= 1 }
      if character == ",", depth == 0 {
        parts.append("")
      } else {
        parts[parts.count - 1].append(character)
      }
    }
    let redacted = parts.map { part -> String in
      guard let colon = part.firstIndex(of: ":") else { return part }
      let key = part[..<colon].trimming(.these("\"' "))
      let value = part[part.index(after: colon)...].trimming(.spaces)
      guard FetchOptions.isSecret(key), !value.hasPrefix("{") else { return part }
      return String(part[...colon]) + " \"<redacted>\""
    }
    return "{" + redacted.joined(separator: ",") + String(flow[end...])
  }

  /// Where `path` leads when it is a symbolic link (followed to the end, relative targets resolved); else
  /// `path`.
  static func resolvedLink(_ path: String) -> String {
    var current = path
    for _ in 0..<40 {
      guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
      current =
        target.hasPrefix("/")
        ? target : FilePath.join(FilePath.directory(current), target)
    }
    return current
  }

  /// A YAML double-quoted scalar: YAML's escapes include JSON's, so a JSON string literal is one, with the
  /// characters YAML may not hold raw (DEL, C1 controls, U+FEFF, U+FFFE/U+FFFF) or counts as line breaks
  /// (U+0085, U+2028, U+2029: they would shift every later line number) escaped too.
  package static func quoted(_ text: String) -> String {
    let literal = JSONString.literal(text)
    guard literal.unicodeScalars.contains(where: needsEscape) else { return literal }
    var out = ""
    for scalar in literal.unicodeScalars {
      if needsEscape(scalar) {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    return (0x7F...0x9F).contains(value) || [0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF].contains(value)
  }

  /// `text` with Windows line ends made plain, and how to put them back: the editor works on lines.
  static func plainLines(_ text: String) -> (text: String, restore: (String) -> String) {
    guard text.contains("\r\n") else { return (text, { $0 }) }
    return (text.replacing("\r\n", with: "\n"), { $0.replacing("\n", with: "\r\n") })
  }
}
