// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherRules
import WatcherState
import WatcherSupport

extension StateStore {
  /// The stories across feeds' file.
  public var storyGroupsPath: String { directory + "/story-groups.json" }

  /// The stories across feeds; an empty radar when the file is missing or corrupt (a corrupt one is moved
  /// aside unless `readOnly`).
  public func storyRadar(readOnly: Bool = false) throws(StateError) -> StoryRadar {
    try readShared(storyGroupsPath, readOnly: readOnly) { json in try StoryRadar(reading: &json) } ?? StoryRadar()
  }

  /// Replaces the stories across feeds (durably).
  public func saveStoryRadar(_ radar: StoryRadar) throws(StateError) {
    try Self.writeAtomically(Data(radar.document), to: storyGroupsPath, directory: directory)
  }
}
