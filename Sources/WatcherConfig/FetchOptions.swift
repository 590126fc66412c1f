// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// How a feed is requested (`user_agent`, `headers`, `netrc`, `cookies`, `proxy`, in `settings` or on a
/// feed; a feed's own win, header by header).
///
/// A header's value may be written in the config, or read at each poll from a file (its first line) or an
/// environment variable, so that a token need not sit in the config. Values are never printed.
public struct FetchOptions: Sendable, Equatable {
  /// Where a header's value comes from.
  public enum Value: Sendable, Equatable {
    case text(String)
    case file(String)
    case environment(String)
  }

  /// One extra request header.
  public struct Header: Sendable, Equatable {
    public var name: String
    public var value: Value
    /// Where it is written.
    public var mark: Mark?

    public init(name: String, value: Value, mark: Mark? = nil) {
      self.name = name
      self.value = value
      self.mark = mark
    }
  }

  /// The User-Agent sent instead of watcher's own.
  public var userAgent: String?
  /// Extra headers, in the order written.
  public var headers: [Header] = []
  /// Basic auth from a netrc file: `true` for `~/.netrc`, or a path; `nil`: not read.
  public var netrc: String?
  /// A cookie file (Netscape format, as browsers' exporters and `curl -c` write) sent with each request.
  public var cookies: String?
  /// The proxy for this feed (`http://host:port`, `socks5h://host`), instead of the `*_proxy` variables.
  public var proxy: String?

  public init() {}

  /// Whether nothing is set.
  public var isEmpty: Bool { self == FetchOptions() }

  /// These options over `base`: each set field wins, headers by name (case-insensitively).
  public func over(_ base: FetchOptions) -> FetchOptions {
    var merged = base
    merged.userAgent = userAgent ?? base.userAgent
    merged.netrc = netrc ?? base.netrc
    merged.cookies = cookies ?? base.cookies
    merged.proxy = proxy ?? base.proxy
    let names = Set(headers.map { $0.name.lowercased() })
    merged.headers = base.headers.filter { !names.contains($0.name.lowercased()) } + headers
    return merged
  }

  /// The header lines to send (`Name: value`), values read from their files and variables now.
  ///
  /// The error names the header and where its value should have come from, never a value.
  public func headerLines(environment: [String: String]) -> Result<[String], FetchOptionsError> {
    var lines: [String] = []
    for header in headers {
      let value: String
      switch header.value {
      case .text(let text):
        value = text
      case .file(let path):
        // A regular file of at most 64 KiB: a FIFO or a device would hang the poll.
        let expanded = HomePath.expand(path, environment: environment)
        let data: Data
        switch ChunkedFile.readRegularFile(expanded, maxBytes: 65_536) {
        case .read(let bytes): data = bytes
        case .missing:
          return .failure(FetchOptionsError(description: "header '\(header.name)': its file \(path) does not exist"))
        case .failed(let why):
          return .failure(
            FetchOptionsError(description: "header '\(header.name)': cannot read its file \(path): \(why)"))
        }
        if let problem = FileSafety.trustedFileProblem(expanded) {
          return .failure(
            FetchOptionsError(description: "header '\(header.name)': its file is not safe to use: \(problem)"))
        }
        value = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
      case .environment(let name):
        guard let text = environment[name], !text.isEmpty else {
          return .failure(
            FetchOptionsError(description: "header '\(header.name)': the environment variable \(name) is not set"))
        }
        value = text
      }
      let clean = value.trimming(.spaces)
      guard !clean.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
        return .failure(FetchOptionsError(description: "header '\(header.name)': its value holds a line break"))
      }
      lines.append("\(header.name): \(clean)")
    }
    return .success(lines)
  }

  /// Whether a header is one whose value is a credential (and so belongs in a file, not the config).
  public static func isSecret(_ name: String) -> Bool {
    let lower = name.lowercased()
    return ["authorization", "proxy-authorization", "cookie"].contains(lower)
      || ["token", "key", "secret", "auth", "session", "password"].contains { lower.contains($0) }
  }

  /// Whether `name` is a valid header name (an HTTP token).
  public static func isValidName(_ name: String) -> Bool {
    !name.isEmpty
      && name.unicodeScalars.allSatisfy {
        $0.isASCII
          && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "!#$%&'*+-.^_`|~".unicodeScalars.contains($0))
      }
  }
}

/// Why a feed's request could not be made from its options (a header file that cannot be read).
public struct FetchOptionsError: Error, Sendable, Equatable, CustomStringConvertible {
  public var description: String
}

/// `interval: auto`: how often to poll follows how often the feed posts (`Schedule` has the formula).
public struct AutoInterval: Sendable, Equatable {
  /// The shortest interval `auto` picks (`settings.auto_interval.min`, 10 min).
  public var min = 10 * 60
  /// The longest (`settings.auto_interval.max`, 12 h).
  public var max = 12 * 3_600

  public init(min: Int = 10 * 60, max: Int = 12 * 3_600) {
    self.min = min
    self.max = max
  }
}
