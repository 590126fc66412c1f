// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherRegex

#if canImport(Glibc)
  import Glibc
#endif

/// Rule conditions compiled into plain nodes (no references), evaluated by index.
package struct RuleProgram: Sendable {
  /// What a node does.
  package enum Op: UInt8, Sendable {
    /// Any of the needle ids `lists[a..<a+b]` in the field (whole words when `wholeWord`).
    case needles
    /// `regexes[a]` on the field, where needle `b` (its required literal; -1 for none) occurs.
    case regex
    /// `patterns[a]` matched directly (case-sensitive, equals, tags).
    case general
    /// Every child in `lists[a..<a+b]`.
    case all
    /// Any child in `lists[a..<a+b]`.
    case any
    /// Not child `a`.
    case not
    /// Published more than `seconds` ago.
    case olderThan
    /// Published less than `seconds` ago.
    case newerThan
    /// The learned score above (or below) `bound`.
    case scoreAbove
    case scoreBelow
  }

  /// One node.
  package struct Node: Sendable {
    package var op: Op
    package var field: MatchField = .title
    package var wholeWord = false
    package var a: Int32 = 0
    package var b: Int32 = 0
    package var seconds: Int = 0
    package var bound: Double = 0
  }

  package var nodes: [Node] = []
  package var lists: [Int32] = []
  package var regexes: [LinearRegex] = []
  package var patterns: [Pattern] = []

  /// Compiles `condition`; returns its node index.
  package mutating func add(_ condition: Condition, registry: inout NeedleRegistry) -> Int32 {
    var node: Node
    switch condition {
    case .field(let field, let pattern):
      node = Node(op: .general, field: field)
      // Tags change during evaluation, so they and case-sensitive patterns are matched directly.
      if field != .tag, !pattern.caseSensitive {
        switch pattern.kind {
        case .contains(let needles) where !needles.contains(""):
          node = list(.needles, needles.map { Int32(registry.id($0)) })
          node.field = field
        case .words(let needles) where !needles.contains(""):
          node = list(.needles, needles.map { Int32(registry.id($0)) })
          node.field = field
          node.wholeWord = true
        case .regex(let regex):
          regexes.append(regex)
          node = Node(
            op: .regex, field: field, a: Int32(regexes.count - 1),
            b: regex.requiredLiteral.map { Int32(registry.id($0)) } ?? -1)
        default: break
        }
      }
      if node.op == .general {
        patterns.append(pattern)
        node.a = Int32(patterns.count - 1)
      }
    case .all(let children): node = list(.all, children.map { add($0, registry: &registry) })
    case .any(let children): node = list(.any, children.map { add($0, registry: &registry) })
    case .not(let inner): node = Node(op: .not, a: add(inner, registry: &registry))
    case .olderThan(let seconds): node = Node(op: .olderThan, seconds: seconds)
    case .newerThan(let seconds): node = Node(op: .newerThan, seconds: seconds)
    case .scoreAbove(let bound): node = Node(op: .scoreAbove, bound: bound)
    case .scoreBelow(let bound): node = Node(op: .scoreBelow, bound: bound)
    }
    nodes.append(node)
    return Int32(nodes.count - 1)
  }

  private mutating func list(_ op: Op, _ items: [Int32]) -> Node {
    let start = Int32(lists.count)
    lists += items
    return Node(op: op, a: start, b: Int32(items.count))
  }
}

/// Assigns ids to the literals the automaton searches for.
package struct NeedleRegistry {
  package private(set) var needles: [[UInt8]] = []
  private var ids: [String: Int] = [:]

  package mutating func id(_ needle: String) -> Int {
    if let id = ids[needle] { return id }
    ids[needle] = needles.count
    needles.append(Array(needle.utf8))
    return needles.count - 1
  }
}
