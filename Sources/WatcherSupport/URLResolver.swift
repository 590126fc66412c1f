// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// Resolves relative references (links, `xml:base`) against a base URL.
package enum URLResolver {
  /// `reference` resolved against `base`; unchanged when it is already absolute, when there is no base, or
  /// when either cannot be read as a URL.
  package static func resolve(_ reference: String, against base: String?) -> String {
    guard let base, !reference.isEmpty, !hasScheme(reference) else { return reference }
    guard let baseURL = URL(string: base), let url = URL(string: reference, relativeTo: baseURL) else {
      return reference
    }
    return url.absoluteString
  }

  /// Whether `reference` starts with a URI scheme (`http:`, `mailto:`, `tag:`).
  package static func hasScheme(_ reference: String) -> Bool {
    var sawLetter = false
    for c in reference.utf8 {
      switch c {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): sawLetter = true
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
        if !sawLetter { return false }
      case UInt8(ascii: ":"): return sawLetter
      default: return false
      }
    }
    return false
  }
}
