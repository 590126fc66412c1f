// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig

/// `interval: auto`, `auto_interval`, `host_gap` and how a feed is requested, as the config says them.
@Suite("Polling and request settings in the config")
struct FetchConfigTests {
  func errors(_ yaml: String) -> String {
    do {
      _ = try ConfigLoader.parse(yaml, path: "c.yaml")
      return ""
    } catch {
      return error.rendered
    }
  }

  @Test("interval: auto per feed or in settings; a feed's own fixed interval wins over settings' auto")
  func autoIntervals() throws {
    let config = try ConfigLoader.parse(
      """
      settings: { interval: auto, auto_interval: { min: 5m, max: 1d }, host_gap: 500ms }
      feeds:
        - { url: https://a.example/f, name: a }
        - { url: https://b.example/f, name: b, interval: 30m }
        - { url: https://c.example/f, name: c, interval: auto }
      """, path: "c.yaml")
    #expect(config.settings.autoBounds == AutoInterval(min: 300, max: 86_400) && config.settings.hostGap == 0.5)
    #expect(config.feeds.map { $0.isAuto(config.settings) } == [true, false, true])
    let fixed = try ConfigLoader.parse(
      "feeds: [{ url: https://a.example/f, interval: auto }, { url: https://b.example/f }]", path: "c.yaml")
    #expect(fixed.feeds.map { $0.isAuto(fixed.settings) } == [true, false] && fixed.settings.hostGap == nil)
  }

  @Test("bad bounds, gaps, header names and values, and proxies are errors at their place")
  func mistakes() {
    #expect(
      errors("settings: { auto_interval: { min: 2h, max: 1h } }\nfeeds: []").contains("'min' is longer than 'max'"))
    #expect(errors("settings: { host_gap: 2h }\nfeeds: []").contains("'host_gap' is too long"))
    #expect(errors("settings: { host_gap: soon }\nfeeds: []").contains("invalid duration 'soon' for 'host_gap'"))
    let header = errors("feeds: [{ url: https://a.example/f, headers: { \"Bad Name\": x, Host: y, X-T: {} } }]")
    #expect(header.contains("invalid header name 'Bad Name'"), "\(header)")
    #expect(header.contains("watcher sets the header 'Host' itself"))
    #expect(header.contains("header 'X-T' has no value") && header.contains("{ file: ~/.config/watcher/token }"))
    let proxy = errors("feeds: [{ url: https://a.example/f, proxy: \"me:pw@proxy:3128\" }]")
    #expect(proxy.contains("invalid proxy 'me:pw@proxy:3128'") || proxy.contains("invalid proxy"), "\(proxy)")
    let withPassword = errors("feeds: [{ url: https://a.example/f, proxy: \"ftp://me:pw@proxy:3128\" }]")
    #expect(withPassword.contains("invalid proxy 'ftp://me:***@proxy:3128'") && !withPassword.contains("pw@"))
    #expect(errors("feeds: [{ url: https://a.example/f, user_agent: \"\" }]").contains("'user_agent' must be one line"))
  }

  @Test("fetch options: a feed's own win over the settings', header by header")
  func merged() throws {
    let config = try ConfigLoader.parse(
      """
      settings: { user_agent: a/1, headers: { Accept-Language: en, X-Key: { env: K } }, netrc: true }
      feeds:
        - { url: https://a.example/f, headers: { x-key: { file: ~/k } }, user_agent: b/2 }
      """, path: "c.yaml")
    let options = config.feeds[0].fetch.over(config.settings.fetch)
    #expect(options.userAgent == "b/2" && options.netrc == "~/.netrc")
    #expect(options.headers.map(\.name) == ["Accept-Language", "x-key"])
    #expect(options.headers[1].value == .file("~/k"))
  }

  @Test("the .bak redacts inline credentials, keeps the rest line for line")
  func redaction() {
    let text = """
      settings:
        headers:
          Authorization: Bearer x1
          Accept: text/xml
      feeds:
        - { url: https://b.example/f, headers: { Authorization: t0k, X-A: { file: ~/a } }, name: b }
        - url: https://a.example/f
          headers: { Cookie: "s=1", X-Mode: fast }
          proxy: http://u:p4ss@proxy:8080
      """
    let redacted = ConfigEditor.redactedForBackup(text)
    #expect(redacted.split(separator: "\n").count == text.split(separator: "\n").count)
    #expect(!redacted.contains("x1") && !redacted.contains("s=1") && !redacted.contains("p4ss"), "\(redacted)")
    #expect(redacted.contains("Accept: text/xml") && redacted.contains("X-Mode: fast"))
    #expect(
      redacted.contains(
        "- { url: https://b.example/f, headers: { Authorization: \"<redacted>\", X-A: { file: ~/a } }, name: b }"),
      "\(redacted)")
  }
}
