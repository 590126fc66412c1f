// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A place in a source file: 1-based line and column (columns count Unicode scalars, as libyaml does).
public struct Mark: Sendable, Equatable, Hashable, Comparable {
  /// 1-based line.
  public var line: Int
  /// 1-based column.
  public var column: Int

  /// Creates a mark.
  public init(line: Int, column: Int) {
    self.line = line
    self.column = column
  }

  /// Orders marks by position in the file.
  public static func < (a: Mark, b: Mark) -> Bool { (a.line, a.column) < (b.line, b.column) }
}

/// A YAML node with the place it starts, as read by `YAMLReader`.
///
/// Aliases are resolved into copies of their anchor's node, so the tree has no references.
public struct YAMLNode: Sendable, Equatable {
  /// What a node holds.
  public indirect enum Kind: Sendable, Equatable {
    /// A scalar's text and whether it was written plain (unquoted); quoted scalars are always strings.
    case scalar(String, plain: Bool)
    /// A mapping's entries in file order (duplicates kept; the config mapper reports them).
    case mapping([Entry])
    /// A sequence's elements.
    case sequence([YAMLNode])
  }

  /// A key and its value.
  public struct Entry: Sendable, Equatable {
    /// The key (a scalar in every valid config).
    public var key: YAMLNode
    /// The value.
    public var value: YAMLNode
  }

  /// The content.
  public var kind: Kind
  /// Where it starts.
  public var mark: Mark

  /// The text of a scalar, or `nil`.
  public var scalar: String? {
    if case .scalar(let text, _) = kind { return text }
    return nil
  }

  /// Whether this is the YAML null (`~`, `null`, or an empty plain scalar).
  public var isNull: Bool {
    if case .scalar(let text, let plain) = kind { return plain && (text.isEmpty || text == "~" || text == "null") }
    return false
  }

  /// A word for the node's kind, for messages ("a mapping", "a list", "a string").
  public var kindName: String {
    switch kind {
    case .scalar: return isNull ? "nothing (null)" : "a string"
    case .mapping: return "a mapping"
    case .sequence: return "a list"
    }
  }
}
