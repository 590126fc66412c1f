// swift-tools-version:6.0
// SPDX-License-Identifier: MIT
// libFuzzer targets for watcher, kept out of the main package (a fuzzer executable there breaks
// `swift build`/`swift test`; docs/development.md). Build and run with Fuzz/fuzz.sh.
//
// The main package is reached through the symlink .root/watcher (fuzz.sh makes it), so its package name
// is "watcher" whatever the checkout's directory is called: SwiftPM names a path dependency after the
// last component of its path.
import PackageDescription

let package = Package(
  name: "WatcherFuzz",
  dependencies: [.package(path: ".root/watcher")],
  targets: [
    .executableTarget(
      name: "WatcherFuzz", dependencies: [.product(name: "WatcherFuzzing", package: "watcher")])
  ]
)
