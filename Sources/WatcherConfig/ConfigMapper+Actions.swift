// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// The actions a rule (or a feed) asks for, checked as they are read.
extension ConfigMapper {
  /// `buttons: [{ label: Archive, hook: COMMAND }, …]` (at most 3: servers show few).
  mutating func buttons(_ node: YAMLNode, in context: String) -> [NotifyButton] {
    guard let elements = sequence(node, "'buttons' of \(context)") else { return [] }
    var buttons: [NotifyButton] = []
    for (index, element) in elements.enumerated() {
      let place = "buttons[\(index + 1)] of \(context)"
      guard let entries = mapping(element, place) else { continue }
      checkKeys(entries, allowed: ["label", "hook"], in: place)
      guard let label = value("label", in: entries).flatMap({ string($0, "'label'") }), !label.isEmpty,
        let hookNode = value("hook", in: entries), let hook = hookAction(hookNode, in: place)
      else {
        error(
          "\(place) needs a 'label' and a 'hook'", at: element.mark,
          notes: ["for example { label: Archive, hook: 'echo \"$WATCHER_LINK\" >> ~/archive' }"])
        continue
      }
      if ["open", "snooze feed", "open all"].contains(label.lowercased())
        || buttons.contains(where: { $0.label == label })
      {
        error("\(place): a button named '\(label)' is there already", at: element.mark)
        continue
      }
      buttons.append(NotifyButton(label: label, hook: hook))
    }
    if buttons.count > 3 {
      error(
        "\(context) has \(buttons.count) buttons", at: node.mark, notes: ["at most 3: notification servers show few"])
      return Array(buttons.prefix(3))
    }
    return buttons
  }

  /// `apprise: URL`, `apprise: [URL, …]` or `apprise: { urls: […], file: PATH, title: T, body: T, urgency: U }`.
  package mutating func appriseAction(_ node: YAMLNode, in context: String) -> AppriseAction? {
    let what = "'apprise' in \(context)"
    var action = AppriseAction(urls: [], mark: node.mark)
    if node.scalar != nil {
      guard let url = string(node, what) else { return nil }
      action.urls = [url]
    } else if case .sequence = node.kind {
      action.urls = stringList(node, what) ?? []
    } else {
      guard let entries = mapping(node, what) else { return nil }
      checkKeys(entries, allowed: ["urls", "url", "file", "title", "body", "urgency"], in: what)
      for entry in entries {
        switch entry.key {
        case "urls": action.urls += stringList(entry.value, "'urls'") ?? []
        case "url": action.urls += string(entry.value, "'url'").map { [$0] } ?? []
        case "file": action.file = string(entry.value, "'file'")
        case "title": action.message.summary = template(entry.value, "'title'")
        case "body": action.message.body = template(entry.value, "'body'")
        case "urgency": action.message.urgency = urgency(entry.value)
        default: break
        }
      }
    }
    for url in action.urls where !url.contains("://") {
      error(
        "\(what): '\(url)' is not an Apprise URL", at: node.mark,
        notes: ["Apprise URLs look like ntfy://topic, tgram://TOKEN/CHAT_ID or mailto://user:pass@example.org"])
    }
    guard !action.urls.isEmpty || action.file != nil else {
      error(
        "\(what) names no URL", at: node.mark,
        notes: ["apprise: { file: ~/.config/watcher/apprise.txt } keeps the URLs (and their tokens) out of the config"])
      return nil
    }
    return action
  }

  /// `webhook: URL` or `webhook: { url: URL, secret: { file: PATH } | { env: NAME }, timeout: 10s }` (the older
  /// `secret_file:` and `secret_env:` read too, with a warning).
  package mutating func webhookAction(_ node: YAMLNode, in context: String) -> WebhookAction? {
    let what = "'webhook' in \(context)"
    var action: WebhookAction
    if node.scalar != nil {
      guard let url = string(node, what) else { return nil }
      action = WebhookAction(url: url, mark: node.mark)
    } else {
      guard let entries = mapping(node, what) else { return nil }
      checkKeys(entries, allowed: ["url", "secret", "secret_file", "secret_env", "timeout"], in: what)
      action = WebhookAction(url: "", mark: node.mark)
      var secrets: [String] = []
      for entry in entries {
        switch entry.key {
        case "url": action.url = string(entry.value, "'url'") ?? ""
        case "secret":
          secrets.append(entry.key)
          (action.secretFile, action.secretEnv) = secretSource(entry.value, "'secret' of \(what)")
        case "secret_file", "secret_env":
          // The spelling before secrets were read one way everywhere (`{ file: PATH }`, as headers): still read.
          secrets.append(entry.key)
          let value = string(entry.value, "'\(entry.key)'")
          if entry.key == "secret_file" { action.secretFile = value } else { action.secretEnv = value }
          let new = entry.key == "secret_file" ? "file" : "env"
          warning(
            "'\(entry.key)' is the old spelling", at: entry.keyMark,
            notes: ["write secret: { \(new): \(value ?? "…") }, as a header read from a file or the environment"])
        case "timeout": action.timeout = duration(entry.value, "'timeout'", positive: true).map { min($0, 600) }
        default: break
        }
      }
      if secrets.count > 1 {
        error(
          "\(what) has both \(secrets[0]) and \(secrets[1])", at: node.mark,
          notes: ["keep one: secret: { file: PATH } or secret: { env: VARIABLE }"])
      }
    }
    guard FeedLocation.isHTTP(action.url) else {
      error(
        "\(what) needs an http or https URL, not '\(action.url)'", at: node.mark,
        notes: ["webhook: { url: https://example.org/hook, secret: { file: ~/.config/watcher/webhook.secret } }"])
      return nil
    }
    return action
  }

  /// `digest: { every: 1d, at: "08:00" }` (`at` optional).
  package mutating func digestAction(_ node: YAMLNode, in context: String) -> DigestAction? {
    guard let entries = mapping(node, "'digest' in \(context)") else { return nil }
    checkKeys(entries, allowed: Self.digestKeys, in: "'digest' in \(context)")
    var every: Int?
    var at: Int?
    for entry in entries {
      switch entry.key {
      case "every": every = duration(entry.value, "'every'", positive: true)
      case "at":
        guard let text = string(entry.value, "'at'") else { break }
        if let minutes = QuietHours.timeOfDay(text.trimming(.spaces)) {
          at = minutes
        } else {
          error(
            "invalid time '\(text)' for 'at'", at: entry.value.mark, notes: ["write a local time as \"08:00\" (HH:MM)"])
        }
      default: break
      }
    }
    guard let every else {
      error(
        "'digest' in \(context) has no 'every'", at: node.mark,
        notes: ["say how often it goes out: digest: { every: 1d, at: \"08:00\" } or digest: { every: 1h }"])
      return nil
    }
    return DigestAction(every: every, at: at)
  }

  package mutating func notifyAction(_ node: YAMLNode, in context: String) -> NotifyAction? {
    if case .scalar = node.kind {
      return bool(node, "'notify'") == true ? NotifyAction() : nil
    }
    guard let entries = mapping(node, "'notify' in \(context)") else { return nil }
    checkKeys(entries, allowed: Self.notifyKeys, in: "'notify' in \(context)")
    var action = NotifyAction()
    for entry in entries {
      switch entry.key {
      case "summary": action.summary = template(entry.value, "'summary'")
      case "body": action.body = template(entry.value, "'body'")
      case "urgency": action.urgency = urgency(entry.value)
      case "expire": action.expire = duration(entry.value, "'expire'")
      case "icon": action.icon = string(entry.value, "'icon'")
      default: break
      }
    }
    return action
  }

  package mutating func hookAction(_ node: YAMLNode, in context: String) -> HookAction? {
    if case .scalar = node.kind {
      guard let command = string(node, "'hook'") else { return nil }
      guard !command.trimming(.spaces).isEmpty else {
        error("'hook' in \(context) is empty", at: node.mark, notes: ["give the command to run"])
        return nil
      }
      return HookAction(command: command, mark: node.mark)
    }
    guard let entries = mapping(node, "'hook' in \(context)") else { return nil }
    checkKeys(entries, allowed: Self.hookKeys, in: "'hook' in \(context)")
    var action: HookAction
    if let runNode = value("run", in: entries) {
      if value("command", in: entries) != nil {
        error(
          "'hook' in \(context) has both 'command' and 'run'", at: node.mark,
          notes: ["'command' runs through /bin/sh; 'run' runs a program directly: choose one"])
        return nil
      }
      // `run: "notify-send {title}"`: one string is one program name, which is not what was meant.
      if case .scalar = runNode.kind, let text = runNode.scalar, text.contains(where: \.isWhitespace) {
        let words = text.split(whereSeparator: \.isWhitespace).map { word in
          word.contains("{") || word.contains(":") ? "\"\(word)\"" : String(word)
        }
        error(
          "'run' takes a list: the program, then each argument", at: runNode.mark,
          notes: [
            "write run: [\(words.joined(separator: ", "))]: each item is one whole argument, and no shell reads it"
          ])
        return nil
      }
      guard let words = stringList(runNode, "'run'") else { return nil }
      // Where each word was written, for the messages.
      func wordNode(_ offset: Int) -> YAMLNode {
        if case .sequence(let nodes) = runNode.kind, offset < nodes.count { return nodes[offset] }
        return runNode
      }
      var templates: [Template] = []
      for (offset, word) in words.enumerated() {
        guard let parsed = template(wordNode(offset), "'run'") else { return nil }
        if offset == 0, word.contains("{") {
          error(
            "the program in 'run' cannot be a template", at: wordNode(offset).mark,
            notes: ["item fields may fill the arguments, never the program"])
          return nil
        }
        templates.append(parsed)
      }
      checkProgram(words[0], at: runNode)
      // Item text must never be code: not even in the code argument of a shell or an interpreter.
      if let (code, interpreter) = Self.codeArgument(words),
        let field = templates[code].parts.lazy.compactMap({ if case .field(let f) = $0 { f } else { nil } }).first
      {
        error(
          "'{\(field.rawValue)}' in 'run' would be run as code by \(interpreter)", at: wordNode(code).mark,
          notes: [
            "a title such as $(rm -rf ~) would then run; item fields may only be arguments of their own",
            "pass it as one: run: [sh, -c, 'notify-send \"$1\"', sh, \"{\(field.rawValue)}\"]",
          ])
        return nil
      }
      action = HookAction(command: words.joined(separator: " "), run: templates)
    } else {
      guard let commandNode = value("command", in: entries), let command = string(commandNode, "'command'") else {
        if value("command", in: entries) == nil {
          error(
            "'hook' in \(context) has no 'command' or 'run'", at: node.mark,
            notes: ["hook: { command: ~/bin/archive, timeout: 30s }", "hook: { run: [notify-send, \"{title}\"] }"])
        }
        return nil
      }
      action = HookAction(command: command, mark: commandNode.mark)
    }
    if let timeout = value("timeout", in: entries) { action.timeout = duration(timeout, "'timeout'", positive: true) }
    return action
  }

  /// Where a `run:` command line hands an interpreter code to run, and the interpreter's name.
  ///
  /// The operand after a shell's `-c` (`sh`, `bash`, `dash`, `zsh`, `ksh`, `mksh`, `ash`, `fish`; other
  /// options around it, as in `-ec`), or the argument after python's `-c` or perl's, ruby's or node's `-e`;
  /// through `env` too. `nil` when there is none.
  static func codeArgument(_ words: [String]) -> (index: Int, interpreter: String)? {
    func name(_ word: String) -> String { word.split(separator: "/").last.map(String.init) ?? word }
    var at = 0
    // `env [-OPTION…] [NAME=value…] PROGRAM …`
    if name(words[0]) == "env" {
      at = 1
      while at < words.count, words[at].hasPrefix("-") || words[at].contains("=") { at += 1 }
    }
    guard at < words.count else { return nil }
    let program = name(words[at])
    let rest = words.indices.dropFirst(at + 1)
    if ["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish"].contains(program) {
      // Options (`-e`, `+x`, `-ec`, `-o NAME`), then operands; with a `c` among the options, the first
      // operand is the code.
      var code = false
      var index = rest.startIndex
      while index < words.endIndex, let first = words[index].first, first == "-" || first == "+" {
        let word = words[index]
        if word == "--" || word == "-" {
          index += 1
          break
        }
        if !word.hasPrefix("--"), word.dropFirst().contains("c") { code = true }
        // `-o NAME` and `+o NAME` take the next word.
        index += word.dropFirst().last == "o" ? 2 : 1
      }
      return code && index < words.endIndex ? (index, program) : nil
    }
    let flags: Set<String> =
      program.hasPrefix("python")
      ? ["-c"] : ["perl", "ruby", "node", "nodejs"].contains(program) ? ["-e", "-E", "--eval"] : []
    guard let flag = rest.first(where: { flags.contains(words[$0]) }), flag + 1 < words.endIndex else { return nil }
    return (flag + 1, program)
  }

  /// Reports a `run:` program that cannot be found: an absolute (or `~`) path that is not an executable
  /// file, or a name found on no directory of `PATH`.
  mutating func checkProgram(_ program: String, at node: YAMLNode) {
    let expanded = HomePath.expand(program)
    if expanded.contains("/") {
      guard let problem = HookProgram.problem(at: expanded) else { return }
      error(
        "the program '\(program)' in 'run' is not an executable file", at: node.mark,
        notes: [problem == .missing ? "no file at \(expanded)" : "make it executable: chmod +x \(expanded)"])
      return
    }
    guard HookProgram.resolve(program) == nil else { return }
    error(
      "the program '\(program)' in 'run' is not on PATH", at: node.mark,
      notes: ["give its full path, or install it"])
  }

  package mutating func template(_ node: YAMLNode, _ what: String) -> Template? {
    guard let text = string(node, what) else { return nil }
    do {
      return try Template(text)
    } catch {
      let column = node.mark.column + error.offset + (quoted(node) ? 1 : 0)
      let mark = Mark(line: node.mark.line, column: column)
      if error.unclosed {
        self.error("unclosed '{' in \(what)", at: mark, notes: ["write '{{' for a literal brace"])
      } else {
        var notes: [String] = []
        if let suggestion = Suggestion.closest(to: error.name, in: Template.Field.allCases.map(\.rawValue)) {
          notes.append("did you mean '{\(suggestion)}'?")
        }
        notes.append("fields: " + Template.Field.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", "))
        self.error("unknown template field '{\(error.name)}' in \(what)", at: mark, notes: notes)
      }
      return nil
    }
  }
}
