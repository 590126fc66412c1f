// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// The compiled machine: consuming steps, forks, jumps, assertions and a final match.
package struct Program: Sendable {
  package enum Step: Sendable {
    case scalar(UInt32)
    case any
    case set(Int32)
    case split(Int32, Int32)
    case jump(Int32)
    case assert(RegexAssertion)
    case match
  }

  package var steps: [Step] = []
  package var sets: [ScalarSet] = []
  /// The first UTF-8 bytes a match can start with, as a 256-bit map; `nil` when a match can be empty
  /// or start with any character.
  package var startBytes: [UInt64]?
  /// Whether a match can start after the first character (false when every branch starts with `^`).
  package var startsAfterFirst = true

  package init(_ tree: RegexNode) throws(LinearRegex.RegexError) {
    let limit = LinearRegex.maxProgramSize
    if tree.size(limit: limit) > limit {
      throw LinearRegex.RegexError(
        message: "the pattern is too large (over \(limit) steps once its counts are expanded)", offset: nil)
    }
    emit(tree)
    steps.append(.match)
    analyseStart()
    flatten()
  }

  private mutating func emit(_ node: RegexNode) {
    switch node {
    case .scalar(let c): steps.append(.scalar(c.value))
    case .any: steps.append(.any)
    case .set(let set):
      steps.append(.set(Int32(sets.count)))
      sets.append(set)
    case .assert(let a): steps.append(.assert(a))
    case .sequence(let nodes): nodes.forEach { emit($0) }
    case .alternatives(let nodes):
      var jumps: [Int] = []
      for (i, branch) in nodes.enumerated() {
        if i < nodes.count - 1 {
          let split = steps.count
          steps.append(.split(0, 0))
          emit(branch)
          jumps.append(steps.count)
          steps.append(.jump(0))
          steps[split] = .split(Int32(split + 1), Int32(steps.count))
        } else {
          emit(branch)
        }
      }
      for j in jumps { steps[j] = .jump(Int32(steps.count)) }
    case .repeated(let body, let min, let max):
      for _ in 0..<min { emit(body) }
      if let max {
        // Optional copies: each one may be skipped to the end.
        var splits: [Int] = []
        for _ in min..<Swift.max(max, min) {
          splits.append(steps.count)
          steps.append(.split(0, 0))
          emit(body)
        }
        for s in splits { steps[s] = .split(Int32(s + 1), Int32(steps.count)) }
      } else {
        let loop = steps.count
        steps.append(.split(0, 0))
        emit(body)
        steps.append(.jump(Int32(loop)))
        steps[loop] = .split(Int32(loop + 1), Int32(steps.count))
      }
    }
  }

  /// Fills `startBytes` and `startsAfterFirst` from the steps reachable before the first character.
  private mutating func analyseStart() {
    var seen = Set<Int>()
    var bytes: [UInt64] = [0, 0, 0, 0]
    var anywhere = false
    var afterFirst = false
    func mark(_ b: Int) { bytes[b >> 6] |= 1 << UInt64(b & 63) }
    // Each entry: a step, and whether it is reached without passing a '^'.
    var work: [(Int, Bool)] = [(0, true)]
    while let (pc, free) = work.popLast() {
      guard seen.insert(pc * 2 + (free ? 1 : 0)).inserted else { continue }
      switch steps[pc] {
      case .scalar(let c):
        afterFirst = afterFirst || free
        mark(Self.leadByte(c))
      case .any, .match:
        afterFirst = afterFirst || free
        anywhere = true
      case .set(let index):
        afterFirst = afterFirst || free
        let set = sets[Int(index)]
        for b in 0..<128 where set.contains(UInt32(b)) { mark(b) }
        if set.hasNonASCII { (0xC0...0xFF).forEach(mark) }  // every lead byte of a longer character
      case .split(let x, let y):
        work.append((Int(x), free))
        work.append((Int(y), free))
      case .jump(let x): work.append((Int(x), free))
      case .assert(let a): work.append((pc + 1, free && a != .textStart))
      }
    }
    startBytes = anywhere ? nil : bytes
    startsAfterFirst = afterFirst
  }

  /// The first UTF-8 byte of the character `value`.
  private static func leadByte(_ value: UInt32) -> Int {
    switch value {
    case ..<0x80: Int(value)
    case ..<0x800: 0xC0 | Int(value >> 6)
    case ..<0x10000: 0xE0 | Int(value >> 12)
    default: 0xF0 | Int(value >> 18)
    }
  }

  // MARK: Matching

  /// One step as the matchers read it, a plain value.
  ///
  /// Kept in one contiguous array, so the inner loop does no reference counting. `a` and `b` are the
  /// step's operands; a set's ASCII members are inline.
  package struct Instruction {
    package enum Op: UInt8 { case scalar, any, set, split, jump, assert, match }
    package var op: Op
    package var a: Int32 = 0
    package var b: Int32 = 0
    package var low: UInt64 = 0
    package var high: UInt64 = 0
  }

  /// The steps flattened for matching (filled by `flatten`).
  package var instructions: [Instruction] = []

  package mutating func flatten() {
    instructions = steps.map { step in
      switch step {
      case .scalar(let c): Instruction(op: .scalar, a: Int32(bitPattern: c))
      case .any: Instruction(op: .any)
      case .set(let index):
        Instruction(op: .set, a: index, low: sets[Int(index)].ascii.0, high: sets[Int(index)].ascii.1)
      case .split(let x, let y): Instruction(op: .split, a: x, b: y)
      case .jump(let x): Instruction(op: .jump, a: x)
      case .assert(let kind): Instruction(op: .assert, a: kind.rawValue)
      case .match: Instruction(op: .match)
      }
    }
  }

  /// The threads at one text position: each step at most once, with the offset its match started at,
  /// in order of that offset (earliest first).
  private struct Threads {
    var steps: UnsafeMutableBufferPointer<Int32>
    var starts: UnsafeMutableBufferPointer<Int32>
    package var count = 0
  }

  /// The memory of one search: two thread lists, the marks of steps already added at the current
  /// position (`marks[pc] == generation`), and the stack of forks still to follow.
  private struct Scratch {
    package var current: Threads
    package var next: Threads
    let marks: UnsafeMutableBufferPointer<Int32>
    let stack: UnsafeMutableBufferPointer<Int32>
    package var generation: Int32 = 0
  }

  func search(_ text: UnsafeBufferPointer<UInt8>, work: inout Int) -> Range<Int>? {
    let size = instructions.count
    return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 6 * size) { memory in
      memory.initialize(repeating: -1)
      guard let base = memory.baseAddress else { return nil }
      func slice(_ i: Int) -> UnsafeMutableBufferPointer<Int32> {
        UnsafeMutableBufferPointer(start: base + i * size, count: size)
      }
      var scratch = Scratch(
        current: Threads(steps: slice(0), starts: slice(1)), next: Threads(steps: slice(2), starts: slice(3)),
        marks: slice(4), stack: slice(5))
      return instructions.withUnsafeBufferPointer { program in
        run(program, text, &scratch, work: &work)
      }
    }
  }

  @inline(__always) static func decode(_ text: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32 {
    let b0 = UInt32(text[i])
    if b0 < 0x80 { return b0 }
    if b0 < 0xE0 { return (b0 & 0x1F) << 6 | UInt32(text[i + 1] & 0x3F) }
    if b0 < 0xF0 { return (b0 & 0x0F) << 12 | UInt32(text[i + 1] & 0x3F) << 6 | UInt32(text[i + 2] & 0x3F) }
    return (b0 & 0x07) << 18 | UInt32(text[i + 1] & 0x3F) << 12 | UInt32(text[i + 2] & 0x3F) << 6
      | UInt32(text[i + 3] & 0x3F)
  }

  /// The first byte at or after `i` that `startBytes` (a 256-bit map) holds, or the end of `text`.
  @inline(__always)
  static func nextStart(_ startBytes: [UInt64], in text: UnsafeBufferPointer<UInt8>, from i: Int) -> Int {
    var i = i
    while i < text.count, startBytes[Int(text[i] >> 6)] & (1 << UInt64(text[i] & 63)) == 0 { i += 1 }
    return i
  }

  @inline(__always) package static func length(_ leadByte: UInt8) -> Int {
    leadByte < 0x80 ? 1 : leadByte < 0xE0 ? 2 : leadByte < 0xF0 ? 3 : 4
  }

  /// The character at byte `i`, or `nil` at the end.
  private static func scalar(at i: Int, in text: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
    i < text.count ? Unicode.Scalar(decode(text, i)) : nil
  }

  /// The character ending just before byte `i`, or `nil` at the start.
  static func scalar(before i: Int, in text: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
    guard i > 0 else { return nil }
    var start = i - 1
    while start > 0, text[start] & 0xC0 == 0x80 { start -= 1 }
    return Unicode.Scalar(decode(text, start))
  }

  /// Adds step `first`, and every step reachable from it without consuming a character at byte
  /// `position`, to `list`, skipping steps already added there.
  @inline(__always)
  private func add(
    _ first: Int32, start: Int32, to list: inout Threads, _ program: UnsafeBufferPointer<Instruction>,
    _ scratch: Scratch, text: UnsafeBufferPointer<UInt8>, position: Int
  ) {
    let generation = scratch.generation
    // Each fork pushes at most once per position, so the stack never holds more than the program size.
    scratch.stack[0] = first
    var top = 1
    while top > 0 {
      top -= 1
      var pc = Int(scratch.stack[top])
      follow: while scratch.marks[pc] != generation {
        scratch.marks[pc] = generation
        let instruction = program[pc]
        switch instruction.op {
        case .jump: pc = Int(instruction.a)
        case .split:
          scratch.stack[top] = instruction.b
          top += 1
          pc = Int(instruction.a)
        case .assert:
          let kind = RegexAssertion(rawValue: instruction.a) ?? .textStart
          guard kind.holds(Self.scalar(before: position, in: text), Self.scalar(at: position, in: text)) else {
            break follow
          }
          pc += 1
        default:
          list.steps[list.count] = Int32(pc)
          list.starts[list.count] = start
          list.count += 1
          break follow
        }
      }
    }
  }

  private func run(
    _ program: UnsafeBufferPointer<Instruction>, _ text: UnsafeBufferPointer<UInt8>, _ scratch: inout Scratch,
    work: inout Int
  ) -> Range<Int>? {
    let end = text.count
    var position = 0
    var best: Range<Int>?
    let startBytes = self.startBytes ?? []
    let skips = !startBytes.isEmpty
    while true {
      // A new thread starts here while no match is known (a later start cannot be leftmost). The
      // current list was filled at this position under the current generation, so it is not repeated.
      if best == nil, position == 0 || startsAfterFirst {
        if scratch.current.count == 0, skips {
          // Nothing is running: jump to the next byte a match can start with.
          let from = position
          position = Self.nextStart(startBytes, in: text, from: position)
          if position == end { return nil }
          if position != from { scratch.generation += 1 }
        }
        add(0, start: Int32(position), to: &scratch.current, program, scratch, text: text, position: position)
      }
      // Nothing running and nothing more to start: done.
      if scratch.current.count == 0, best != nil || !startsAfterFirst || position >= end { return best }
      let value = position < end ? Self.decode(text, position) : UInt32.max
      let after = position < end ? position + Self.length(text[position]) : end
      scratch.generation += 1
      scratch.next.count = 0
      work += scratch.current.count
      for i in 0..<scratch.current.count {
        let start = Int(scratch.current.starts[i])
        if let best, start > best.lowerBound { break }  // the list is in order of start
        let pc = Int(scratch.current.steps[i])
        let instruction = program[pc]
        let matched: Bool
        switch instruction.op {
        case .match:
          if best.map({ start < $0.lowerBound || position > $0.upperBound }) ?? true { best = start..<position }
          continue
        case .scalar: matched = UInt32(bitPattern: instruction.a) == value
        case .any: matched = position < end
        case .set:
          if value < 64 {
            matched = instruction.low & (1 << UInt64(value)) != 0
          } else if value < 128 {
            matched = instruction.high & (1 << UInt64(value - 64)) != 0
          } else {
            matched = position < end && sets[Int(instruction.a)].contains(value)
          }
        default: matched = false
        }
        if matched {
          add(Int32(pc + 1), start: Int32(start), to: &scratch.next, program, scratch, text: text, position: after)
        }
      }
      if position >= end { return best }
      swap(&scratch.current, &scratch.next)
      position = after
    }
  }
}
