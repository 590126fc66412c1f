// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport

/// A text field as the feed gave it, with whether it is HTML, before normalization.
package struct TextConstruct {
  /// The raw value (HTML source when `isHTML`).
  package var value: String
  /// Whether `value` is HTML, when the format says (RSS descriptions, Atom `type="html"`/`"xhtml"`); `nil`
  /// when it leaves it open and the value is looked at, on the normalizing worker, not the parser's thread.
  private var declaredHTML: Bool?

  /// For fields whose type the format leaves open (RSS titles, iTunes summaries): HTML when it looks like it.
  package init(guessing value: String) {
    self.value = value
    declaredHTML = nil
  }

  package init(value: String, isHTML: Bool) {
    self.value = value
    declaredHTML = isHTML
  }

  /// Whether `value` is HTML: as declared, or, when the format left it open, when it looks like it.
  package var isHTML: Bool {
    declaredHTML ?? HTMLText.looksLikeHTML(value)
  }

  /// An Atom text construct: `type` is `text` (the default), `html`, `xhtml`, a MIME type, or Atom 0.3's
  /// `mode="escaped"`.
  package static func isHTML(atomType type: String?, mode: String?) -> Bool {
    if mode?.lowercased() == "escaped" { return true }
    guard let type = type?.lowercased() else { return false }
    return type == "html" || type == "xhtml" || type.contains("html")
  }

  /// Whether an Atom `type` asks for inline XHTML.
  package static func isXHTML(atomType type: String?) -> Bool {
    guard let type = type?.lowercased() else { return false }
    return type == "xhtml" || type == "application/xhtml+xml"
  }

  /// Plain text: HTML converted, plain text with its lines kept (or joined in single-line mode).
  package func plainText(singleLine: Bool) -> String? {
    if isHTML { return HTMLText.plainText(fromHTML: value, singleLine: singleLine) }
    return singleLine ? HTMLText.collapsed(value) : HTMLText.collapsedLines(value)
  }

  /// HTML source: the value itself, or plain text escaped.
  package var html: String? {
    if isHTML { return value.isEmpty ? nil : value }
    guard HTMLText.collapsed(value) != nil else { return nil }
    return MarkupText.escape(value)
  }
}
