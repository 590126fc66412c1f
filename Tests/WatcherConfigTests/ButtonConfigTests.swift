// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig

/// A rule's `buttons:` and `settings.notify.snooze`.
@Suite("Notification buttons in the config")
struct ButtonConfigTests {
  func errors(_ rules: String) -> String {
    do {
      _ = try ConfigLoader.parse("feeds: [{ url: https://a.example/f }]\nrules:\n\(rules)", path: "c.yaml")
      return ""
    } catch {
      return error.rendered
    }
  }

  @Test("buttons are read with their hooks; the snooze is a duration")
  func read() throws {
    let config = try ConfigLoader.parse(
      """
      settings: { notify: { snooze: 3h } }
      feeds: [{ url: https://a.example/f }]
      rules:
        - name: r
          match: { title: a }
          notify: true
          buttons: [{ label: Archive, hook: 'echo "$WATCHER_LINK"' }, { label: Later, hook: { run: [/bin/echo, "{link}"] } }]
      """, path: "c.yaml")
    #expect(config.settings.notify.snooze == 3 * 3_600)
    let buttons = config.rules[0].actions.buttons
    #expect(buttons.map(\.label) == ["Archive", "Later"])
    #expect(buttons[0].hook.command == "echo \"$WATCHER_LINK\"" && buttons[1].hook.run?.count == 2)
  }

  @Test("a button without notify, a fourth button, a repeated or reserved label, a button without hook are errors")
  func mistakes() {
    let base = "  - name: r\n    match: { title: a }\n"
    #expect(errors(base + "    buttons: [{ label: A, hook: x }]").contains("rule 'r' has buttons but no notify"))
    let four = (1...4).map { "{ label: B\($0), hook: x }" }.joined(separator: ", ")
    #expect(errors(base + "    notify: true\n    buttons: [\(four)]").contains("has 4 buttons"))
    #expect(
      errors(base + "    notify: true\n    buttons: [{ label: A, hook: x }, { label: A, hook: y }]").contains(
        "a button named 'A' is there already"))
    #expect(
      errors(base + "    notify: true\n    buttons: [{ label: Open, hook: x }]").contains(
        "a button named 'Open' is there already"))
    #expect(errors(base + "    notify: true\n    buttons: [{ label: A }]").contains("needs a 'label' and a 'hook'"))
  }
}
