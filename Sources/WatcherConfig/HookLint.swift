// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// The mistakes in a shell hook that `watcher check` can see without running it (the shell's own syntax
/// check is the CLI's, which runs `sh -n`): a `$WATCHER_…` variable that does not exist, a `{field}`
/// template (not expanded in a shell command), and a script path that is not an executable file.
public enum HookLint {
  /// The diagnostics for one shell hook; `environment` is what hooks inherit (a `$WATCHER_…` set there is
  /// the user's own).
  public static func check(_ hook: HookAction, environment: [String: String] = [:]) -> [Diagnostic] {
    guard hook.run == nil else { return [] }
    var found: [Diagnostic] = []
    let command = hook.command
    var unknown: [String] = []
    for name in variables(in: command)
    where !HookAction.variableNames.contains(name) && environment[name] == nil && !unknown.contains(name) {
      unknown.append(name)
    }
    for name in unknown {
      // A near miss of a real name is a typo (an error); another name may come from the daemon's own
      // environment (a warning).
      let suggestion = Suggestion.closest(to: name, in: HookAction.variableNames)
      var notes = suggestion.map { ["did you mean '$\($0)'?"] } ?? ["unless your environment sets it, it is empty"]
      notes.append("hooks get " + HookAction.variableNames.map { "$\($0)" }.joined(separator: ", "))
      found.append(
        Diagnostic(
          suggestion == nil ? .warning : .error, message: "the hook uses '$\(name)', which watcher does not set",
          mark: hook.mark, notes: notes))
    }
    if let field = Template.Field.allCases.first(where: { command.contains("{\($0.rawValue)}") }) {
      found.append(
        Diagnostic(
          message: "'{\(field.rawValue)}' is not expanded in a shell command", mark: hook.mark,
          notes: [
            "templates fill notifications, never shell commands (that would run item text as code)",
            "use \"$WATCHER_\(field.rawValue.uppercased())\" (quoted), or hook: { run: [PROGRAM, \"{\(field.rawValue)}\"] }",
          ]))
    }
    found += quoting(command, mark: hook.mark)
    // A script named by path as the first word: it must exist and be executable.
    let first =
      command.trimming(.spaces).split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
    if first.hasPrefix("/") || first.hasPrefix("~/") {
      let path = HomePath.expand(first)
      switch HookProgram.problem(at: path) {
      case .missing?:
        found.append(
          Diagnostic(
            message: "the hook's script \(path) does not exist", mark: hook.mark,
            notes: ["check the path; ~ is your home directory"]))
      case .notExecutable?:
        found.append(
          Diagnostic(
            message: "the hook's script \(path) is not executable", mark: hook.mark, notes: ["chmod +x \(path)"]))
      case nil: break
      }
    }
    return found
  }

  /// Where a `$WATCHER_…` variable stands in a shell command.
  enum Quoting: Equatable {
    /// In single quotes: not expanded; the literal text `$WATCHER_TITLE` is used.
    case single
    /// In double quotes: one argument, as it should be.
    case double
    /// Unquoted: split at spaces and expanded as a glob (a title with `*` becomes file names).
    case bare
    /// The value of an assignment (`t=$WATCHER_TITLE`), which the shell neither splits nor globs.
    case assigned
  }

  /// Each `$WATCHER_…` variable of `command` and how it is quoted, in order (backslash escapes, `'…'` and
  /// `"…"` as the shell reads them).
  static func quotings(in command: String) -> [(name: String, quoting: Quoting)] {
    var found: [(String, Quoting)] = []
    let characters = Array(command)
    var index = 0
    var single = false
    var double = false
    var wordStart = 0
    while index < characters.count {
      let c = characters[index]
      if single {
        if c == "'" { single = false }
      } else if c == "\\" {
        index += 1
      } else if c == "'", !double {
        single = true
      } else if c == "\"" {
        double.toggle()
      } else if !double, c == " " || c == "\t" || c == ";" || c == "|" || c == "&" || c == "(" || c == "\n" {
        wordStart = index + 1
      }
      if c == "$", !(index > 0 && characters[index - 1] == "\\") {
        var start = index + 1
        if start < characters.count, characters[start] == "{" { start += 1 }
        var end = start
        while end < characters.count, characters[end].isASCII,
          characters[end].isLetter || characters[end].isNumber || characters[end] == "_"
        {
          end += 1
        }
        let name = String(characters[start..<end])
        if name.hasPrefix("WATCHER_") {
          // `x=$WATCHER_TITLE`: a word that is NAME= before the variable.
          let word = String(characters[wordStart..<index])
          let assigned =
            !double && !single && word.hasSuffix("=")
            && word.dropLast().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") } && word.count > 1
          found.append((name, single ? .single : double ? .double : assigned ? .assigned : .bare))
        }
      }
      index += 1
    }
    return found
  }

  /// Warnings for `$WATCHER_…` variables in single quotes (not expanded) or unquoted (split and globbed).
  static func quoting(_ command: String, mark: Mark?) -> [Diagnostic] {
    var found: [Diagnostic] = []
    let all = quotings(in: command)
    if let name = all.first(where: { $0.quoting == .single })?.name {
      found.append(
        Diagnostic(
          .warning, message: "'$\(name)' is in single quotes: the shell does not expand it", mark: mark,
          notes: [
            "the hook gets the literal text $\(name); use double quotes: \"$\(name)\" (in YAML, write the whole "
              + "command in single quotes: hook: 'echo \"$\(name)\" >> file')"
          ]))
    }
    if let name = all.first(where: { $0.quoting == .bare })?.name {
      found.append(
        Diagnostic(
          .warning, message: "'$\(name)' is not quoted: the shell splits it at spaces and expands * and ? in it",
          mark: mark,
          notes: [
            "a title with a * becomes a list of file names; write \"$\(name)\" (in YAML, put the whole command in "
              + "single quotes: hook: 'echo \"$\(name)\" >> file')"
          ]))
    }
    return found
  }

  /// The names after `$` or `${` that start with `WATCHER_`, in order.
  static func variables(in command: String) -> [String] {
    var names: [String] = []
    var rest = Substring(command)
    while let dollar = rest.firstIndex(of: "$") {
      var start = rest.index(after: dollar)
      if start < rest.endIndex, rest[start] == "{" { start = rest.index(after: start) }
      let name = rest[start...].prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
      if name.hasPrefix("WATCHER_") { names.append(String(name)) }
      rest = rest[rest.index(after: dollar)...]
    }
    return names
  }
}

/// What `watcher check` can see of an `apprise:` action without sending anything: the `apprise` command
/// missing, a URL with its token written in the config, a URL file that is missing or readable by others.
public enum AppriseLint {
  public static func check(_ action: AppriseAction, environment: [String: String]) -> [Diagnostic] {
    var found: [Diagnostic] = []
    var search = environment
    search["PATH"] = search["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    if HookProgram.resolve("apprise", environment: search) == nil {
      found.append(
        Diagnostic(
          message: "'apprise' sends through the apprise command, which is not installed (not on PATH)",
          mark: action.mark, notes: ["Debian and Ubuntu: sudo apt install apprise; elsewhere: pipx install apprise"]))
    }
    for url in action.urls where carriesSecret(url) {
      let scheme = url.prefix { $0 != ":" }
      found.append(
        Diagnostic(
          .warning, message: "the Apprise URL '\(scheme)://…' in the config carries its token or password",
          mark: action.mark,
          notes: [
            "keep such URLs in a file only you can read: apprise: { file: ~/.config/watcher/apprise.txt } (chmod 600)"
          ]))
    }
    if let file = action.file {
      found += SecretFileLint.check(
        file, named: "the Apprise URL file", carrying: ", and its URLs carry tokens",
        format: "one URL per line (or Apprise's YAML config format)", mark: action.mark, environment: environment)
    }
    return found
  }

  /// Whether a URL holds what looks like a credential: a user or password before an `@`, or a path or
  /// host part of 16 or more letters and digits (bot tokens, webhook keys).
  static func carriesSecret(_ url: String) -> Bool {
    guard let range = url.firstRange(of: "://") else { return false }
    let rest = url[range.upperBound...]
    if rest.prefix(while: { $0 != "/" }).contains("@") { return true }
    let parts = rest.split(whereSeparator: { "/:?&=.".contains($0) })
    return parts.contains { part in
      part.count >= 16 && part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    }
  }
}

/// What `watcher check` can see of a `webhook:`: a secret file that is missing or readable by others.
public enum WebhookLint {
  public static func check(_ action: WebhookAction, environment: [String: String]) -> [Diagnostic] {
    guard let file = action.secretFile else { return [] }
    return SecretFileLint.check(
      file, named: "the webhook's secret file", format: "write the secret on its first line, then chmod 600 \(file)",
      mark: action.mark, environment: environment)
  }
}

/// A file of secrets named in the config (Apprise URLs, a webhook's secret): missing is an error, readable
/// by group or others a warning.
enum SecretFileLint {
  static func check(
    _ file: String, named name: String, carrying: String = "", format: String, mark: Mark?,
    environment: [String: String]
  ) -> [Diagnostic] {
    var info = stat()
    guard stat(HomePath.expand(file, environment: environment), &info) == 0 else {
      return [Diagnostic(message: "\(name) \(file) does not exist", mark: mark, notes: [format])]
    }
    if let problem = FileSafety.trustedFileProblem(HomePath.expand(file, environment: environment)) {
      return [Diagnostic(message: "\(name) is not safe to use: \(problem)", mark: mark)]
    }
    guard info.st_mode & 0o044 != 0 else { return [] }
    return [
      Diagnostic(
        .warning, message: "\(name) \(file) can be read by other users\(carrying)", mark: mark,
        notes: ["chmod 600 \(file)"])
    ]
  }
}

/// What `watcher check` can see of a feed's fetch options: a credential written in the config, a header
/// file, netrc or cookie file that is missing or readable by others, a header variable that is not set.
///
/// Values are never part of a message: only the header's name and where its value comes from.
public enum FetchLint {
  public static func check(_ feed: FeedConfig?, settings: Settings, environment: [String: String]) -> [Diagnostic] {
    let options = feed?.fetch ?? settings.fetch
    let mark = feed?.mark
    var found: [Diagnostic] = []
    for header in options.headers {
      switch header.value {
      case .text:
        guard FetchOptions.isSecret(header.name) else { continue }
        found.append(
          Diagnostic(
            .warning, message: "header '\(header.name)' holds a credential written in the config",
            mark: header.mark ?? mark,
            notes: [
              "keep it in a file only you can read: \(header.name): { file: ~/.config/watcher/\(header.name.lowercased()) } "
                + "(or { env: VARIABLE })"
            ]))
      case .file(let path):
        found += SecretFileLint.check(
          path, named: "the file of header '\(header.name)'", format: "write the value on its first line",
          mark: header.mark ?? mark, environment: environment)
      case .environment(let name):
        if environment[name]?.isEmpty ?? true {
          found.append(
            Diagnostic(
              .warning, message: "header '\(header.name)': the environment variable \(name) is not set here",
              mark: header.mark ?? mark,
              notes: ["the poll reads it from its own environment (the daemon's: systemctl --user set-environment)"]))
        }
      }
    }
    if let netrc = options.netrc {
      found += SecretFileLint.check(
        netrc, named: "the netrc file", carrying: ", and it holds passwords",
        format: "machine HOST login USER password PASSWORD", mark: mark, environment: environment)
    }
    if let cookies = options.cookies {
      found += SecretFileLint.check(
        cookies, named: "the cookie file", carrying: ", and cookies log in as you",
        format: "a cookies.txt in Netscape format (browser extensions and curl -c write one)", mark: mark,
        environment: environment)
    }
    if let proxy = options.proxy, ConfigMapper.redactedURL(proxy) != proxy {
      found.append(
        Diagnostic(
          .warning, message: "the proxy URL holds a password written in the config", mark: mark,
          notes: ["keep it in ~/.netrc (machine PROXYHOST) or the https_proxy variable instead"]))
    }
    return found
  }
}
