// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CLibXML2
import FoundationEssentials
import Glibc
import WatcherSupport

/// An element of a web page, as libxml2's HTML parser repaired it.
///
/// A small Swift tree rather than libxml2's own, so that the article extractor can walk, score and prune it
/// with ordinary code; built once per page.
public final class HTMLElement {
  /// The lower-case tag name (`p`, `div`, …).
  public let name: String
  /// The attributes, names in lower case.
  public let attributes: [String: String]
  /// The children in document order.
  public var children: [HTMLNode] = []
  /// The element this one is in, `nil` for the root.
  public private(set) weak var parent: HTMLElement?

  /// An element under `parent` (`nil`: a detached one, to gather parts of a page in).
  public init(name: String, attributes: [String: String] = [:], parent: HTMLElement? = nil) {
    self.name = name
    self.attributes = attributes
    self.parent = parent
  }

  /// The child elements, in order.
  public var elements: [HTMLElement] {
    var found: [HTMLElement] = []
    found.reserveCapacity(children.count)
    for case .element(let element) in children { found.append(element) }
    return found
  }

  /// The text directly in this element, its child elements left out (a `<script>`'s or `<style>`'s source).
  public var ownText: String {
    children.reduce(into: "") { text, child in
      if case .text(let part) = child { text += part }
    }
  }

  /// Every element below this one, depth first, in document order.
  ///
  /// Each element is retained once, when it is stacked, and moved from there: an element has a side table
  /// (its `parent` is weak), which makes each retain and release of it the runtime's slow path, and the
  /// walks of the extractor and the list finder go through every element of a page many times.
  public var descendants: [HTMLElement] {
    var found: [HTMLElement] = []
    var stack: [HTMLElement] = []
    Self.stack(children, on: &stack)
    while let element = stack.popLast() {
      Self.stack(element.children, on: &stack)
      found.append(consume element)
    }
    return found
  }

  /// Puts the elements of `nodes` on `stack`, the last first (so the first is taken first).
  private static func stack(_ nodes: [HTMLNode], on stack: inout [HTMLElement]) {
    var index = nodes.endIndex
    while index > nodes.startIndex {
      index -= 1
      if case .element(let element) = nodes[index] { stack.append(element) }
    }
  }

  /// Puts the children in `range` into a new element `name` that takes their place.
  public func wrap(_ range: Range<Int>, in name: String) {
    let wrapper = HTMLElement(name: name, parent: self)
    wrapper.adopt(children[range])
    children.replaceSubrange(range, with: [.element(wrapper)])
  }

  /// Appends `nodes` (taken from another element) to this element's children, as their parent.
  public func adopt(_ nodes: ArraySlice<HTMLNode>) {
    for case .element(let element) in nodes { element.parent = self }
    children += nodes
  }

  /// Removes `child` from this element's children.
  public func remove(_ child: HTMLElement) {
    children.removeAll { if case .element(let element) = $0 { element === child } else { false } }
  }

  /// Where `child` is among this element's children.
  public func index(of child: HTMLElement) -> Int? {
    children.firstIndex { if case .element(let element) = $0 { element === child } else { false } }
  }

  /// Whether this element is below `other`.
  public func isInside(_ other: HTMLElement) -> Bool {
    var node = parent
    while let next = node {
      if next === other { return true }
      node = next.parent
    }
    return false
  }

  /// Puts `nodes` where `child` is, in its place (their elements now this one's children); false when
  /// `child` is not one of its children.
  @discardableResult
  public func replace(_ child: HTMLElement, with nodes: [HTMLNode]) -> Bool {
    guard let index = index(of: child) else { return false }
    for case .element(let element) in nodes { element.parent = self }
    children.replaceSubrange(index...index, with: nodes)
    return true
  }
}

/// A node of an ``HTMLElement``'s content.
public enum HTMLNode {
  /// An element.
  case element(HTMLElement)
  /// Text, entities decoded.
  case text(String)
}

/// Parses web pages with libxml2's HTML parser.
///
/// The parser is tolerant the way browsers are (unclosed tags, stray end tags, missing `<html>`), reads no
/// network resource (`HTML_PARSE_NONET`) and reports nothing. HTML has no entity declarations, so nothing
/// expands beyond the named character references. Comments, processing instructions and elements nested
/// deeper than ``maxDepth`` are left out of the tree.
public enum HTMLTree {
  /// The deepest element kept; real pages stay far below it, and the tree's walks stay shallow.
  public static let maxDepth = 256

  /// The document element (`<html>`) of `bytes`, or `nil` when the page is empty.
  ///
  /// A byte order mark decides the encoding; else `encoding`, the charset the server named, if any; without
  /// it, the page's `<meta charset>` (or `http-equiv` content type), else UTF-8. An encoding libxml2 does
  /// not know falls back to UTF-8.
  public static func parse(_ bytes: [UInt8], encoding: String? = nil) -> HTMLElement? {
    parse(bytes, encoding: encoding, xpath: nil)?.root
  }

  /// The document element of `bytes` and the elements the XPath expression `xpath` selects in it, in
  /// document order (a selected text node stands for its element; other nodes are left out).
  public static func parse(_ bytes: [UInt8], encoding: String? = nil, selecting xpath: XPathExpression)
    -> (root: HTMLElement, selected: [HTMLElement])?
  {
    parse(bytes, encoding: encoding, xpath: xpath)
  }

  private static func parse(_ bytes: [UInt8], encoding: String?, xpath: XPathExpression?)
    -> (root: HTMLElement, selected: [HTMLElement])?
  {
    guard !bytes.isEmpty, bytes.count < Int(Int32.max) else { return nil }
    let named = byteOrderMarked(bytes) ?? encoding ?? declaredCharset(bytes)
    var bytes = withinTagBudget(bytes)
    if asciiCompatible(named) { bytes = endTagsAsBrowsersRead(bytes) }
    return read(bytes, encoding: named ?? "UTF-8", xpath: xpath)
      ?? (named == nil ? nil : read(bytes, encoding: "UTF-8", xpath: xpath))
  }

  /// The most start tags of a page read.
  ///
  /// Real pages have a few thousand (a long Wikipedia article, 60,000). Past them the rest is not read, so
  /// that what a page costs (libxml2's tree, the extractor's walks, memory) is bounded by this, not by how
  /// many empty elements fit in the size limit (2.8 million `<p>` in 8 MiB).
  public static let maxTags = 300_000

  /// `bytes` before its start tag number `maxTags + 1` (a `<` and a letter).
  static func withinTagBudget(_ bytes: [UInt8]) -> [UInt8] {
    let end = bytes.withUnsafeBufferPointer { buffer -> Int? in
      guard let base = buffer.baseAddress else { return nil }
      var (offset, tags) = (0, 0)
      while offset < buffer.count, let found = memchr(base + offset, 0x3C, buffer.count - offset) {
        let position = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
        offset = position + 1
        guard offset < buffer.count, (buffer[offset] | 0x20) >= 0x61, (buffer[offset] | 0x20) <= 0x7A else { continue }
        tags += 1
        if tags > maxTags { return position }
      }
      return nil
    }
    return end.map { Array(bytes[..<$0]) } ?? bytes
  }

  /// The encoding a byte order mark says: it wins over the server's and the page's word, as in browsers.
  static func byteOrderMarked(_ bytes: [UInt8]) -> String? {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return "UTF-8" }
    if bytes.starts(with: [0xFF, 0xFE]) { return "UTF-16LE" }
    if bytes.starts(with: [0xFE, 0xFF]) { return "UTF-16BE" }
    return nil
  }

  /// Whether markup in encoding `named` (a byte order mark's, the server's or the page's) is written in
  /// ASCII bytes: not UTF-16 or UTF-32.
  static func asciiCompatible(_ named: String?) -> Bool {
    guard let named = named?.lowercased() else { return true }
    return !(named.contains("16") || named.contains("32") || named.hasPrefix("ucs"))
  }

  /// The charset a `<meta>` in the first 4 KB names.
  static func declaredCharset(_ bytes: [UInt8]) -> String? {
    let head = String(decoding: bytes.prefix(4_096), as: UTF8.self).lowercased()
    var searchFrom = head.startIndex
    while let meta = head[searchFrom...].firstRange(of: "<meta") {
      searchFrom = meta.upperBound
      let tagEnd = head[meta.upperBound...].firstIndex(of: ">") ?? head.endIndex
      let tag = head[meta.upperBound..<tagEnd]
      guard let charset = tag.firstRange(of: "charset=") else { continue }
      let value = tag[charset.upperBound...].drop { $0 == "\"" || $0 == "'" || $0 == " " }
      let name = value.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ":" || $0 == "." }
      if !name.isEmpty { return String(name) }
    }
    return nil
  }

  private static func read(_ bytes: [UInt8], encoding: String, xpath: XPathExpression?)
    -> (root: HTMLElement, selected: [HTMLElement])?
  {
    let options =
      HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
      | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue
    LibXML2.initialize()
    let document: htmlDocPtr? = bytes.withUnsafeBufferPointer { buffer in
      buffer.baseAddress?.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
        htmlReadMemory(pointer, Int32(buffer.count), nil, encoding, Int32(options))
      }
    }
    guard let document else { return nil }
    defer { xmlFreeDoc(document) }
    guard let rootNode = xmlDocGetRootElement(document) else { return nil }
    let wanted = xpath.map { $0.select(in: document) } ?? []
    var selected: Set<ObjectIdentifier> = []
    let root = convert(rootNode) { node, element in
      if wanted.contains(node) { selected.insert(ObjectIdentifier(element)) }
    }
    guard !selected.isEmpty else { return (root, []) }
    return (root, root.descendants.filter { selected.contains(ObjectIdentifier($0)) })
  }

  /// libxml2's tree as ``HTMLElement``s, built without recursion; `made` sees each element with its node.
  private static func convert(_ rootNode: xmlNodePtr, made: (xmlNodePtr, HTMLElement) -> Void) -> HTMLElement {
    let root = HTMLElement(name: name(of: rootNode), attributes: attributes(of: rootNode), parent: nil)
    var stack: [(xmlNodePtr?, HTMLElement, Int)] = [(rootNode.pointee.children, root, 1)]
    while let (first, parent, depth) = stack.popLast() {
      var node = first
      while let current = node {
        node = current.pointee.next
        switch current.pointee.type {
        case XML_ELEMENT_NODE:
          guard depth < maxDepth else { continue }
          let element = HTMLElement(name: name(of: current), attributes: attributes(of: current), parent: parent)
          made(current, element)
          parent.children.append(.element(element))
          if current.pointee.children != nil { stack.append((current.pointee.children, element, depth + 1)) }
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
          if let content = current.pointee.content {
            parent.children.append(.text(String(cString: content)))
          }
        default:
          continue
        }
      }
    }
    return root
  }

  private static func name(of node: xmlNodePtr) -> String {
    node.pointee.name.map { String(cString: $0).lowercased() } ?? ""
  }

  private static func attributes(of node: xmlNodePtr) -> [String: String] {
    var found: [String: String] = [:]
    var attribute = node.pointee.properties
    while let current = attribute {
      attribute = current.pointee.next
      guard let name = current.pointee.name else { continue }
      var value = ""
      var child = current.pointee.children
      while let text = child {
        if let content = text.pointee.content { value += String(cString: content) }
        child = text.pointee.next
      }
      found[String(cString: name).lowercased()] = value
    }
    return found
  }
}

/// An XPath 1.0 expression, compiled by libxml2, for `content_selector:` on the pages where a CSS selector
/// cannot say where the article is.
public struct XPathExpression: Sendable, Equatable {
  /// Why libxml2 could not compile it: its message, and the character offset it gave.
  public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var description: String { "\(message) (at character \(offset + 1))" }
  }

  /// The expression as written.
  public let text: String

  /// Compiles `text`; a compiled expression is made again for each use (libxml2's is not `Sendable`).
  public init(_ text: String) throws(SyntaxError) {
    self.text = text
    LibXML2.initialize()
    guard let compiled = watcher_xpath_compile(text) else {
      let error = xmlGetLastError()
      let message = error?.pointee.message.map { String(cString: $0) }?.trimmingASCIIWhitespace
      throw SyntaxError(
        message: message.map { $0.prefix(1).lowercased() + $0.dropFirst() } ?? "not an XPath expression",
        offset: max(0, Int(error?.pointee.int1 ?? 0)))
    }
    xmlXPathFreeCompExpr(compiled)
  }

  /// The element nodes the expression selects in `document` (a text node gives its parent).
  func select(in document: htmlDocPtr) -> Set<xmlNodePtr> {
    guard let compiled = watcher_xpath_compile(text) else { return [] }
    defer { xmlXPathFreeCompExpr(compiled) }
    guard let context = xmlXPathNewContext(document) else { return [] }
    defer { xmlXPathFreeContext(context) }
    guard let result = xmlXPathCompiledEval(compiled, context) else { return [] }
    defer { xmlXPathFreeObject(result) }
    guard let set = result.pointee.nodesetval, let nodes = set.pointee.nodeTab else { return [] }
    var found: Set<xmlNodePtr> = []
    for index in 0..<Int(set.pointee.nodeNr) {
      guard let node = nodes[index] else { continue }
      switch node.pointee.type {
      case XML_ELEMENT_NODE: found.insert(node)
      case XML_TEXT_NODE, XML_CDATA_SECTION_NODE: if let parent = node.pointee.parent { found.insert(parent) }
      default: continue
      }
    }
    return found
  }
}
