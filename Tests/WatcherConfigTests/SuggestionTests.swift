// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Testing
import WatcherConfig

@Suite("Did you mean")
struct SuggestionTests {
  @Test("distance counts edits and neighbour swaps")
  func distance() {
    #expect(Suggestion.distance("parse", "parse") == 0)
    #expect(Suggestion.distance("pares", "parse") == 1)
    #expect(Suggestion.distance("mach", "match") == 1)
    #expect(Suggestion.distance("", "abc") == 3)
    #expect(Suggestion.distance("kitten", "sitting") == 3)
  }

  @Test("suggests only close names")
  func closest() {
    #expect(Suggestion.closest(to: "jsn", in: ["json", "charset"]) == "json")
    #expect(Suggestion.closest(to: "pares", in: ["parse", "poll"]) == "parse")
    #expect(Suggestion.closest(to: "frobnicate", in: ["parse", "poll"]) == nil)
  }
}
