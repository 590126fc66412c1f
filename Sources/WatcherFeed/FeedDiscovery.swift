// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport
import WatcherXML

/// Feed autodiscovery: the feeds an HTML page announces with `<link rel="alternate" type="…" href="…">`.
///
/// Pages write these links in every way HTML allows, so this is a tolerant scanner, not an XML parser:
/// element and attribute names in any case, attributes in any order, quoted with `"` or `'` or not at all,
/// spaces and newlines anywhere between them, character references in values, comments skipped. Each href
/// is resolved against the page's `<base href>` (itself resolved against the page URL), else the page URL.
public enum FeedDiscovery {
  /// One feed a page links to.
  public struct Link: Sendable, Equatable {
    /// The feed's absolute URL.
    public var url: String
    /// Its MIME type (`application/rss+xml`, `application/atom+xml`, `application/feed+json`, …).
    public var type: String
    /// The link's `title`, if any.
    public var title: String?
  }

  /// The types of feed links: RSS, Atom, RDF (RSS 1.0) and JSON Feed, with the generic XML and JSON types
  /// older sites use for them.
  static let feedTypes: Set<String> = [
    "application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/feed+json",
    "application/json", "application/x-rss+xml", "application/x-atom+xml", "text/xml", "application/xml",
  ]

  /// Whether `data` looks like an HTML page (a doctype or an `<html>`/`<head>` tag near its start).
  public static func looksLikeHTML(_ data: Data) -> Bool {
    let start = LowercasedASCII(data.prefix(2_048))
    return start.contains("<!doctype html") || start.contains("<html") || start.contains("<head")
  }

  /// The feeds `html` links to, in document order, without duplicates.
  public static func links(in html: String, pageURL: String) -> [Link] {
    var base = pageURL
    var found: [Link] = []
    for tag in tags(in: html) {
      switch tag.name {
      case "base":
        if let href = tag.attributes["href"], !href.isEmpty { base = URLResolver.resolve(href, against: pageURL) }
      case "link":
        let rel = (tag.attributes["rel"] ?? "").lowercased().split(whereSeparator: \.isWhitespace)
        let type =
          (tag.attributes["type"] ?? "").lowercased().split(separator: ";").first
          .map { $0.trimming(.spaces) } ?? ""
        guard rel.contains("alternate"), feedTypes.contains(type), let href = tag.attributes["href"],
          !href.isEmpty
        else { continue }
        let url = URLResolver.resolve(href, against: base)
        guard !found.contains(where: { $0.url == url }) else { continue }
        let title = tag.attributes["title"].flatMap { $0.isEmpty ? nil : $0 }
        found.append(Link(url: url, type: type, title: title))
      case "body":
        // Feed links live in the head; a page's body is not read.
        return found
      default: break
      }
    }
    return found
  }

  /// A start tag: its lower-case name and its attributes (names lower-cased, values decoded).
  struct Tag {
    var name: String
    var attributes: [String: String]
  }

  /// The first `<img src>` of an item's HTML, resolved against `base` (the item's link); http(s) only.
  public static func firstImage(in html: String, base: String?) -> String? {
    for tag in tags(in: html, names: ["img"]) {
      guard let src = tag.attributes["src"], !src.isEmpty else { continue }
      let url = URLResolver.resolve(src, against: base)
      return FeedLocation.isHTTP(url) ? url : nil
    }
    return nil
  }

  /// The start tags of `html` named in `names` (default: `base`, `link`, `body`), comments skipped.
  static func tags(in html: String, names: Set<String> = ["base", "link", "body"]) -> [Tag] {
    let bytes = Array(html.utf8)
    var tags: [Tag] = []
    var index = 0
    func isSpace(_ byte: UInt8) -> Bool { byte == 32 || (9...13).contains(byte) }
    func lower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }
    while index < bytes.count {
      guard bytes[index] == UInt8(ascii: "<") else {
        index += 1
        continue
      }
      // A comment: skip to its end.
      if bytes[index...].starts(with: Array("<!--".utf8)) {
        var end = index + 4
        while end + 2 < bytes.count, !(bytes[end] == 45 && bytes[end + 1] == 45 && bytes[end + 2] == 62) { end += 1 }
        index = end + 3
        continue
      }
      var cursor = index + 1
      var name: [UInt8] = []
      while cursor < bytes.count, !isSpace(bytes[cursor]), bytes[cursor] != 62, bytes[cursor] != 47 {
        name.append(lower(bytes[cursor]))
        cursor += 1
      }
      let tagName = String(decoding: name, as: UTF8.self)
      guard names.contains(tagName) else {
        index = cursor
        continue
      }
      var attributes: [String: String] = [:]
      while cursor < bytes.count {
        while cursor < bytes.count, isSpace(bytes[cursor]) || bytes[cursor] == 47 { cursor += 1 }
        guard cursor < bytes.count, bytes[cursor] != 62 else { break }
        var attributeName: [UInt8] = []
        while cursor < bytes.count, !isSpace(bytes[cursor]), bytes[cursor] != 61, bytes[cursor] != 62,
          bytes[cursor] != 47 || attributeName.isEmpty
        {
          attributeName.append(lower(bytes[cursor]))
          cursor += 1
        }
        while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
        var value: [UInt8] = []
        if cursor < bytes.count, bytes[cursor] == 61 {
          cursor += 1
          while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
          if cursor < bytes.count, bytes[cursor] == 34 || bytes[cursor] == 39 {
            let quote = bytes[cursor]
            cursor += 1
            while cursor < bytes.count, bytes[cursor] != quote {
              value.append(bytes[cursor])
              cursor += 1
            }
            cursor += 1
          } else {
            while cursor < bytes.count, !isSpace(bytes[cursor]), bytes[cursor] != 62 {
              value.append(bytes[cursor])
              cursor += 1
            }
          }
        }
        let key = String(decoding: attributeName, as: UTF8.self)
        if !key.isEmpty, attributes[key] == nil {
          attributes[key] = decodeReferences(value).trimming()
        }
      }
      tags.append(Tag(name: tagName, attributes: attributes))
      index = cursor + 1
    }
    return tags
  }

  /// `&amp;`, `&#38;`, `&#x26;` and the other HTML character references in an attribute value.
  private static func decodeReferences(_ value: [UInt8]) -> String {
    guard value.contains(UInt8(ascii: "&")) else { return String(decoding: value, as: UTF8.self) }
    var out = String.UnicodeScalarView()
    var pending: [UInt8] = []
    func flush() {
      out.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
      pending.removeAll()
    }
    value.withUnsafeBufferPointer { buffer in
      var index = 0
      while index < buffer.count {
        if buffer[index] == UInt8(ascii: "&") {
          if let (length, scalar) = HTMLEntities.characterReference(buffer.span, at: index),
            let decoded = Unicode.Scalar(scalar)
          {
            flush()
            out.append(decoded)
            index += length
            continue
          }
          if let semicolon = buffer[index...].prefix(40).firstIndex(of: UInt8(ascii: ";")),
            let scalar = HTMLEntities.scalar(
              named: String(decoding: buffer[(index + 1)..<semicolon], as: UTF8.self)),
            let decoded = Unicode.Scalar(scalar)
          {
            flush()
            out.append(decoded)
            index = semicolon + 1
            continue
          }
        }
        pending.append(buffer[index])
        index += 1
      }
    }
    flush()
    return String(out)
  }
}
