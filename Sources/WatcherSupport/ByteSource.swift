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
}

extension ByteSource {
  package var expectedSize: Int? { nil }
}

extension ChunkedFile: ByteSource {
  package var expectedSize: Int? { size }
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
