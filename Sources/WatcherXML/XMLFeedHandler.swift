// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CLibXML2
import FoundationEssentials
import Glibc

#if canImport(Glibc)
  import Glibc
#endif

/// How the parser should collect an element's content for the handler.
package enum XMLCapture {
  /// Not at all: child elements are reported one by one.
  case none
  /// As text; child elements (HTML that was not escaped) are kept as markup in the text.
  case text
  /// As XHTML turned into HTML source: child elements kept as markup, character data escaped.
  case xhtml
}

/// Receives the elements of one feed document from `XMLStreamParser`.
///
/// Element names are classified once per distinct (local name, namespace) by `tag(for:namespace:)` into the
/// raw value of the handler's own tag enum, so the callbacks switch over small integers, not strings.
package protocol XMLFeedHandler: AnyObject {
  /// Classifies an element name.
  func tag(for localName: String, namespace: XMLNamespace) -> Int
  /// An element starts; say whether to capture its content.
  func start(_ tag: Int, attributes: XMLAttributes) -> XMLCapture
  /// An element ends; `text` is its captured content (`nil` when not captured).
  func end(_ tag: Int, text: String?)
}

/// The attributes of the element being started, read on demand (no strings are made for the others); valid
/// only during the `start` call it is given to.
package struct XMLAttributes {
  let base: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
  let count: Int
  /// The parser reporting the element, which outlives the call (`Unretained`).
  let parser: Unretained<XMLStreamParser>

  /// The `xml:base` in effect for this element, already resolved.
  ///
  /// Read from the parser when asked: most elements never ask, and a copy made for each was a retain and a
  /// release of the string for every element.
  package var xmlBase: String? { parser.with { $0.currentBase } }

  /// The value of the attribute `name` (any namespace unless `namespace` is given), or `nil`.
  package func value(_ name: String, namespace: XMLNamespace? = nil) -> String? {
    guard let (start, end) = find(name, namespace: namespace) else { return nil }
    guard let start, let end else { return "" }
    return attributeString(UnsafeBufferPointer(start: start, count: end - start))
  }

  /// Whether the attribute `name` is there and its value is `wanted`: a test without a string made of it.
  package func value(_ name: String, is wanted: StaticString) -> Bool {
    matches(name, wanted, ignoringCase: false, whole: true)
  }

  /// Whether the attribute `name` is there and its value is `wanted` (lowercase ASCII), ignoring ASCII case.
  package func value(_ name: String, isLowercased wanted: StaticString) -> Bool {
    matches(name, wanted, ignoringCase: true, whole: true)
  }

  /// Whether the attribute `name` is there and its value begins with `prefix` (lowercase ASCII), ignoring
  /// ASCII case.
  package func value(_ name: String, startsWithLowercased prefix: StaticString) -> Bool {
    matches(name, prefix, ignoringCase: true, whole: false)
  }

  private func matches(_ name: String, _ wanted: StaticString, ignoringCase: Bool, whole: Bool) -> Bool {
    guard let (start, end) = find(name, namespace: nil) else { return false }
    let expected = UnsafeBufferPointer(start: wanted.utf8Start, count: wanted.utf8CodeUnitCount)
    guard let start, let end else { return expected.isEmpty }
    let bytes = UnsafeBufferPointer(start: start, count: end - start)
    // A reference may stand for any character: the value as a string, then.
    if bytes.contains(UInt8(ascii: "&")) {
      let text = ignoringCase ? attributeString(bytes).lowercased() : attributeString(bytes)
      return whole ? text.utf8.elementsEqual(expected) : text.utf8.starts(with: expected)
    }
    guard whole ? bytes.count == expected.count : bytes.count >= expected.count else { return false }
    for index in 0..<expected.count {
      var c = bytes[index]
      if ignoringCase, c >= UInt8(ascii: "A"), c <= UInt8(ascii: "Z") { c |= 0x20 }
      if c != expected[index] { return false }
    }
    return true
  }

  /// The value's bytes as written (`nil` ends: an empty value) of the attribute `name`, or `nil`.
  private func find(
    _ name: String, namespace: XMLNamespace?
  ) -> (UnsafePointer<xmlChar>?, UnsafePointer<xmlChar>?)? {
    guard let base, count > 0 else { return nil }
    return name.withCString { wanted -> (UnsafePointer<xmlChar>?, UnsafePointer<xmlChar>?)? in
      for index in 0..<count {
        let entry = base + index * 5
        guard let local = entry[0], strcmp(UnsafeRawPointer(local).assumingMemoryBound(to: CChar.self), wanted) == 0
        else { continue }
        if let namespace {
          let uri = entry[2].map { String(cString: $0) }
          let prefix = entry[1].map { String(cString: $0) }
          guard XMLNamespace(uri: uri, prefix: prefix) == namespace else { continue }
        }
        return (entry[3], entry[4])
      }
      return nil
    }
  }
}
