// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// The XML namespaces feeds use, recognised once per distinct (name, namespace) pair.
package enum XMLNamespace: Sendable, Equatable {
  /// No namespace.
  case none
  /// RSS 1.0 (`http://purl.org/rss/1.0/`) or UserLand's RSS 2.0 namespace.
  case rss
  /// RSS 0.90 (Netscape's `http://my.netscape.com/rdf/simple/0.9/`).
  case rss090
  /// RDF syntax.
  case rdf
  /// Atom 1.0 or 0.3.
  case atom
  /// Dublin Core elements.
  case dc
  /// Dublin Core terms.
  case dcterms
  /// `content:encoded`.
  case content
  /// Media RSS.
  case media
  /// Apple podcasts.
  case itunes
  /// XHTML.
  case xhtml
  /// RSS 1.0's syndication module (`sy:updatePeriod`, `sy:updateFrequency`).
  case sy
  /// The `xml:` namespace.
  case xml
  /// Anything else.
  case other

  /// Classifies a namespace URI, or a prefix whose declaration is missing (a common feed bug).
  package init(uri: String?, prefix: String?) {
    guard let uri else {
      switch prefix {
      case nil: self = .none
      case "dc": self = .dc
      case "dcterms": self = .dcterms
      case "content": self = .content
      case "media": self = .media
      case "itunes": self = .itunes
      case "atom", "atom10", "atom03": self = .atom
      case "rdf": self = .rdf
      case "xhtml": self = .xhtml
      case "sy": self = .sy
      default: self = .other
      }
      return
    }
    var u = uri.lowercased()
    if u.hasSuffix("/") || u.hasSuffix("#") { u.removeLast() }
    if u.hasPrefix("http://backend.userland.com/rss") {
      self = .rss
      return
    }
    switch u {
    case "http://my.netscape.com/rdf/simple/0.9": self = .rss090
    case "http://purl.org/rss/1.0",
      "http://blogs.law.harvard.edu/tech/rss", "http://purl.org/net/rss1.1":
      self = .rss
    case "http://www.w3.org/1999/02/22-rdf-syntax-ns": self = .rdf
    case "http://www.w3.org/2005/atom", "http://purl.org/atom/ns", "http://www.w3.org/2005/atom/": self = .atom
    case "http://purl.org/dc/elements/1.1", "http://purl.org/dc/elements/1.0": self = .dc
    case "http://purl.org/dc/terms": self = .dcterms
    case "http://purl.org/rss/1.0/modules/content": self = .content
    case "http://search.yahoo.com/mrss", "http://tools.search.yahoo.com/mrss": self = .media
    case "http://www.itunes.com/dtds/podcast-1.0.dtd", "http://www.itunes.com/dtds/podcast-1.0.dtd/": self = .itunes
    case "http://www.w3.org/1999/xhtml": self = .xhtml
    case "http://purl.org/rss/1.0/modules/syndication": self = .sy
    case "http://www.w3.org/xml/1998/namespace": self = .xml
    default: self = .other
    }
  }
}
