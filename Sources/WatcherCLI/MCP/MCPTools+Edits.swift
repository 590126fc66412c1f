// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherSupport

/// The tools that edit the config (`--allow-edits`): each a proposal first, written only when the client
/// sends back its confirmation code.
extension MCPTools {
  /// The confirmation code of an edit: it names the edit and the config it applies to, so a code from
  /// another edit, or from before the file changed, does not confirm this one.
  func confirmation(_ parts: [String]) -> String {
    let config = FileManager.default.contents(atPath: configPath).map { Array($0) } ?? []
    return String(
      StableHash.hex(of: (parts + [String(decoding: config, as: UTF8.self)]).joined(separator: "\u{0}")).prefix(12))
  }

  func addRule(_ arguments: JSONValue) -> JSONOutput {
    let rule = arguments["rule"]?.string ?? ""
    let code = confirmation(["add_rule", rule])
    guard let confirm = arguments["confirm"]?.string else {
      let proposal = proposeRule(rule)
      return Self.confirmRequest(proposal, code: code)
    }
    guard confirm == code else { return Self.failure(Self.staleCode) }
    guard let data = FileManager.default.contents(atPath: configPath) else {
      return Self.failure("no config at \(configPath)")
    }
    let original = String(decoding: data, as: UTF8.self)
    let updated = RuleText.adding(rule, to: original)
    return withScratchConfig(updated) { path in
      let (checked, _, errors) = run(["check"], config: path)
      guard checked == 0 else { return Self.failure("the rule does not check; nothing was written: " + errors) }
      let backup: String?
      do { backup = try ConfigEditor.write(updated, to: configPath) } catch {
        return Self.failure("cannot write \(configPath): \(error)")
      }
      let (terminal, said) = capturing()
      if let config = try? ConfigLoader.load(path: configPath),
        let arguments = try? ArgumentParser.parse(
          stateDirectory.map { ["--state-dir", $0] } ?? [], options: [Options.stateDir], command: "mcp")
      {
        Subscriptions.tellDaemon(arguments, config: config, path: configPath, terminal: terminal)
      }
      let (toldOut, toldErrors) = said()
      return Self.answer(
        .object([
          ("rule", .string(RuleText.entry(rule))), ("config", .string(configPath)), ("backup", .optional(backup)),
          ("said", .string(toldOut + toldErrors)),
        ]),
        note: "Added to the config.")
    }
  }

  func addFeed(_ arguments: JSONValue) -> JSONOutput {
    let (url, name) = (arguments["url"]?.string ?? "", arguments["name"]?.string)
    let code = confirmation(["add_feed", url, name ?? ""])
    guard let confirm = arguments["confirm"]?.string else {
      return Self.confirmRequest(proposeFeed(arguments), code: code)
    }
    guard confirm == code else { return Self.failure(Self.staleCode) }
    let (status, output, errors) = run(["add", url] + (name.map { ["--name", $0] } ?? []))
    guard status == 0 else { return Self.failure(errors) }
    return Self.answer(.object([("said", .string(output + errors))]), note: "Added; a running daemon reloads it.")
  }

  static let staleCode =
    "the confirmation code is not this edit's, or the config changed since: call again without 'confirm'"

  /// A proposal with the code that confirms it, or the proposal's failure.
  static func confirmRequest(_ proposal: JSONOutput, code: String) -> JSONOutput {
    guard case .object(var members) = proposal, !members.contains(where: { $0.0 == "isError" && $0.1 == .bool(true) })
    else {
      return proposal
    }
    members.insert(
      (
        "_meta",
        .object([("confirmation", .string(code))])
      ), at: 0)
    if case .array(var content)? = members.first(where: { $0.0 == "content" })?.1 {
      content.insert(
        .object([
          ("type", .string("text")),
          (
            "text",
            .string(
              "Nothing was written yet. Show the user this change; if they agree, call again with "
                + "confirm: \"\(code)\".")
          ),
        ]), at: 0)
      members = members.map { $0.0 == "content" ? ("content", .array(content)) : $0 }
    }
    return .object(members)
  }

  /// Runs `body` with `text` in a config file of its own (beside nothing: a scratch directory).
  func withScratchConfig(_ text: String, _ body: (String) -> JSONOutput) -> JSONOutput {
    // Beside the config, so that its relative paths (feeds that are files, hooks) mean what they mean
    // there; a hidden name of its own, removed at once (the daemon reloads only when its own file changes).
    let besides = FilePath.directory(HomePath.expand(configPath, environment: environment))
    let name = ".watcher-mcp-\(getpid())-\(StableHash.hex(of: text).prefix(8)).yaml"
    for directory in [besides.isEmpty ? "." : besides, environment["TMPDIR"] ?? "/tmp"] {
      let path = directory + "/" + name
      guard (try? AtomicFile.write(Data(text.utf8), to: path, directory: directory, syncDirectory: false)) != nil
      else { continue }
      defer { unlink(path) }
      return body(path)
    }
    return Self.failure("cannot write a scratch config beside \(configPath) or in the temporary directory")
  }
}
