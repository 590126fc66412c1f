// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherRegex
import WatcherSupport

/// The rules: each rule's scope, match, actions and names, checked as they are read.
extension ConfigMapper {
  // MARK: - Rules

  package mutating func rules(_ node: YAMLNode, feeds: [FeedConfig]) -> [Rule] {
    guard let elements = sequence(node, "'rules'") else { return [] }
    let feedNames = feeds.map(\.name)
    let feedTags = Array(Set(feeds.flatMap(\.tags))).sorted()
    var rules: [Rule] = []
    var names: [String: Mark] = [:]
    for (index, element) in elements.enumerated() {
      var context = "rules[\(index + 1)]"
      guard let entries = mapping(element, context) else { continue }
      // A feed entry pasted under rules: say so once, instead of "unknown key", "no match", "does nothing".
      if let urlEntry = entries.first(where: { $0.key == "url" }), value("match", in: entries) == nil {
        error(
          "\(context) looks like a feed (it has a 'url'), not a rule", at: urlEntry.keyMark,
          notes: ["feeds belong under 'feeds:'; a rule has a match and actions"])
        continue
      }
      var name = "rule \(index + 1)"
      if let nameNode = value("name", in: entries), let given = string(nameNode, "'name'") {
        name = given
        context = "rule '\(given)'"
        if let first = names[given] {
          error(
            "duplicate rule name '\(given)'", at: nameNode.mark,
            notes: ["the first rule with this name is at line \(first.line)"])
        }
        names[given] = nameNode.mark
      }
      checkKeys(entries, allowed: Self.ruleKeys, in: context)
      let scope = ruleScope(entries, in: context, feedNames: feedNames, feedTags: feedTags)
      var condition: Condition?
      // A rule scoped by `feeds:` may leave out `match` (or give `match: {}`): it is for every item of those
      // feeds. Without a scope that would be every item of every feed, which is a feed's own notify/hook.
      let matchNode = value("match", in: entries)
      let everyItem = matchNode.map {
        if case .mapping(let pairs) = $0.kind { return pairs.isEmpty } else { return false }
      }
      if let matchNode, everyItem != true {
        if case .scalar("true", true) = matchNode.kind {
          error(
            "'match' in \(context) must be a mapping of conditions, not true", at: matchNode.mark,
            notes: ["for every item of some feeds, scope the rule with feeds: and leave out match"])
        } else {
          condition = self.condition(matchNode, in: context)
        }
      } else if !scope.isEmpty {
        condition = .all([])
      } else if !misspells("match", in: entries) {
        error(
          matchNode == nil ? "\(context) has no 'match'" : "empty 'match' in \(context)",
          at: matchNode?.mark ?? element.mark,
          notes: [
            "say which items it is for, e.g. match: { title: release }",
            "for every item of some feeds, scope the rule with feeds: and leave out match",
          ])
      }
      let actions = ruleActions(entries, of: element, in: context)
      if let condition {
        rules.append(Rule(name: name, scope: scope, condition: condition, actions: actions, mark: element.mark))
      }
    }
    return rules
  }

  /// A rule's `feeds:` scope; each name must be a feed's name or a feed tag.
  mutating func ruleScope(
    _ entries: [(key: String, keyMark: Mark, value: YAMLNode)], in context: String, feedNames: [String],
    feedTags: [String]
  ) -> [String] {
    var scope: [String] = []
    if let scopeNode = value("feeds", in: entries) {
      scope = stringList(scopeNode, "'feeds'") ?? []
      let items: [YAMLNode] = {
        if case .sequence(let nodes) = scopeNode.kind { return nodes }
        return [scopeNode]
      }()
      for (offset, entry) in scope.enumerated() where !feedNames.contains(entry) && !feedTags.contains(entry) {
        let mark = offset < items.count ? items[offset].mark : scopeNode.mark
        var notes: [String] = []
        if let suggestion = Suggestion.closest(to: entry, in: feedNames + feedTags) {
          notes.append("did you mean '\(suggestion)'?")
        }
        notes.append("a rule's 'feeds' names feeds (by 'name') or feed tags")
        error("\(context) names unknown feed or tag '\(entry)'", at: mark, notes: notes)
      }
      // A name that is both a feed's and a tag covers both: said, so that it is no surprise.
      for (offset, entry) in scope.enumerated() where feedNames.contains(entry) && feedTags.contains(entry) {
        let mark = offset < items.count ? items[offset].mark : scopeNode.mark
        diagnostics.append(
          Diagnostic(
            .warning, message: "\(context): '\(entry)' in its feeds is both a feed's name and a tag", mark: mark,
            notes: [
              "it covers the feed '\(entry)' and every feed tagged \(entry); rename the feed or the tag to mean one"
            ]))
      }
    }
    return scope
  }

  /// A rule's actions (tag, mute, stop, notify, hook, digest, digest_hook); a rule must have one.
  mutating func ruleActions(
    _ entries: [(key: String, keyMark: Mark, value: YAMLNode)], of element: YAMLNode, in context: String
  ) -> RuleActions {
    var actions = RuleActions()
    for entry in entries {
      switch entry.key {
      case "tag": actions.tags = stringList(entry.value, "'tag'") ?? []
      case "mute": actions.mute = bool(entry.value, "'mute'") ?? false
      case "stop": actions.stop = bool(entry.value, "'stop'") ?? false
      case "notify": actions.notify = notifyAction(entry.value, in: context)
      case "hook": actions.hook = hookAction(entry.value, in: context)
      case "digest": actions.digest = digestAction(entry.value, in: context)
      case "digest_hook": actions.digestHook = hookAction(entry.value, in: context)
      case "on_update": actions.onUpdate = bool(entry.value, "'on_update'") ?? false
      case "webhook": actions.webhook = webhookAction(entry.value, in: context)
      case "apprise": actions.apprise = appriseAction(entry.value, in: context)
      case "buttons": actions.buttons = buttons(entry.value, in: context)
      default: break
      }
    }
    if !actions.buttons.isEmpty, actions.notify == nil, let entry = entries.first(where: { $0.key == "buttons" }) {
      error(
        "\(context) has buttons but no notify", at: entry.keyMark,
        notes: ["buttons go on the rule's notifications: add notify: true"])
    }
    if actions.digestHook != nil, actions.digest == nil,
      let hookEntry = entries.first(where: { $0.key == "digest_hook" })
    {
      error(
        "\(context) has a digest_hook but no digest", at: hookEntry.keyMark,
        notes: ["add digest: { every: 1d, at: \"08:00\" } (the hook runs when the digest goes out)"])
    }
    if actions.isEmpty,
      !entries.contains(where: {
        ["tag", "mute", "notify", "hook", "stop", "digest", "webhook", "apprise"].contains($0.key)
      })
    {
      error(
        "\(context) does nothing", at: element.mark,
        notes: ["add at least one action: tag, mute, notify, hook, webhook, apprise, digest or stop"])
    }
    return actions
  }

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

  /// `webhook: URL` or `webhook: { url: URL, secret_file: PATH | secret_env: NAME, timeout: 10s }`.
  package mutating func webhookAction(_ node: YAMLNode, in context: String) -> WebhookAction? {
    let what = "'webhook' in \(context)"
    var action: WebhookAction
    if node.scalar != nil {
      guard let url = string(node, what) else { return nil }
      action = WebhookAction(url: url, mark: node.mark)
    } else {
      guard let entries = mapping(node, what) else { return nil }
      checkKeys(entries, allowed: ["url", "secret_file", "secret_env", "timeout"], in: what)
      action = WebhookAction(url: "", mark: node.mark)
      for entry in entries {
        switch entry.key {
        case "url": action.url = string(entry.value, "'url'") ?? ""
        case "secret_file": action.secretFile = string(entry.value, "'secret_file'")
        case "secret_env": action.secretEnv = string(entry.value, "'secret_env'")
        case "timeout": action.timeout = duration(entry.value, "'timeout'", positive: true).map { min($0, 600) }
        default: break
        }
      }
      if action.secretFile != nil, action.secretEnv != nil {
        error("\(what) has both secret_file and secret_env", at: node.mark, notes: ["keep one of them"])
      }
    }
    guard FeedLocation.isHTTP(action.url) else {
      error(
        "\(what) needs an http or https URL, not '\(action.url)'", at: node.mark,
        notes: ["webhook: { url: https://example.org/hook, secret_file: ~/.config/watcher/webhook.secret }"])
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

  // MARK: - Conditions

  /// A `match:` mapping: each key is a field, a combinator, or an age test; several keys must all hold.
  package mutating func condition(_ node: YAMLNode, in context: String) -> Condition? {
    guard !overBudget else { return nil }
    conditions += 1
    if conditions > Self.maxConditions {
      overBudget = true
      error(
        "the rules hold more than \(Self.maxConditions) conditions", at: node.mark,
        notes: ["aliases ('*name') that repeat conditions multiply them; this looks like an alias bomb"])
      return nil
    }
    guard let entries = mapping(node, "'match' in \(context)") else { return nil }
    if entries.isEmpty {
      error("empty 'match' in \(context)", at: node.mark, notes: ["give at least one field, e.g. { title: release }"])
      return nil
    }
    checkKeys(
      entries, allowed: Self.conditionKeys, in: "'match'",
      hint:
        "fields: \(MatchField.allCases.map(\.rawValue).joined(separator: ", ")); combinators: all, any, not; "
        + "older_than, newer_than")
    var parts: [Condition] = []
    for entry in entries {
      let v = entry.value
      switch entry.key {
      case "all":
        if let list = conditionList(v, "all", in: context) { parts.append(.all(list)) }
      case "any" where isConditionList(v):
        if let list = conditionList(v, "any", in: context) { parts.append(.any(list)) }
      case "not":
        if case .sequence = v.kind {
          if let list = conditionList(v, "not", in: context) { parts.append(.not(.any(list))) }
        } else if let inner = condition(v, in: context) {
          parts.append(.not(inner))
        }
      case "older_than":
        if let seconds = duration(v, "'older_than'") { parts.append(.olderThan(seconds)) }
      case "newer_than":
        if let seconds = duration(v, "'newer_than'") { parts.append(.newerThan(seconds)) }
      default:
        guard let field = MatchField(rawValue: entry.key) else { continue }
        if let pattern = pattern(v, field: entry.key) { parts.append(.field(field, pattern)) }
      }
    }
    guard parts.count == entries.filter({ Self.conditionKeys.contains($0.key) }).count, !parts.isEmpty else {
      return nil
    }
    return parts.count == 1 ? parts[0] : .all(parts)
  }

  /// Whether a value is a list of condition mappings (the `any` combinator) rather than a pattern.
  private func isConditionList(_ node: YAMLNode) -> Bool {
    guard case .sequence(let nodes) = node.kind, let first = nodes.first else { return false }
    if case .mapping = first.kind { return true }
    return false
  }

  package mutating func conditionList(_ node: YAMLNode, _ name: String, in context: String) -> [Condition]? {
    guard case .sequence(let nodes) = node.kind, !nodes.isEmpty else {
      error(
        "'\(name)' needs a list of conditions, not \(node.kindName)", at: node.mark,
        notes: ["\(name): [ { title: x }, { category: y } ]"])
      return nil
    }
    var result: [Condition] = []
    var ok = true
    for element in nodes {
      if let inner = condition(element, in: context) { result.append(inner) } else { ok = false }
    }
    return ok ? result : nil
  }

  /// A pattern: a string (substring), a list (any of), or a mapping with one of contains/words/regex/equals.
  package mutating func pattern(_ node: YAMLNode, field: String) -> Pattern? {
    switch node.kind {
    case .scalar:
      guard let text = string(node, "'\(field)'") else { return nil }
      return Pattern(.contains([text]))
    case .sequence:
      guard let list = stringList(node, "'\(field)'") else { return nil }
      return Pattern(.contains(list))
    case .mapping:
      guard let entries = mapping(node, "'\(field)'") else { return nil }
      checkKeys(entries, allowed: Self.patternKeys, in: "the '\(field)' matcher")
      var caseSensitive = false
      if let caseNode = value("case", in: entries), let text = string(caseNode, "'case'") {
        switch text {
        case "sensitive": caseSensitive = true
        case "insensitive": caseSensitive = false
        default: unknownChoice("case", text, ["sensitive", "insensitive"], at: caseNode.mark)
        }
      }
      let tests = ["contains", "words", "regex", "equals"]
      let kinds = entries.filter { tests.contains($0.key) }
      if kinds.isEmpty, tests.contains(where: { misspells($0, in: entries) }) { return nil }
      guard kinds.count == 1, let kind = kinds.first else {
        error(
          kinds.isEmpty ? "the '\(field)' matcher has no test" : "the '\(field)' matcher has more than one test",
          at: node.mark, notes: ["use exactly one of contains, words, regex, equals"])
        return nil
      }
      switch kind.key {
      case "contains":
        return stringList(kind.value, "'contains'").map { Pattern(.contains($0), caseSensitive: caseSensitive) }
      case "words": return stringList(kind.value, "'words'").map { Pattern(.words($0), caseSensitive: caseSensitive) }
      case "equals":
        return stringList(kind.value, "'equals'").map { Pattern(.equals($0), caseSensitive: caseSensitive) }
      default:
        guard let text = string(kind.value, "'regex'") else { return nil }
        for flag in ["(?i)", "(?-i)", "(?s)", "(?m)", "(?x)"] where text.hasPrefix(flag) {
          error(
            "'\(flag)' is not supported in a regex", at: kind.value.mark,
            notes: [
              flag == "(?i)"
                ? "matching is already case-insensitive; remove '(?i)' (say case: sensitive for the other way)"
                : "watcher regexes are POSIX extended: no inline flags; case: sensitive chooses the case"
            ])
          return nil
        }
        do throws(LinearRegex.RegexError) {
          let key = (caseSensitive ? "s:" : "i:") + text
          let compiled: LinearRegex
          switch regexes[key] {
          case .success(let cached)?: compiled = cached
          case .failure(let error)?: throw error
          case nil:
            do {
              compiled = try LinearRegex(text, caseSensitive: caseSensitive)
              regexes[key] = .success(compiled)
            } catch {
              regexes[key] = .failure(error)
              throw error
            }
          }
          regexSteps += compiled.programSize
          if regexSteps > Self.maxRegexSteps, !overBudget {
            overBudget = true
            self.error(
              "the rules' regexes add up to more than \(Self.maxRegexSteps) steps", at: kind.value.mark,
              notes: [
                "every item is matched against each of them; aliases ('*name') that repeat a regex multiply it"
              ])
            return nil
          }
          return Pattern(.regex(compiled), caseSensitive: caseSensitive)
        } catch {
          var mark = kind.value.mark
          if let offset = error.offset { mark.column += offset + (quoted(kind.value) ? 1 : 0) }
          self.error(
            "invalid regex: \(error.message)", at: mark,
            notes: [
              "watcher regexes are POSIX extended with \\d \\s \\w \\b, matched in linear time; see docs/rules.md"
            ])
          return nil
        }
      }
    }
  }
}
