// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport
import WatcherXML

/// The posts a script-built page embeds as data: JSON-LD `ItemList`s, Next.js `__NEXT_DATA__`, JSON script
/// blocks, and the state objects pages assign to `window` (`__NUXT__`, `__PRELOADED_STATE__`, `__INITIAL_STATE__`
/// and the like), written as JSON or as JavaScript object literals.
///
/// The list is the longest array of objects that each have a title (`title`, `headline`, `name`) and a link
/// (`url`, `link`, `href`, `permalink`, `path`).
enum PageState {
  static let titleKeys = ["title", "headline", "name", "heading"]
  static let linkKeys = ["url", "link", "href", "permalink", "path", "canonical_url", "canonicalUrl", "uri"]
  static let dateKeys = [
    "datePublished", "publishedAt", "published_at", "pubDate", "date", "published", "createdAt", "created_at",
    "dateCreated",
  ]
  static let summaryKeys = ["description", "excerpt", "summary", "teaser", "subtitle"]
  static let imageKeys = ["image", "imageUrl", "image_url", "thumbnail", "thumbnailUrl", "thumbnail_url", "cover"]

  /// The most bytes of one script read as data.
  static let maxScript = 4 << 20

  static func items(in root: HTMLElement, base: String) -> PageListing? {
    var best: (items: [PageItem], source: String)?
    for script in root.descendants where script.name == "script" {
      let type = script.attributes["type"]?.lowercased() ?? ""
      let source = script.ownText
      guard source.utf8.count <= maxScript else { continue }
      for (value, name) in values(in: source, type: type, id: script.attributes["id"]) {
        let items = longestList(in: value, base: base, depth: 0)
        if items.count > best?.items.count ?? 0 { best = (items, name) }
      }
    }
    guard let best else { return nil }
    return PageListing(status: .list, items: best.items, reason: "the page's \(best.source)", selector: nil)
  }

  /// The data values of one script, each with what it is.
  static func values(in source: String, type: String, id: String?) -> [(JSONValue, String)] {
    let bytes = Array(source.utf8)
    if type.contains("ld+json") {
      return (try? JSONValue.read(bytes)).map { [($0, "linked data (JSON-LD)")] } ?? []
    }
    if type.contains("json") {
      let name = id == "__NEXT_DATA__" ? "Next.js data" : "embedded JSON"
      var reader = ScriptLiteral(bytes)
      return reader.value().map { [($0, name)] } ?? []
    }
    guard type.isEmpty || type.contains("javascript") else { return [] }
    var found: [(JSONValue, String)] = []
    var from = bytes.startIndex
    while let (name, start) = assignment(in: bytes, from: from) {
      var reader = ScriptLiteral(bytes, at: start)
      if let value = reader.value() { found.append((value, "\(name) state")) }
      from = max(reader.position, start + 1)
    }
    // State written as a string the script parses (`JSON.parse("{\"story\":…}")`), as frameworks do for speed.
    from = bytes.startIndex
    while let start = parsedString(in: bytes, from: from) {
      var reader = ScriptLiteral(bytes, at: start)
      if case .string(let text)? = reader.value() {
        var inner = ScriptLiteral(Array(text.utf8))
        if let value = inner.value() { found.append((value, "JSON.parse state")) }
      }
      from = max(reader.position, start + 1)
    }
    return found
  }

  /// Where the next `JSON.parse("` or `JSON.parse('` in `bytes` has its string.
  static func parsedString(in bytes: [UInt8], from: Int) -> Int? {
    let call = Array("JSON.parse(".utf8)
    var at = from
    while at + call.count < bytes.count {
      defer { at += 1 }
      guard bytes[at..<(at + call.count)].elementsEqual(call) else { continue }
      var cursor = at + call.count
      while cursor < bytes.count, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 { cursor += 1 }
      if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") {
        return cursor
      }
    }
    return nil
  }

  /// The next `window.NAME = {` or `window["NAME"] = [` in `bytes`: the name and where the value starts.
  static func assignment(in bytes: [UInt8], from: Int) -> (String, Int)? {
    let window = Array("window".utf8)
    var at = from
    while at + window.count < bytes.count {
      guard bytes[at..<(at + window.count)].elementsEqual(window) else {
        at += 1
        continue
      }
      var cursor = at + window.count
      at += 1
      guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ".") || bytes[cursor] == UInt8(ascii: "[") else {
        continue
      }
      cursor += 1
      while cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") {
        cursor += 1
      }
      let nameStart = cursor
      while cursor < bytes.count, isIdentifier(bytes[cursor]) { cursor += 1 }
      let name = String(decoding: bytes[nameStart..<cursor], as: UTF8.self)
      while cursor < bytes.count, [UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "]")].contains(bytes[cursor]) {
        cursor += 1
      }
      while cursor < bytes.count, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 { cursor += 1 }
      guard !name.isEmpty, cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") else { continue }
      cursor += 1
      while cursor < bytes.count, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 || bytes[cursor] == 0x0A {
        cursor += 1
      }
      guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "{") || bytes[cursor] == UInt8(ascii: "[") else {
        continue
      }
      return (name, cursor)
    }
    return nil
  }

  static func isIdentifier(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
      || byte >= UInt8(ascii: "0")
        && byte <= UInt8(ascii: "9")
      || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
  }

  /// Data nests lists a few levels deep; deeper values are not searched.
  static let maxDepth = 24

  /// The longest array under `value` whose objects read as posts.
  static func longestList(in value: JSONValue, base: String, depth: Int) -> [PageItem] {
    guard depth < maxDepth else { return [] }
    switch value {
    case .array(let values):
      var own: [PageItem] = []
      var seen: Set<String> = []
      for element in values {
        guard let item = item(from: element, base: base), seen.insert(item.link).inserted else { continue }
        own.append(item)
      }
      var best = own
      for element in values {
        let inner = longestList(in: element, base: base, depth: depth + 1)
        if inner.count > best.count { best = inner }
      }
      return best
    case .object(let members):
      // A breadcrumb trail lists the site's sections, not posts.
      if members["@type"]?.string == "BreadcrumbList" { return [] }
      var best: [PageItem] = []
      if members["@type"]?.string == "ItemList", let list = members["itemListElement"] {
        best = longestList(in: list, base: base, depth: depth + 1)
      }
      for (_, member) in members.sorted(by: { $0.key < $1.key }) {
        let inner = longestList(in: member, base: base, depth: depth + 1)
        if inner.count > best.count { best = inner }
      }
      return best
    default: return []
    }
  }

  /// An object as a post: a title and a link (a `ListItem`'s `item` read through).
  static func item(from value: JSONValue, base: String) -> PageItem? {
    guard case .object(var members) = value else { return nil }
    if case .object(let inner)? = members["item"] { members.merge(inner) { own, _ in own } }
    guard let title = first(titleKeys, in: members).map(PageList.collapse), !title.isEmpty,
      let reference = first(linkKeys, in: members), let link = PageItems.absolute(reference, base: base)
    else { return nil }
    var item = PageItem(title: title, link: link)
    item.date = first(dateKeys, in: members)
    item.summary = first(summaryKeys, in: members).map(PageList.collapse)
    item.image = first(imageKeys, in: members).flatMap { PageItems.absolute($0, base: base) }
    return item
  }

  /// The first of `keys` with a string value (or an object's `url`, as in `image: {url: …}`, or its
  /// `rendered` HTML as text, as WordPress's REST API writes titles and excerpts).
  static func first(_ keys: [String], in members: [String: JSONValue]) -> String? {
    for key in keys {
      switch members[key] {
      case .string(let value)? where !value.isEmpty: return value
      case .object(let inner)?:
        if let value = inner["url"]?.string, !value.isEmpty { return value }
        if let html = inner["rendered"]?.string, let text = HTMLText.plainText(fromHTML: html, singleLine: true),
          !text.isEmpty
        {
          return text
        }
      default: continue
      }
    }
    return nil
  }

  /// The posts of a JSON document (an API's list, such as WordPress's `/wp-json/wp/v2/posts`).
  static func items(inJSON bytes: [UInt8], base: String) -> PageListing {
    guard let value = try? JSONValue.read(bytes) else { return .none(.noList, "the JSON document cannot be read") }
    let items = longestList(in: value, base: base, depth: 0)
    guard !items.isEmpty else {
      return .none(.noList, "no list of objects with a title and a link in the JSON document")
    }
    return PageListing(status: .list, items: items, reason: "a list of \(items.count) posts in the JSON document")
  }

  /// The WordPress REST route a page names (`<link rel="https://api.w.org/" href="…/wp-json/">`), as the
  /// address of its latest posts.
  static func wordPressPosts(in root: HTMLElement, base: String) -> String? {
    for element in root.descendants where element.name == "link" {
      guard element.attributes["rel"]?.trimming(.spaces) == "https://api.w.org/",
        let href = element.attributes["href"], let api = PageItems.absolute(href, base: base)
      else { continue }
      return (api.hasSuffix("/") ? api : api + "/") + "wp/v2/posts"
    }
    return nil
  }
}

/// A JSON value or JavaScript object literal as pages embed them: keys quoted or bare, strings in double or
/// single quotes, trailing commas, `undefined`; anything else (calls, expressions) ends the value unread.
struct ScriptLiteral {
  let bytes: [UInt8]
  private(set) var position: Int
  private var depth = 0

  init(_ bytes: [UInt8], at position: Int = 0) {
    self.bytes = bytes
    self.position = position
  }

  static let maxDepth = 64

  mutating func value() -> JSONValue? {
    skipSpace()
    guard position < bytes.count, depth < Self.maxDepth else { return nil }
    switch bytes[position] {
    case UInt8(ascii: "{"): return object()
    case UInt8(ascii: "["): return array()
    case UInt8(ascii: "\""), UInt8(ascii: "'"): return string().map(JSONValue.string)
    default:
      let word = bareWord()
      switch word {
      case "true": return .bool(true)
      case "false": return .bool(false)
      case "null", "undefined": return .null
      default: return Double(word).map(JSONValue.number)
      }
    }
  }

  private mutating func object() -> JSONValue? {
    position += 1
    depth += 1
    defer { depth -= 1 }
    var members: [String: JSONValue] = [:]
    while true {
      skipSpace()
      guard position < bytes.count else { return nil }
      if bytes[position] == UInt8(ascii: "}") {
        position += 1
        return .object(members)
      }
      let key: String
      if bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") {
        guard let quoted = string() else { return nil }
        key = quoted
      } else {
        key = bareWord()
        guard !key.isEmpty else { return nil }
      }
      skipSpace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
      position += 1
      guard let value = value() else { return nil }
      if members[key] == nil { members[key] = value }
      skipSpace()
      if position < bytes.count, bytes[position] == UInt8(ascii: ",") { position += 1 }
    }
  }

  private mutating func array() -> JSONValue? {
    position += 1
    depth += 1
    defer { depth -= 1 }
    var values: [JSONValue] = []
    while true {
      skipSpace()
      guard position < bytes.count else { return nil }
      if bytes[position] == UInt8(ascii: "]") {
        position += 1
        return .array(values)
      }
      guard let value = value() else { return nil }
      values.append(value)
      skipSpace()
      if position < bytes.count, bytes[position] == UInt8(ascii: ",") { position += 1 }
    }
  }

  private mutating func string() -> String? {
    let quote = bytes[position]
    position += 1
    var text: [UInt8] = []
    while position < bytes.count {
      let byte = bytes[position]
      position += 1
      if byte == quote { return String(decoding: text, as: UTF8.self) }
      guard byte == UInt8(ascii: "\\"), position < bytes.count else {
        text.append(byte)
        continue
      }
      let escaped = bytes[position]
      position += 1
      switch escaped {
      case UInt8(ascii: "n"): text.append(0x0A)
      case UInt8(ascii: "t"): text.append(0x09)
      case UInt8(ascii: "r"), UInt8(ascii: "b"), UInt8(ascii: "f"): text.append(0x20)
      case UInt8(ascii: "u"):
        guard position + 4 <= bytes.count,
          let code = UInt32(String(decoding: bytes[position..<(position + 4)], as: UTF8.self), radix: 16)
        else { return nil }
        position += 4
        let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
        text += Array(String(Character(scalar)).utf8)
      default: text.append(escaped)
      }
    }
    return nil
  }

  private mutating func bareWord() -> String {
    let start = position
    while position < bytes.count,
      PageState.isIdentifier(bytes[position]) || bytes[position] == UInt8(ascii: "-")
        || bytes[position] == UInt8(ascii: ".") || bytes[position] == UInt8(ascii: "+")
    {
      position += 1
    }
    return String(decoding: bytes[start..<position], as: UTF8.self)
  }

  private mutating func skipSpace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x09, 0x0A, 0x0D: position += 1
      case UInt8(ascii: "/") where position + 1 < bytes.count && bytes[position + 1] == UInt8(ascii: "/"):
        while position < bytes.count, bytes[position] != 0x0A { position += 1 }
      default: return
      }
    }
  }
}
