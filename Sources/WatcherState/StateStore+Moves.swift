// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

extension StateStore {
  /// A feed whose URL changed takes its history along.
  ///
  /// For each of `feeds` (URL and name) that has no state file yet: the state of a file that belongs to none
  /// of `feeds` (an orphan) and that names it (the same feed name, or a permanent redirect that pointed to
  /// its URL), when exactly one does, becomes its state. `movedSince` is set to the old URL's last success,
  /// so its first poll acts on what was published since, and the old file is removed. Returns what moved:
  /// the feed's name and where its history came from (its old URL without secrets).
  public func adoptMoved(_ feeds: [(url: String, name: String)]) -> [(name: String, from: String)] {
    let owned = Set(feeds.map { Self.fileName(for: $0.url) })
    let homeless = feeds.filter { access(path(for: $0.url), F_OK) != 0 }
    guard !homeless.isEmpty else { return [] }
    let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    let orphans: [(file: String, state: FeedState)] = files.filter {
      $0.hasPrefix("feed-") && $0.hasSuffix(".json") && !owned.contains($0)
    }.compactMap { file in
      guard
        case .read(let data) = ChunkedFile.readRegularFile(
          directory + "/" + file, maxBytes: Self.maxFileBytes, followSymlinks: false),
        let state = try? Self.decode(data)
      else { return nil }
      return (file, state)
    }
    guard !orphans.isEmpty else { return [] }
    var moved: [(name: String, from: String)] = []
    var taken: Set<String> = []
    for feed in homeless {
      let matches = orphans.filter { orphan in
        !taken.contains(orphan.file) && (orphan.state.name == feed.name || orphan.state.movedTo == feed.url)
      }
      guard matches.count == 1, let orphan = matches.first else { continue }
      var state = orphan.state
      let from = state.url
      state.url = feed.url
      state.movedTo = nil
      state.movedSince = state.lastSuccess ?? state.lastAttempt
      state.etag = nil
      state.lastModified = nil
      state.bodyFingerprint = nil
      do {
        try save(state)
      } catch {
        continue
      }
      unlink(directory + "/" + orphan.file)
      taken.insert(orphan.file)
      moved.append((feed.name, URLSecrets.redacted(from)))
    }
    if !moved.isEmpty { syncDirectory() }
    return moved
  }
}
