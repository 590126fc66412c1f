// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// The parts of a feed's config and the settings that say how and how often it is fetched.
extension ConfigMapper {
  /// `settings.auto_interval: { min: 10m, max: 12h }`.
  mutating func autoBounds(_ node: YAMLNode) -> AutoInterval {
    var bounds = AutoInterval()
    guard let entries = mapping(node, "'settings.auto_interval'") else { return bounds }
    checkKeys(entries, allowed: ["min", "max"], in: "'settings.auto_interval'")
    for entry in entries {
      switch entry.key {
      case "min": bounds.min = duration(entry.value, "'min'", positive: true) ?? bounds.min
      case "max": bounds.max = duration(entry.value, "'max'", positive: true) ?? bounds.max
      default: break
      }
    }
    if bounds.min > bounds.max {
      error(
        "'settings.auto_interval': 'min' is longer than 'max'", at: node.mark,
        notes: ["auto picks an interval between the two, for example { min: 10m, max: 12h }"])
      bounds = AutoInterval()
    }
    return bounds
  }

  /// A duration that may be under a second (`500ms`, `1s`, `0`), as seconds.
  mutating func seconds(_ node: YAMLNode, _ what: String) -> Double? {
    if let text = node.scalar?.trimming(.spaces) {
      if text == "0" { return 0 }
      if text.hasSuffix("ms"), let ms = Int(text.dropLast(2)), (0...3_600_000).contains(ms) {
        return Double(ms) / 1_000
      }
    }
    guard let whole = duration(node, what) else { return nil }
    guard whole <= 3_600 else {
      error("\(what) is too long", at: node.mark, notes: ["a gap between two requests to one host of at most 1h"])
      return nil
    }
    return Double(whole)
  }

  /// `user_agent`, `headers`, `netrc`, `cookies` and `proxy` among `entries` (of `settings` or a feed).
  mutating func fetchOptions(_ entries: [(key: String, keyMark: Mark, value: YAMLNode)], in context: String)
    -> FetchOptions
  {
    var options = FetchOptions()
    for entry in entries {
      switch entry.key {
      case "user_agent":
        if let agent = string(entry.value, "'user_agent'") {
          if agent.contains(where: { $0.isNewline || $0 == "\0" }) || agent.isEmpty {
            error("'user_agent' must be one line of text", at: entry.value.mark)
          } else {
            options.userAgent = agent
          }
        }
      case "headers": options.headers = headers(entry.value, in: context)
      case "netrc":
        if entry.value.scalar == "true" || entry.value.scalar == "false" {
          options.netrc = bool(entry.value, "'netrc'") == true ? "~/.netrc" : nil
        } else {
          options.netrc = string(entry.value, "'netrc'")
        }
      case "cookies": options.cookies = string(entry.value, "'cookies'")
      case "proxy":
        if let proxy = string(entry.value, "'proxy'") {
          let lower = proxy.lowercased()
          if ["http://", "https://", "socks4://", "socks4a://", "socks5://", "socks5h://"].contains(where: {
            lower.hasPrefix($0)
          }) {
            options.proxy = proxy
          } else {
            error(
              "invalid proxy '\(Self.redactedURL(proxy))'", at: entry.value.mark,
              notes: ["write it as a URL: http://host:port, socks5h://host:port"])
          }
        }
      default: break
      }
    }
    return options
  }

  /// Where a secret is read, spelled one way everywhere (a header's value, a webhook's secret):
  /// `{ file: PATH }` (its first line) or `{ env: VARIABLE }`.
  package mutating func secretSource(_ node: YAMLNode, _ what: String) -> (file: String?, environment: String?) {
    guard let source = mapping(node, what) else { return (nil, nil) }
    checkKeys(source, allowed: ["file", "env"], in: what)
    let file = value("file", in: source).flatMap { string($0, "'file'") }
    let environment = value("env", in: source).flatMap { string($0, "'env'") }
    if file == nil, environment == nil {
      error(
        "\(what) has no value", at: node.mark,
        notes: ["write where to read it: { file: ~/.config/watcher/token } or { env: VARIABLE }"])
    } else if file != nil, environment != nil {
      error("\(what) has both file and env", at: node.mark, notes: ["keep one of them"])
      return (nil, nil)
    }
    return (file, environment)
  }

  /// `headers: { Name: value, Name: { file: PATH }, Name: { env: VAR } }`.
  private mutating func headers(_ node: YAMLNode, in context: String) -> [FetchOptions.Header] {
    guard let entries = mapping(node, "'headers' of \(context)") else { return [] }
    var headers: [FetchOptions.Header] = []
    for entry in entries {
      guard FetchOptions.isValidName(entry.key) else {
        error(
          "invalid header name '\(entry.key)'", at: entry.keyMark,
          notes: ["a header name is letters, digits and - (for example Authorization, X-Api-Key)"])
        continue
      }
      if ["host", "if-none-match", "if-modified-since", "accept-encoding", "content-length"].contains(
        entry.key.lowercased())
      {
        error("watcher sets the header '\(entry.key)' itself", at: entry.keyMark)
        continue
      }
      let value: FetchOptions.Value
      if let text = entry.value.scalar, !entry.value.isNull {
        guard !text.contains(where: { $0.isNewline || $0 == "\0" }) else {
          error("the value of header '\(entry.key)' must be one line", at: entry.value.mark)
          continue
        }
        value = .text(text)
      } else {
        let (file, environment) = secretSource(entry.value, "header '\(entry.key)'")
        if let file {
          value = .file(file)
        } else if let environment {
          value = .environment(environment)
        } else {
          continue
        }
      }
      headers.append(FetchOptions.Header(name: entry.key, value: value, mark: entry.keyMark))
    }
    return headers
  }

  /// A URL with the password of its user part replaced (`http://me:***@proxy:3128`).
  package static func redactedURL(_ url: String) -> String {
    guard let scheme = url.firstRange(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else {
      return url
    }
    let user = url[scheme.upperBound..<at]
    guard let colon = user.firstIndex(of: ":") else { return url }
    return String(url[..<colon]) + ":***" + String(url[at...])
  }
}
