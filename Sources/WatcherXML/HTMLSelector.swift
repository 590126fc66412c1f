// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A CSS selector over `HTMLElement` trees, for the pages where no heuristic finds the article
/// (`content_selector:`).
///
/// The subset that scraper rules use: type selectors and `*`, `#id`, `.class`, attribute selectors
/// (`[attr]`, `[attr=value]`, `~=`, `|=`, `^=`, `$=`, `*=`, quoted or not), the descendant (space) and child (`>`)
/// combinators, and lists of selectors separated by commas. Names are matched without regard to case,
/// attribute values exactly.
///
/// A selector that starts with `/`, `./` or `(` is an XPath 1.0 expression instead (`//div[@itemprop='articleBody']`),
/// evaluated by libxml2 on the page as its HTML parser reads it (``XPathExpression``).
public struct HTMLSelector: Sendable, Equatable {
  /// Why a selector could not be read: what, and where (a character offset).
  public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var description: String { "\(message) (at character \(offset + 1))" }
  }

  struct Attribute: Sendable, Equatable {
    enum Test: Sendable, Equatable { case present, equals, word, dashPrefix, prefix, suffix, contains }
    var name: String
    var test: Test
    var value: String
  }

  /// One compound selector: all of its parts must hold for one element.
  struct Compound: Sendable, Equatable {
    var name: String?
    var ids: [String] = []
    var classes: [String] = []
    var attributes: [Attribute] = []

    func matches(_ element: HTMLElement) -> Bool {
      if let name, element.name != name { return false }
      if !ids.isEmpty, ids.contains(where: { $0 != element.attributes["id"] }) { return false }
      if !classes.isEmpty {
        let have = (element.attributes["class"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
        if classes.contains(where: { wanted in !have.contains { $0 == wanted } }) { return false }
      }
      for attribute in attributes {
        guard let value = element.attributes[attribute.name] else { return false }
        switch attribute.test {
        case .present: break
        case .equals: if value != attribute.value { return false }
        case .word: if !value.split(separator: " ").contains(where: { $0 == attribute.value }) { return false }
        case .dashPrefix: if value != attribute.value && !value.hasPrefix(attribute.value + "-") { return false }
        case .prefix: if attribute.value.isEmpty || !value.hasPrefix(attribute.value) { return false }
        case .suffix: if attribute.value.isEmpty || !value.hasSuffix(attribute.value) { return false }
        case .contains: if attribute.value.isEmpty || !value.contains(attribute.value) { return false }
        }
      }
      return true
    }
  }

  /// A chain of compounds, the last the element matched; each link says how it relates to the one before.
  struct Chain: Sendable, Equatable {
    /// Each compound, and whether its element must be a child of the one before rather than any descendant.
    var links: [(Compound, child: Bool)]

    static func == (a: Chain, b: Chain) -> Bool {
      a.links.count == b.links.count && zip(a.links, b.links).allSatisfy { $0.0 == $1.0 && $0.child == $1.child }
    }

    func matches(_ element: HTMLElement) -> Bool {
      guard let last = links.last, last.0.matches(element) else { return false }
      return matches(upTo: links.count - 2, from: element.parent, child: last.child)
    }

    /// Whether links[0...index] match `element` (or, unless `child`, one of its ancestors) and above.
    private func matches(upTo index: Int, from element: HTMLElement?, child: Bool) -> Bool {
      guard index >= 0 else { return true }
      var candidate = element
      while let current = candidate {
        if links[index].0.matches(current), matches(upTo: index - 1, from: current.parent, child: links[index].child) {
          return true
        }
        if child { return false }
        candidate = current.parent
      }
      return false
    }
  }

  /// The selector as written.
  public let text: String
  let chains: [Chain]
  /// The expression, when the selector is XPath.
  public let xpath: XPathExpression?

  public init(_ text: String) throws(SyntaxError) {
    self.text = text
    let start = text.drop { $0 == " " || $0 == "\t" }
    if start.hasPrefix("/") || start.hasPrefix("./") || start.hasPrefix("(") {
      do {
        xpath = try XPathExpression(text)
      } catch {
        throw SyntaxError(message: "XPath: \(error.message)", offset: error.offset)
      }
      chains = []
      return
    }
    xpath = nil
    var parser = Parser(Array(text.unicodeScalars))
    chains = try parser.selectorList()
  }

  /// The page `bytes` as a tree, and the elements the selector takes from it, in document order, leaving
  /// out those inside an element already taken (their text is in it).
  public func read(_ bytes: [UInt8], encoding: String? = nil) -> (root: HTMLElement, selected: [HTMLElement])? {
    guard let xpath else {
      guard let root = HTMLTree.parse(bytes, encoding: encoding) else { return nil }
      return (root, select(in: root))
    }
    guard let (root, all) = HTMLTree.parse(bytes, encoding: encoding, selecting: xpath) else { return nil }
    let taken = Set(all.map(ObjectIdentifier.init))
    return (
      root,
      all.filter { element in
        var ancestor = element.parent
        while let current = ancestor {
          if taken.contains(ObjectIdentifier(current)) { return false }
          ancestor = current.parent
        }
        return true
      }
    )
  }

  /// Whether `element` matches.
  public func matches(_ element: HTMLElement) -> Bool { chains.contains { $0.matches(element) } }

  /// The elements under `root` that match, in document order, leaving out those inside an element already
  /// taken (their text is in it).
  ///
  /// A CSS selector's only: an XPath one needs libxml2's tree (``read(_:encoding:)``).
  public func select(in root: HTMLElement) -> [HTMLElement] {
    var found: [HTMLElement] = []
    var stack: [HTMLElement] = [root]
    while let element = stack.popLast() {
      if matches(element) {
        found.append(element)
        continue
      }
      stack.append(contentsOf: element.elements.reversed())
    }
    return found
  }

  public static func == (a: HTMLSelector, b: HTMLSelector) -> Bool { a.text == b.text }

  private struct Parser {
    let scalars: [Unicode.Scalar]
    var at = 0

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var current: Unicode.Scalar? { at < scalars.count ? scalars[at] : nil }

    func fail(_ message: String) -> SyntaxError { SyntaxError(message: message, offset: at) }

    mutating func skipSpaces() -> Bool {
      let start = at
      while let c = current, c == " " || c == "\t" || c == "\n" || c == "\r" { at += 1 }
      return at > start
    }

    static func isNameCharacter(_ c: Unicode.Scalar) -> Bool {
      c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "-" || c == "_" || c.value > 0x7F
    }

    mutating func name(_ what: String) throws(SyntaxError) -> String {
      let start = at
      while let c = current, Self.isNameCharacter(c) { at += 1 }
      guard at > start else { throw fail("expected \(what)") }
      return String(String.UnicodeScalarView(scalars[start..<at]))
    }

    mutating func selectorList() throws(SyntaxError) -> [Chain] {
      var chains: [Chain] = []
      repeat {
        _ = skipSpaces()
        chains.append(try chain())
        _ = skipSpaces()
        guard let c = current else { break }
        guard c == "," else { throw fail("unexpected '\(c)'") }
        at += 1
      } while true
      return chains
    }

    mutating func chain() throws(SyntaxError) -> Chain {
      var links: [(Compound, child: Bool)] = []
      var child = false
      while true {
        links.append((try compound(), child: child))
        let spaced = skipSpaces()
        guard let c = current, c != "," else { break }
        if c == ">" {
          at += 1
          _ = skipSpaces()
          child = true
        } else if spaced {
          child = false
        } else {
          throw fail("unexpected '\(c)'")
        }
      }
      return Chain(links: links)
    }

    mutating func compound() throws(SyntaxError) -> Compound {
      var compound = Compound()
      let start = at
      if current == "*" {
        at += 1
      } else if let c = current, Self.isNameCharacter(c) {
        compound.name = try name("an element name").lowercased()
      }
      while let c = current {
        switch c {
        case "#":
          at += 1
          compound.ids.append(try name("an id after '#'"))
        case ".":
          at += 1
          compound.classes.append(try name("a class name after '.'"))
        case "[":
          at += 1
          compound.attributes.append(try attribute())
        case ":":
          throw fail("pseudo-classes such as ':first-child' are not supported")
        default:
          guard at > start else { throw fail(c == ">" ? "'>' needs an element before it" : "unexpected '\(c)'") }
          return compound
        }
      }
      guard at > start else { throw fail("expected a selector") }
      return compound
    }

    mutating func attribute() throws(SyntaxError) -> Attribute {
      _ = skipSpaces()
      let attributeName = try name("an attribute name after '['").lowercased()
      _ = skipSpaces()
      if current == "]" {
        at += 1
        return Attribute(name: attributeName, test: .present, value: "")
      }
      let tests: [(Unicode.Scalar, Attribute.Test)] = [
        ("~", .word), ("|", .dashPrefix), ("^", .prefix), ("$", .suffix), ("*", .contains),
      ]
      var test = Attribute.Test.equals
      if let c = current, let found = tests.first(where: { $0.0 == c }) {
        test = found.1
        at += 1
      }
      guard current == "=" else { throw fail("expected '=' or ']' in an attribute selector") }
      at += 1
      _ = skipSpaces()
      var value: String
      if let quote = current, quote == "\"" || quote == "'" {
        at += 1
        let start = at
        while let c = current, c != quote { at += 1 }
        guard current == quote else { throw fail("the quoted value is not closed") }
        value = String(String.UnicodeScalarView(scalars[start..<at]))
        at += 1
      } else {
        value = try name("a value")
      }
      _ = skipSpaces()
      guard current == "]" else { throw fail("expected ']'") }
      at += 1
      return Attribute(name: attributeName, test: test, value: value)
    }
  }
}
