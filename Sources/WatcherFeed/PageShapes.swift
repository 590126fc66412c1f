// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherXML

/// The selector that picks a list's rows.
extension PageList {

  /// The shortest CSS selector, by the rows' shapes up from them, that picks exactly `members` on the page.
  static func selector(for members: [HTMLElement], root: HTMLElement, shapes: inout Shapes) -> String? {
    guard let first = members.first else { return nil }
    let wanted = Set(members.map(ObjectIdentifier.init))
    func exact(_ text: String) -> Bool {
      guard let selector = try? HTMLSelector(text) else { return false }
      return Set(selector.select(in: root).map(ObjectIdentifier.init)) == wanted
    }
    if let kind = Shapes.classes(of: first, sorted: false).first, exact("\(first.name).\(kind)") {
      return "\(first.name).\(kind)"
    }
    var chain: [String] = []
    var element: HTMLElement? = first
    while let current = element, current.name != "html", chain.count < 6 {
      chain.insert(shapes.selectorPart(current), at: 0)
      if exact(chain.joined(separator: " > ")) { return chain.joined(separator: " > ") }
      element = current.parent
    }
    return chain.joined(separator: " > ")
  }
}

/// The shapes of elements (tag and classes), interned, and the keys of their paths from the page's root.
struct Shapes {
  private var ids: [String: Int] = [:]
  private var strict: [ObjectIdentifier: Int] = [:]
  private var tags: [ObjectIdentifier: Int] = [:]
  private var pairs: [Pair: Int] = [:]

  private struct Pair: Hashable {
    let parent: Int
    let shape: Int
    let loose: Bool
  }

  /// The classes that tell kinds of elements apart: those without digits (per-post ids and sizes vary from
  /// row to row) that a CSS selector can name as they are.
  static func classes(of element: HTMLElement, sorted: Bool = true) -> [Substring] {
    let names = (element.attributes["class"] ?? "").split(whereSeparator: \.isWhitespace).filter { name in
      !name.isEmpty && name.allSatisfy { $0.isLetter && $0.isASCII || $0 == "-" || $0 == "_" }
        && !name.contains("--") && !name.hasPrefix("-") && !name.hasPrefix("is-") && !name.hasPrefix("has-")
        && !name.hasPrefix("js-") && !states.contains(name.lowercased())
    }
    return sorted ? names.sorted() : names
  }

  /// Classes that say a row's state or place (BEM modifiers, `is-`, `has-` and these) rather than its kind.
  static let states: Set<String> = [
    "active", "current", "selected", "first", "last", "odd", "even", "new", "hidden", "visible", "open",
    "featured", "sticky", "clearfix", "group", "hentry",
  ]

  /// An element's kind: its tag and first class.
  static func kind(of element: HTMLElement) -> String {
    element.name + (classes(of: element, sorted: false).first.map { "." + $0 } ?? "")
  }

  private var parts: [ObjectIdentifier: (part: String, kind: String?)] = [:]

  /// The element's tag and classes as a selector (`article.post`), and its kind (tag and first class); kept.
  mutating func shape(_ element: HTMLElement) -> (part: String, kind: String?) {
    let id = ObjectIdentifier(element)
    if let known = parts[id] { return known }
    let classes = Self.classes(of: element, sorted: false)
    let made = (
      ([element.name] + classes.sorted().map { "." + $0 }).joined(), classes.first.map { element.name + "." + $0 }
    )
    parts[id] = made
    return made
  }

  func selectorPart(_ element: HTMLElement) -> String {
    ([element.name] + Self.classes(of: element).map { "." + $0 }).joined()
  }

  private mutating func intern(_ text: String) -> Int {
    if let id = ids[text] { return id }
    ids[text] = ids.count
    return ids.count - 1
  }

  private mutating func pair(_ parent: Int, _ shape: Int, loose: Bool) -> Int {
    let key = Pair(parent: parent, shape: shape, loose: loose)
    if let id = pairs[key] { return id }
    let id = pairs.count + 1
    pairs[key] = id
    return id
  }

  /// The element's path from the root with every element's tag and classes.
  mutating func strictKey(_ element: HTMLElement) -> Int {
    let id = ObjectIdentifier(element)
    if let key = strict[id] { return key }
    let parent = element.parent.map { strictKey($0) } ?? 0
    let key = pair(parent, intern(shape(element).part), loose: false)
    strict[id] = key
    return key
  }

  /// The keys an element is grouped by: its strict and loose paths, and its shape alone when its classes
  /// name a kind (rows of one kind spread over several sections).
  mutating func keys(_ element: HTMLElement) -> [Int] {
    var keys = [strictKey(element), looseKey(element)]
    // Siblings of any shape: rows a page writes with different tags or classes.
    if let parent = element.parent { keys.append(sibling(parent)) }
    if let kind = shape(element).kind {
      keys.append(pair(-1, intern(kind), loose: true))
    } else if element.name == "article" {
      keys.append(pair(-1, intern(element.name), loose: true))
    }
    return keys
  }

  /// The element's tag and classes under its ancestors' tags only.
  mutating func looseKey(_ element: HTMLElement) -> Int {
    let parent = element.parent.map { tagKey($0) } ?? 0
    return pair(parent, intern(shape(element).part), loose: true)
  }

  private var siblings: [ObjectIdentifier: Int] = [:]

  private mutating func sibling(_ parent: HTMLElement) -> Int {
    let id = ObjectIdentifier(parent)
    if let key = siblings[id] { return key }
    let key = -1 - siblings.count
    siblings[id] = key
    return key
  }

  private mutating func tagKey(_ element: HTMLElement) -> Int {
    let id = ObjectIdentifier(element)
    if let key = tags[id] { return key }
    let parent = element.parent.map { tagKey($0) } ?? 0
    let key = pair(parent, intern(element.name), loose: false)
    tags[id] = key
    return key
  }
}

extension HTMLElement {
  /// This element and every element below it, in document order.
  var descendantsAndSelf: [HTMLElement] { [self] + descendants }
}
