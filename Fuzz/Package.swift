// swift-tools-version:6.0
// SPDX-License-Identifier: MIT
// libFuzzer targets for watcher, kept out of the main package (a fuzzer executable there breaks
// `swift build`/`swift test`, LINUX-NOTES §5). Build and run with Fuzz/fuzz.sh.
import PackageDescription

let package = Package(
  name: "WatcherFuzz",
  dependencies: [.package(path: "..")],
  targets: [
    .executableTarget(name: "WatcherFuzz", dependencies: [.product(name: "WatcherCore", package: "main")])
  ]
)
