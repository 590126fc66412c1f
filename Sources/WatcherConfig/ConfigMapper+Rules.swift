// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

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
      var spread: StorySpread?
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
          (condition, spread) = storyCondition(matchNode, in: context)
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
      // A learned score errs; muting on it drops posts no one sees. A digest keeps them at hand.
      if let condition, condition.testsScore, actions.mute {
        warning(
          "\(context) mutes items by their learned score: a post the learner scores wrongly is then never seen",
          at: matchNode?.mark ?? element.mark,
          notes: [
            "send low scores to a digest instead: match: { score: { below: 0.3 } } with digest: { every: 1d }",
            "and let high scores notify: match: { score: { above: 0.7 } } with notify: true",
          ])
      }
      if let condition {
        var rule = Rule(name: name, scope: scope, condition: condition, actions: actions, mark: element.mark)
        rule.spread = spread
        rules.append(rule)
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
      case "dedupe":
        if let word = string(entry.value, "'dedupe' in \(context)") {
          if word == "story" {
            actions.oncePerStory = true
          } else {
            error(
              "'dedupe' in \(context) takes 'story', not '\(word)'", at: entry.value.mark,
              notes: ["dedupe: story runs its hook, webhook or Apprise once per story across feeds"])
          }
        }
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
}
