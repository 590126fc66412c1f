// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CYaml

/// Reads YAML text into `YAMLNode`s with their marks, through libyaml's event API.
///
/// The only file that imports libyaml. Anchors and aliases work; an alias bomb (a few lines that expand
/// into billions of nodes) is refused as soon as the expansion passes `maxNodes`.
/// The corresponding C functions are `yaml_parser_initialize`, `yaml_parser_parse` and `yaml_parser_delete`.
package enum YAMLReader {
  /// The most nodes a document may expand to, aliases included.
  package static let maxNodes = 1_000_000
  /// The deepest nesting of mappings and sequences (a config needs fewer than 20 levels; every later step
  /// that walks the tree recursively is bounded by this).
  package static let maxDepth = 100

  /// Parses `text`.
  ///
  /// `nil` for an empty document. Throws a `Diagnostic` at libyaml's mark on a syntax error.
  package static func read(_ text: String) throws(Diagnostic) -> YAMLNode? {
    var parser = yaml_parser_t()
    guard yaml_parser_initialize(&parser) == 1 else {
      throw Diagnostic(message: "internal error: libyaml could not start, please report", mark: nil)
    }
    defer { yaml_parser_delete(&parser) }
    var bytes = Array(text.utf8)
    return try bytes.withUnsafeMutableBufferPointer { buffer throws(Diagnostic) -> YAMLNode? in
      yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
      var builder = TreeBuilder()
      var event = yaml_event_t()
      while true {
        guard yaml_parser_parse(&parser, &event) == 1 else { throw syntaxError(parser, source: text) }
        defer { yaml_event_delete(&event) }
        let done = try builder.handle(&event)
        if done { break }
      }
      return builder.root
    }
  }

  /// libyaml's own error, at its mark, with its context as a note, and the hint a person needs for the
  /// mistakes people make most (libyaml's words alone rarely say what to change).
  private static func syntaxError(_ parser: yaml_parser_t, source: String) -> Diagnostic {
    let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
    var notes: [String] = []
    if let context = parser.context.map({ String(cString: $0) }) {
      notes.append("\(context) at line \(parser.context_mark.line + 1), column \(parser.context_mark.column + 1)")
    }
    let mark = Mark(line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1)
    let line = source.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(mark.line - 1).first ?? ""
    let indentation = line.prefix { $0 == " " || $0 == "\t" }
    if indentation.contains("\t") {
      notes.append("this line is indented with a tab; YAML indents with spaces only")
    } else if problem.contains("unknown escape character") {
      notes.append(
        "a backslash starts an escape in double quotes; write regexes in single quotes, as in regex: '\\d+'")
    } else if problem.contains("mapping values are not allowed"), let quoted = quotedValue(line, column: mark.column) {
      // `hook: echo Title: $WATCHER_TITLE`: an unquoted value with ": " in it reads as a second key.
      notes.append("the value of '\(quoted.key)' holds ': ', which YAML reads as one more key: quote it, as in")
      notes.append("\(quoted.key): \(quoted.value)")
    } else if problem.contains("expected '-' indicator") || problem.contains("did not find expected key")
      || problem.contains("mapping values are not allowed")
    {
      notes.append(
        "check the indentation: the keys of one entry line up under each other, indented past its '-'")
    }
    return Diagnostic(message: "YAML syntax: \(problem)", mark: mark, notes: notes)
  }

  /// For a line `KEY: VALUE` whose plain VALUE holds ": " where libyaml stopped (`column`): the key and the
  /// value written in single quotes; nil for any other line.
  static func quotedValue(_ line: Substring, column: Int) -> (key: String, value: String)? {
    var body = line.drop { $0 == " " }
    if body.hasPrefix("- ") { body = body.dropFirst(2).drop { $0 == " " } }
    guard
      let colon = body.indices.first(where: {
        body[$0] == ":" && body.index(after: $0) < body.endIndex
          && body[body.index(after: $0)] == " "
      })
    else { return nil }
    let key = body[..<colon]
    let after = body.index(colon, offsetBy: 2)
    var value = Substring(body[after...].drop { $0 == " " })
    while value.last == " " { value = value.dropLast() }
    let offset = line.distance(from: line.startIndex, to: after)
    let holdsColon = value.indices.contains {
      value[$0] == ":" && value.index(after: $0) < value.endIndex
        && value[value.index(after: $0)] == " "
    }
    guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }),
      let first = value.first, !"'\"{[|>&*!#".contains(first), column > offset, holdsColon
    else { return nil }
    return (
      String(key), "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
    )
  }

  /// A collection being read; a class so that appending to it is done in place (an enum payload would be
  /// copied on every append, which made a 10 MB config quadratic).
  private final class Frame {
    package enum Kind { case mapping, sequence }
    package let kind: Kind
    package let mark: Mark
    package let anchor: String?
    package var entries: [YAMLNode.Entry] = []
    package var elements: [YAMLNode] = []
    package var pendingKey: YAMLNode?
    package var size = 1

    package init(_ kind: Kind, mark: Mark, anchor: String?) {
      self.kind = kind
      self.mark = mark
      self.anchor = anchor
    }
  }

  /// Builds the tree from events.
  private struct TreeBuilder {
    package var root: YAMLNode?
    private var stack: [Frame] = []
    private var anchors: [String: (node: YAMLNode, size: Int)] = [:]
    private var documents = 0
    private var totalNodes = 0

    /// Handles one event; returns true at the end of the stream.
    package mutating func handle(_ event: inout yaml_event_t) throws(Diagnostic) -> Bool {
      let mark = Mark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
      if event.type == YAML_MAPPING_START_EVENT || event.type == YAML_SEQUENCE_START_EVENT,
        stack.count >= YAMLReader.maxDepth
      {
        throw Diagnostic(
          message: "the config nests deeper than \(YAMLReader.maxDepth) levels", mark: mark,
          notes: ["a config needs only a few levels; look for runaway '[' or '{'"])
      }
      switch event.type {
      case YAML_STREAM_END_EVENT:
        return true
      case YAML_DOCUMENT_START_EVENT:
        documents += 1
        if documents > 1 {
          throw Diagnostic(
            message: "the config must be a single YAML document", mark: mark,
            notes: ["remove the '---' line that starts a second document"])
        }
      case YAML_SCALAR_EVENT:
        let scalar = event.data.scalar
        let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
        let node = YAMLNode(kind: .scalar(text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE), mark: mark)
        try add(node, size: 1, anchor: scalar.anchor.map { String(cString: $0) }, counted: false)
      case YAML_ALIAS_EVENT:
        let name = event.data.alias.anchor.map { String(cString: $0) } ?? ""
        guard let anchored = anchors[name] else {
          throw Diagnostic(message: "unknown alias '*\(name)'", mark: mark, notes: ["define it first with '&\(name)'"])
        }
        var node = anchored.node
        node.mark = mark
        try add(node, size: anchored.size, anchor: nil, counted: false)
      case YAML_MAPPING_START_EVENT:
        stack.append(Frame(.mapping, mark: mark, anchor: event.data.mapping_start.anchor.map { String(cString: $0) }))
      case YAML_SEQUENCE_START_EVENT:
        stack.append(Frame(.sequence, mark: mark, anchor: event.data.sequence_start.anchor.map { String(cString: $0) }))
      case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT:
        guard let frame = stack.popLast() else { return false }
        let kind: YAMLNode.Kind = frame.kind == .mapping ? .mapping(frame.entries) : .sequence(frame.elements)
        try add(YAMLNode(kind: kind, mark: frame.mark), size: frame.size, anchor: frame.anchor, counted: true)
      default:
        break
      }
      return false
    }

    /// Adds a finished node to its parent (or makes it the root), counting nodes against the alias-bomb cap.
    private mutating func add(_ node: YAMLNode, size: Int, anchor: String?, counted: Bool) throws(Diagnostic) {
      if !counted {
        totalNodes += size
        if totalNodes > YAMLReader.maxNodes {
          throw Diagnostic(
            message: "the config expands to more than \(YAMLReader.maxNodes) YAML nodes", mark: node.mark,
            notes: ["aliases ('*name') that repeat large anchors multiply; this looks like an alias bomb"])
        }
      }
      if let anchor { anchors[anchor] = (node, size) }
      guard let parent = stack.last else {
        root = node
        return
      }
      parent.size += size
      switch parent.kind {
      case .mapping:
        if let key = parent.pendingKey {
          parent.entries.append(YAMLNode.Entry(key: key, value: node))
          parent.pendingKey = nil
        } else {
          parent.pendingKey = node
        }
      case .sequence:
        parent.elements.append(node)
      }
    }
  }
}
