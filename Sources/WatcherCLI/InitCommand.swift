// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherSupport

/// `watcher init`: writes a starter config where watcher looks for one.
///
/// It never overwrites a config: `--force` replaces it and keeps the old one as `.bak`. The starter's feeds
/// are the sample feeds installed with watcher, so it works offline at once; it passes `watcher check`.
struct InitCommand: Command {
  let name = "init"
  let summary = "write a starter config where watcher looks for one (never overwrites; --force keeps a .bak)"
  let positionals = Positionals.none()
  let options = [
    Options.config,
    Options.force.described("replace an existing config (the old one is kept as FILE.bak)"),
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let path = ConfigLocator.candidates(explicit: arguments.value(Options.config), environment: terminal.environment)[0]
    if FileManager.default.fileExists(atPath: path), !arguments.has(Options.force) {
      terminal.error("error: \(path) already exists; watcher init never overwrites a config")
      terminal.error("note: 'watcher init --force' replaces it and keeps the old one as \(path).bak")
      return .failure
    }
    let samples = InstalledFiles.samples()
    let text = StarterConfig.text(samples: samples)
    do {
      _ = try ConfigLoader.parse(text, path: path)
      let backup = try ConfigEditor.write(text, to: path)
      terminal.print("wrote \(path)" + (backup.map { " (the old config is \($0))" } ?? ""))
    } catch let error as ConfigError {
      terminal.errors(Array(error.rendered.utf8))
      return .failure
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    if samples == nil {
      terminal.error(
        "note: the sample feeds are not installed next to this watcher, so the config has no feed yet")
    }
    terminal.print(
      """
      next:
        watcher check                  validate it (after each edit)
        watcher test-rules --explain   what the rules do to each item, and why
        watcher add URL                subscribe to a feed (a site's page URL works too)
        watcher poll                   one pass; or run it as a service:
        systemctl --user enable --now watcher.service
      """)
    return .success
  }
}

/// Files installed with watcher: `make install` and the Debian package put them in `PREFIX/share/watcher`,
/// beside `PREFIX/bin/watcher`.
enum InstalledFiles {
  /// The directory of the sample feeds: `share/watcher/samples` beside the binary's `bin/`, or, for a
  /// binary built in a checkout, the checkout's `samples/`; `nil` when there is neither.
  static func samples(executable: String = CommandLine.executablePath) -> String? {
    find("share/watcher/samples", checkout: "samples", executable: executable) {
      FileManager.default.fileExists(atPath: $0.appendingPathComponent("swift-blog.atom").path)
    }
  }

  /// An installed document (`share/doc/watcher/NAME` beside the binary's `bin/`), or for a binary built in
  /// a checkout the checkout's `docs/NAME`; `nil` when there is neither.
  static func document(_ name: String, executable: String = CommandLine.executablePath) -> String? {
    find("share/doc/watcher/" + name, checkout: "docs/" + name, executable: executable) {
      FileManager.default.fileExists(atPath: $0.path)
    }
  }

  /// `installed` under the prefix of the binary's `bin/`, else `checkout` in the checkout that built it
  /// (`.build/<config>/watcher`, `.build/<triple>/<config>/watcher`), whichever `exists`.
  private static func find(
    _ installed: String, checkout: String, executable: String, exists: (URL) -> Bool
  ) -> String? {
    let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
    var directory = binary.deletingLastPathComponent()
    let prefixed = directory.deletingLastPathComponent().appendingPathComponent(installed)
    if exists(prefixed) { return prefixed.path }
    for _ in 0..<4 {
      directory = directory.deletingLastPathComponent()
      let candidate = directory.appendingPathComponent(checkout)
      if exists(candidate),
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path)
      {
        return candidate.path
      }
    }
    return nil
  }
}

extension CommandLine {
  /// This process's executable, as the kernel knows it.
  static var executablePath: String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? arguments[0]
  }
}

/// The config `watcher init` writes.
enum StarterConfig {
  /// The text, with the sample feeds in `samples` (none when `nil`).
  static func text(samples: String?) -> String {
    let home = HomePath.home()
    /// A path under the home directory is written with `~`, so the config reads the same for its owner.
    func shown(_ path: String) -> String {
      path.hasPrefix(home + "/") ? "~" + path.dropFirst(home.count) : path
    }
    let feeds: String
    if let samples {
      feeds = """
        feeds:
          # Two sample feeds installed with watcher, so this works offline. Replace them with your own:
          # 'watcher add URL' adds a feed (a site's page URL works too), 'watcher remove NAME' removes one.
          - url: \(ConfigEditor.quoted(shown(samples + "/swift-blog.atom")))
            name: swift
            tags: [lang]
          - url: \(ConfigEditor.quoted(shown(samples + "/security-advisories.rss")))
            name: advisories
            tags: [security]

        """
    } else {
      feeds = """
        feeds: []
          # 'watcher add URL' adds a feed (a site's page URL works too), for example:
          #   watcher add https://www.swift.org/atom.xml --tag lang

        """
    }
    return """
      # watcher config, written by 'watcher init'. The language: man watcher-rules.
      # Check it with 'watcher check'; see what the rules do with 'watcher test-rules --explain'.

      settings:                         # all optional; these are the defaults
        interval: 15m                   # how often each feed is polled
        first_poll: silent              # a new feed's current items are recorded, not acted on
        max_age: 7d                     # older items are recorded, never acted on
        notify:
          urgency: normal
          max_per_poll: 5               # more from one feed in one poll become one summary

      \(feeds)
      rules:                            # every new item goes through them in order
        - name: no-ads
          match: { title: [sponsored, "[ad]"] }
          mute: true                    # no notification, no hook
          stop: true

        - name: security                # in feeds tagged security: not every CVE mentioned in the news
          match: { all: [{ tag: { equals: security } }, { any: { words: [CVE, vulnerability, exploit] } }] }
          notify: { urgency: critical }

        - name: releases
          match: { title: { regex: '\\brelease[sd]?\\b' } }
          notify: true

        # Learning what matters: give 👍 and 👎 ('watcher like FEED ITEM', 'watcher dislike FEED ITEM', or
        # the buttons that 'learn: true' under settings.notify puts on notifications), then let the learned
        # score route the rest.
        # High scores notify, low ones wait in a digest; never mute on a score (check warns).
        # - name: worth-a-look
        #   match: { score: { above: 0.7 } }
        #   notify: true
        # - name: later
        #   match: { score: { below: 0.7 } }
        #   digest: { every: 1d, at: "18:00" }

        # A hook gets the item in WATCHER_* variables and as JSON on stdin; this one keeps a list:
        # - name: archive
        #   match: { tag: { equals: security } }
        #   hook: 'printf "%s\\t%s\\n" "$WATCHER_TITLE" "$WATCHER_LINK" >> ~/security.tsv'

      """
  }
}
