// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// The spellings one URL can have that `StoryIdentity` makes equal: percent-escapes (`/caf%C3%A9` and
/// `/café`, `%7e` and `~`) and internationalized hosts (`xn--caf-dma.example` and `café.example`).
enum URLSpelling {
  /// `bytes` with the escapes of what needs none undone: an escaped byte of a UTF-8 character (0x80 and
  /// up) or an unreserved character (letters, digits, `-._~`) becomes itself; other escapes (`%2F`, `%20`)
  /// stay, in upper case, since undoing them could change what the URL says.
  static func unescape(_ bytes: UnsafeBufferPointer<UInt8>, into sink: inout some StorySink) {
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == 37, index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
        let decoded = high << 4 | low
        if decoded >= 0x80 || isUnreserved(decoded) {
          sink.add(decoded)
        } else {
          sink.add(37)
          sink.add(upper(bytes[index + 1]))
          sink.add(upper(bytes[index + 2]))
        }
        index += 3
      } else {
        sink.add(byte)
        index += 1
      }
    }
  }

  /// Whether a host has a label in Punycode (`xn--`).
  static func hasPunycode(_ host: UnsafeBufferPointer<UInt8>) -> Bool {
    var start = 0
    while start + 4 <= host.count {
      if host[start] | 32 == 120, host[start + 1] | 32 == 110, host[start + 2] == 45, host[start + 3] == 45 {
        return true
      }
      while start < host.count, host[start] != 46 { start += 1 }
      start += 1
    }
    return false
  }

  /// A host's labels as Unicode in lower case: Punycode labels decoded (RFC 3492), a label that does not
  /// decode kept as it is.
  static func unicodeHost(_ host: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    let labels = String(decoding: host, as: UTF8.self).split(separator: ".", omittingEmptySubsequences: false)
    return Array(
      labels.map { label -> String in
        let lower = label.lowercased()
        guard lower.hasPrefix("xn--"), let decoded = punycode(lower.dropFirst(4)) else { return lower }
        return decoded.lowercased()
      }.joined(separator: ".").utf8)
  }

  /// RFC 3492's decoding of a Punycode label (without its `xn--`), or nil when it is not one.
  static func punycode(_ label: Substring) -> String? {
    let (base, tMin, tMax, skew, damp) = (36, 1, 26, 38, 700)
    let input = Array(label.utf8)
    guard input.count <= 256 else { return nil }
    var output: [UInt32] = []
    let split = input.lastIndex(of: 45) ?? 0
    for byte in input[..<split] {
      guard byte < 0x80 else { return nil }
      output.append(UInt32(byte))
    }
    var (n, i, bias) = (128, 0, 72)
    var position = split > 0 ? split + 1 : 0
    func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
      var delta = first ? delta / damp : delta / 2
      delta += delta / count
      var k = 0
      while delta > ((base - tMin) * tMax) / 2 {
        delta /= base - tMin
        k += base
      }
      return k + (base - tMin + 1) * delta / (delta + skew)
    }
    while position < input.count {
      let old = i
      var (w, k) = (1, base)
      while true {
        guard position < input.count else { return nil }
        let byte = input[position]
        position += 1
        let digit: Int
        switch byte {
        case 48...57: digit = Int(byte) - 22
        case 65...90: digit = Int(byte) - 65
        case 97...122: digit = Int(byte) - 97
        default: return nil
        }
        guard digit <= (Int(Int32.max) - i) / w else { return nil }
        i += digit * w
        let t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias
        if digit < t { break }
        guard w <= Int(Int32.max) / (base - t) else { return nil }
        w *= base - t
        k += base
      }
      bias = adapt(i - old, output.count + 1, old == 0)
      guard i / (output.count + 1) <= Int(Int32.max) - n else { return nil }
      n += i / (output.count + 1)
      i %= output.count + 1
      guard n < 0x110000, !(0xD800...0xDFFF).contains(n) else { return nil }
      output.insert(UInt32(n), at: i)
      i += 1
    }
    var text = ""
    for value in output {
      guard let scalar = Unicode.Scalar(value) else { return nil }
      text.unicodeScalars.append(scalar)
    }
    return text
  }

  private static func hex(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 48...57: byte - 48
    case 65...70: byte - 55
    case 97...102: byte - 87
    default: nil
    }
  }

  private static func upper(_ byte: UInt8) -> UInt8 { byte >= 97 && byte <= 122 ? byte - 32 : byte }

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case 48...57, 65...90, 97...122, 45, 46, 95, 126: true
    default: false
    }
  }
}
