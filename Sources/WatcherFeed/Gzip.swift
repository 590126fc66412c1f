// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CZlib
import FoundationEssentials
import Glibc

/// Decompresses gzip or zlib data with a cap on the output, so a compression bomb costs bounded memory.
package enum Gzip {
  /// Whether `data` starts with the gzip magic bytes.
  static func isGzip(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
  }

  /// The decompressed bytes, or `nil` when the data is corrupt.
  ///
  /// Throws `FeedParseError.tooLarge` past `limit` bytes of output. The corresponding C functions are
  /// `inflateInit2_`, `inflate` and `inflateEnd`.
  static func decompress(_ input: UnsafeBufferPointer<UInt8>, limit: Int) throws(FeedParseError) -> Data? {
    var stream = z_stream()
    // 15 + 32: any window size, gzip or zlib header detected automatically.
    guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
      return nil
    }
    defer { inflateEnd(&stream) }
    var output = Data()
    var chunk = [UInt8](repeating: 0, count: 64 * 1_024)
    stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
    stream.avail_in = UInt32(input.count)
    var status: Int32 = Z_OK
    repeat {
      let produced: Int = chunk.withUnsafeMutableBufferPointer { out in
        stream.next_out = out.baseAddress
        stream.avail_out = UInt32(out.count)
        status = inflate(&stream, Z_NO_FLUSH)
        return out.count - Int(stream.avail_out)
      }
      guard status == Z_OK || status == Z_STREAM_END else { return output.isEmpty ? nil : output }
      output.append(contentsOf: chunk[0..<produced])
      if output.count > limit { throw .tooLarge(limit: limit) }
    } while status != Z_STREAM_END && (stream.avail_in > 0 || stream.avail_out == 0)
    return output
  }
}
