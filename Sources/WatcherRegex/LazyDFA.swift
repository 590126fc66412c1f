// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// A DFA built lazily from a `Program`'s steps, answering only "does the text contain a match?".
///
/// Each DFA state is the set of program steps alive after some text, with whether the previous character
/// was a word character (for `\b` and friends) and whether it is the start of the text. A transition on
/// an ASCII byte is computed once, by the same closure the Pike VM runs, and cached in a table; after
/// warm-up, a byte costs one table lookup. Characters from U+0080 up are computed each time without
/// caching. So the work stays linear in the text (at most the program size per character), and on the
/// common case (no match) it is a few nanoseconds per byte.
///
/// The cache is shared by every search that uses this DFA, behind a lock taken with `try`: a search that
/// finds it busy on another thread answers `nil`. A `LinearRegex` keeps one DFA per processor and tries
/// the others before it runs the Pike VM instead. The cache holds at most `maxStates` states (128
/// transitions each) and is emptied when full.
package final class LazyDFA: @unchecked Sendable {
  /// Guards every mutable property below.
  private let lock = Lock()
  private let program: Program
  /// The most states kept (each has a 512-byte transition table).
  package static let maxStates = 256
  private static let unknown: Int32 = -1
  private static let matched: Int32 = -2

  /// A state: the steps to follow (sorted) and the previous-character flags.
  private struct Key: Hashable {
    package var steps: [Int32]
    /// 0: the start of the text; 1: after a non-word character; 2: after a word character.
    package var previous: UInt8
  }

  private var ids: [Key: Int32] = [:]
  private var keys: [Key] = []
  /// `transitions[state * 128 + byte]`: the next state, `unknown` or `matched`.
  private var transitions: [Int32] = []
  /// The transitions on characters from U+0080 up, by `state << 21 | character`.
  private var wide: [Int: Int32] = [:]
  /// Scratch for closures: marks (by generation), a stack, and the steps collected.
  private var marks: [Int32]
  private var generation: Int32 = 0
  private var stack: [Int32] = []
  private var collected: [Int32] = []

  package init(_ program: Program) {
    self.program = program
    marks = Array(repeating: -1, count: program.instructions.count)
    empty()
  }

  /// Whether `text` contains a match; `nil` when another thread is using the cache.
  func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool? {
    guard lock.try() else { return nil }
    defer { lock.unlock() }
    var state = Self.start
    var i = 0
    while true {
      // Run on cached transitions until one is missing, a character is not ASCII, or the text ends.
      let (stopped, last, outcome) = transitions.withUnsafeBufferPointer { table in
        Self.run(table, text, from: i, state: state, startBytes: program.startBytes)
      }
      i = stopped
      state = last
      switch outcome {
      case .matched: return true
      case .end: return transition(state, nil) == Self.matched
      case .missing:
        let byte = text[i]
        let before = epoch
        let next = transition(state, UInt32(byte))
        if next == Self.matched { return true }
        // Emptying the cache to make room invalidates `state`: then the transition is not kept.
        if epoch == before { transitions[Int(state) * 128 + Int(byte)] = next }
        state = next
        i += 1
      case .wide:
        let character = Program.decode(text, i)
        let key = Int(state) << 21 | Int(character)
        let next: Int32
        if let known = wide[key] {
          next = known
        } else {
          let before = epoch
          next = transition(state, character)
          if epoch == before { wide[key] = next }
        }
        if next == Self.matched { return true }
        state = next
        i += Program.length(text[i])
      }
    }
  }

  private enum Stop { case matched, end, missing, wide }

  /// The states that always exist: the start of the text, and no step alive after a non-word and after a
  /// word character.
  private static let start: Int32 = 0
  private static let idle: (Int32, Int32) = (1, 2)
  /// How many times the cache was emptied (the first fill counts as one).
  private var epoch = 0

  /// `epoch`, read under the lock (for tests).
  package var timesEmptied: Int { lock.withLock { epoch } }

  /// Follows cached transitions from byte `i`; skips bytes no match can start with while idle.
  @inline(__always)
  private static func run(
    _ table: UnsafeBufferPointer<Int32>, _ text: UnsafeBufferPointer<UInt8>, from start: Int, state initial: Int32,
    startBytes: [UInt64]?
  ) -> (Int, Int32, Stop) {
    var i = start
    var state = initial
    let end = text.count
    while i < end {
      if let startBytes, state == idle.0 || state == idle.1 {
        let from = i
        i = Program.nextStart(startBytes, in: text, from: i)
        if i == end { return (i, state, .end) }  // the end after an idle stretch: no match can end there
        if i != from {
          let previous = Program.scalar(before: i, in: text).map(WordCharacter.contains) ?? false
          state = previous ? idle.1 : idle.0
        }
      }
      let byte = text[i]
      if byte >= 0x80 { return (i, state, .wide) }
      let next = table[Int(state) &* 128 &+ Int(byte)]
      if next < 0 { return (i, state, next == matched ? .matched : .missing) }
      state = next
      i += 1
    }
    return (i, state, .end)
  }

  /// The state for `key`, added (with an empty transition table) if new; empties the cache when full.
  private func state(for key: Key) -> Int32 {
    if let id = ids[key] { return id }
    if keys.count >= Self.maxStates || wide.count >= Self.maxStates * 16 { empty() }
    return add(key)
  }

  private func add(_ key: Key) -> Int32 {
    let id = Int32(keys.count)
    ids[key] = id
    keys.append(key)
    transitions.append(contentsOf: repeatElement(Self.unknown, count: 128))
    return id
  }

  /// Empties the cache but for the three fixed states.
  private func empty() {
    ids.removeAll(keepingCapacity: true)
    keys.removeAll(keepingCapacity: true)
    transitions.removeAll(keepingCapacity: true)
    wide.removeAll(keepingCapacity: true)
    epoch += 1
    for previous: UInt8 in 0...2 { _ = add(Key(steps: [], previous: previous)) }
  }

  /// The state after `state` reads `character` (`nil`: the end of the text), or `matched` when a match
  /// ends just before it.
  private func transition(_ state: Int32, _ character: UInt32?) -> Int32 {
    let key = keys[Int(state)]
    let previousIsWord: Bool? = key.previous == 0 ? nil : key.previous == 2
    let next = character.flatMap(Unicode.Scalar.init)
    generation += 1
    collected.removeAll(keepingCapacity: true)
    // The steps alive, then a new start here (unless every match must start at the text's start).
    var seeds = key.steps
    if key.previous == 0 || program.startsAfterFirst { seeds.append(0) }
    for seed in seeds where follow(seed, previousIsWord: previousIsWord, next: next) {
      return Self.matched
    }
    guard let character else { return Self.unknown }
    // Step every collected consuming step over the character.
    var following: [Int32] = []
    for pc in collected {
      let instruction = program.instructions[Int(pc)]
      let accepts: Bool
      switch instruction.op {
      case .scalar: accepts = UInt32(bitPattern: instruction.a) == character
      case .any: accepts = true
      case .set: accepts = program.sets[Int(instruction.a)].contains(character)
      default: accepts = false
      }
      if accepts { following.append(pc + 1) }
    }
    following.sort()
    let isWord = next.map(WordCharacter.contains) ?? false
    return self.state(for: Key(steps: following, previous: isWord ? 2 : 1))
  }

  /// Follows `first` through forks, jumps and assertions, collecting the consuming steps reached; true
  /// when it reaches the final match.
  private func follow(_ first: Int32, previousIsWord: Bool?, next: Unicode.Scalar?) -> Bool {
    stack.append(first)
    while let top = stack.popLast() {
      var pc = Int(top)
      follow: while marks[pc] != generation {
        marks[pc] = generation
        let instruction = program.instructions[pc]
        switch instruction.op {
        case .jump: pc = Int(instruction.a)
        case .split:
          stack.append(instruction.b)
          pc = Int(instruction.a)
        case .assert:
          let kind = RegexAssertion(rawValue: instruction.a) ?? .textStart
          guard kind.holds(previousIsWord: previousIsWord, next) else { break follow }
          pc += 1
        case .match:
          stack.removeAll(keepingCapacity: true)
          return true
        default:
          collected.append(Int32(pc))
          break follow
        }
      }
    }
    return false
  }
}
