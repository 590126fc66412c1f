// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherFeed
import WatcherRegex

/// The fields a rule can match.
public enum MatchField: String, Sendable, CaseIterable {
  /// The title.
  case title
  /// The plain text of the summary and content.
  case text
  /// Any of the item's categories.
  case category
  /// The author.
  case author
  /// The link.
  case link
  /// The feed's name.
  case feed
  /// Any tag given so far (feed tags and earlier rules' tags).
  case tag
  /// The main text of the linked article, for feeds with `full_text` (empty otherwise).
  case content
  /// Title, text, category or content.
  case any
}

/// A condition on an item.
public indirect enum Condition: Sendable {
  /// A field matches a pattern.
  case field(MatchField, Pattern)
  /// Every condition holds.
  case all([Condition])
  /// At least one holds.
  case any([Condition])
  /// The condition does not hold.
  case not(Condition)
  /// Published longer ago than this many seconds.
  case olderThan(Int)
  /// Published less long ago than this many seconds.
  case newerThan(Int)
  /// The learned score (from 👍/👎 labels) is above this, or below it; an item without a score (too few
  /// labels yet) holds neither.
  case scoreAbove(Double)
  case scoreBelow(Double)
}

extension Condition {
  /// Whether the condition, or any part of it, tests `field`.
  public func tests(_ field: MatchField) -> Bool {
    switch self {
    case .field(let tested, _): tested == field
    case .all(let parts), .any(let parts): parts.contains { $0.tests(field) }
    case .not(let inner): inner.tests(field)
    case .olderThan, .newerThan, .scoreAbove, .scoreBelow: false
    }
  }

  /// Whether the condition, or any part of it, tests the learned score.
  public var testsScore: Bool {
    switch self {
    case .scoreAbove, .scoreBelow: true
    case .all(let parts), .any(let parts): parts.contains { $0.testsScore }
    case .not(let inner): inner.testsScore
    case .field, .olderThan, .newerThan: false
    }
  }
}

/// How a field's text is matched.
public struct Pattern: Sendable {
  /// The kind of test.
  public enum Kind: Sendable {
    /// Contains any of these (folded unless case-sensitive).
    case contains([String])
    /// Contains any of these as whole words.
    case words([String])
    /// Equals any of these (whitespace collapsed).
    case equals([String])
    /// Matches the regular expression.
    case regex(LinearRegex)
  }

  /// The test.
  public var kind: Kind
  /// Whether case matters (`case: sensitive`).
  public var caseSensitive: Bool

  /// Creates a pattern; the needles are folded here unless the pattern is case-sensitive.
  public init(_ kind: Kind, caseSensitive: Bool = false) {
    self.caseSensitive = caseSensitive
    guard !caseSensitive else {
      self.kind = kind
      return
    }
    switch kind {
    case .contains(let needles): self.kind = .contains(needles.map(TextFolding.fold))
    case .words(let needles): self.kind = .words(needles.map(TextFolding.fold))
    case .equals(let needles): self.kind = .equals(needles.map { TextFolding.fold(HTMLText.collapsed($0) ?? "") })
    case .regex: self.kind = kind
    }
  }
}
