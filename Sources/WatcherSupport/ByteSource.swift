// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// Bytes read in order, a piece at a time.
///
/// A file (`ChunkedFile`), a body received in pieces (`DataPieces`) or standard input (`ReadingSource`): a
/// streaming parse reads from any, so a large document is never held whole.
package protocol ByteSource {
  /// Up to `count` bytes: fewer only at the end, none at the end.
  mutating func read(upTo count: Int) throws -> [UInt8]
  /// How many bytes there are in all, when that is known (a file's size): room to read them whole into.
  var expectedSize: Int? { get }
  /// `head` (bytes already read) and what follows, up to `limit` bytes in all (one more tells that there
  /// are more), in room for all of it: the document is never in memory twice.
  mutating func readRest(after head: [UInt8], limit: Int) throws -> [UInt8]
}

extension ByteSource {
  package var expectedSize: Int? { nil }

  /// A piece at a time, appended.
  package mutating func readRest(after head: [UInt8], limit: Int) throws -> [UInt8] {
    var all = head
    all.reserveCapacity(min(limit + 1, expectedSize ?? 0))
    while all.count <= limit {
      let piece = try read(upTo: min(1 << 20, limit + 1 - all.count))
      if piece.isEmpty { break }
      all.append(contentsOf: piece)
    }
    return all
  }
}

extension ChunkedFile: ByteSource {
  package var expectedSize: Int? { size }

  /// Asks the kernel for 2 MiB pages under a large buffer about to be written whole: a 55 MB document read
  /// into 4 KiB pages took 13,500 page faults, a tenth of its parse's CPU.
  private static func adviseHugePages(_ base: UnsafeMutableRawPointer, count: Int) {
    let huge = 2 << 20
    guard count >= 4 * huge else { return }
    let start = (Int(bitPattern: base) + huge - 1) & ~(huge - 1)
    let end = (Int(bitPattern: base) + count) & ~(huge - 1)
    guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
    _ = madvise(aligned, end - start, MADV_HUGEPAGE)
  }

  /// As `ByteSource.readRest`, read straight into the room made for the file's size (reading a piece at a
  /// time and appending it copied every byte twice).
  package func readRest(after head: [UInt8], limit: Int) throws -> [UInt8] {
    let room = min(limit + 1, max(size, head.count) + 1)
    var all = try [UInt8](unsafeUninitializedCapacity: room) { buffer, initialized in
      guard let base = buffer.baseAddress else { return }
      Self.adviseHugePages(UnsafeMutableRawPointer(base), count: room)
      initialized = min(head.count, room)
      head.withUnsafeBufferPointer { if let from = $0.baseAddress { base.update(from: from, count: initialized) } }
      initialized += try read(into: base + initialized, count: room - initialized)
    }
    // A file that grew since it was opened: the rest as any source reads it.
    if all.count == room, all.count <= limit {
      while all.count <= limit {
        let piece = try read(upTo: min(1 << 20, limit + 1 - all.count))
        if piece.isEmpty { break }
        all.append(contentsOf: piece)
      }
    }
    return all
  }
}

/// Bytes from a function that reads the next ones each time it is called (standard input).
package struct ReadingSource: ByteSource {
  private let next: (Int) throws -> [UInt8]

  package init(_ next: @escaping (Int) throws -> [UInt8]) {
    self.next = next
  }

  package mutating func read(upTo count: Int) throws -> [UInt8] {
    try next(count)
  }
}

/// A body held as the pieces it arrived in, read once: each piece is released as soon as it has been read,
/// so reading a 20 MB body while building what it describes never holds both whole.
package struct DataPieces: ByteSource {
  private var pieces: [Data]
  private var index = 0
  private var offset = 0

  /// Takes the pieces; for the memory to be released as it is read, nothing else may hold them.
  package init(_ pieces: [Data]) {
    self.pieces = pieces
  }

  package var expectedSize: Int? { pieces.reduce(0) { $0 + $1.count } }

  package mutating func read(upTo count: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    while bytes.count < count, index < pieces.count {
      let piece = pieces[index]
      let take = min(count - bytes.count, piece.count - offset)
      let start = piece.startIndex + offset
      bytes.append(contentsOf: piece[start..<start + take])
      offset += take
      if offset == piece.count {
        // Released here: the last reference to the piece's storage.
        pieces[index] = Data()
        index += 1
        offset = 0
      }
    }
    return bytes
  }
}
