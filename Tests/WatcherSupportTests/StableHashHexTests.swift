// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Testing
import WatcherSupport

@Suite("Stored hashes read back")
struct StableHashHexTests {
  @Test("a hash's hex reads back to it, in either case; anything that is not up to 16 hex digits is 0")
  func hexValues() throws {
    for text in ["", "a", "https://example.org/post", "Zürich"] {
      let hash = StableHash.value(of: text.utf8)
      #expect(StableHash.value(hex: StableHash.hex(hash)) == hash)
      #expect(StableHash.value(hex: StableHash.hex(hash).uppercased()) == hash)
    }
    #expect(StableHash.value(hex: "00ff") == 255)
    // Sixteen lowercase digits, zero-padded, as a string or appended to bytes.
    for (value, digits) in [
      (UInt64(0), "0000000000000000"), (1, "0000000000000001"), (0xfedc_ba98_7654_3210, "fedcba9876543210"),
    ] {
      #expect(StableHash.hex(value) == digits)
      var bytes = Array("x".utf8)
      StableHash.appendHex(value, to: &bytes)
      #expect(bytes == Array(("x" + digits).utf8))
    }
    for bad in ["g", "12:4", "@1", "`1", "1 2", "-1", "0123456789abcdef0", "ä"] {
      #expect(StableHash.value(hex: bad) == 0, "\(bad)")
    }
    // From a JSON string where it is, escapes resolved.
    let read = try JSONReader.read(Array(#"["00ff", "\u0030\u0031", "xyz"]"#.utf8)) { json in
      var values: [UInt64] = []
      try json.array { values.append(try $0.hexNumber()) }
      return values
    }
    #expect(read == [255, 1, 0])
  }
}
