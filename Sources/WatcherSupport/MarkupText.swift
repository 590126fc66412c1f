// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Plain text made safe to put inside HTML-like markup: `&`, `<` and `>` escaped, nothing else touched.
public enum MarkupText {
  /// `text` with `&`, `<` and `>` as `&amp;`, `&lt;` and `&gt;`.
  public static func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
