// swift-tools-version:6.0
// SPDX-License-Identifier: MIT
import PackageDescription

let package = Package(
  name: "watcher",
  products: [
    .executable(name: "watcher", targets: ["watcher"]),
    .library(name: "WatcherCore", targets: ["WatcherCore"]),
  ],
  targets: [
    .systemLibrary(name: "CYaml", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
    .systemLibrary(name: "CNotify", pkgConfig: "libnotify", providers: [.apt(["libnotify-dev"])]),
    .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
    .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    // zlib comes with libxml2-dev; it reads gzip-compressed feed files (HTTP bodies are decoded by libcurl).
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    // Our one C target: the hook supervisor, which must run between fork and exec where Swift cannot.
    .target(name: "CHookSupervisor"),
    .target(
      name: "WatcherCore", dependencies: ["CLibXML2", "CZlib", "CYaml", "CCurl", "CNotify", "CHookSupervisor"],
      // The parser's hot loops mutate class state per SAX callback; dynamic exclusivity checks cost ~5% of
      // parse time there. Debug builds (and so the tests) keep the checks.
      swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
    .target(name: "WatcherCLI", dependencies: ["WatcherCore"]),
    .executableTarget(name: "watcher", dependencies: ["WatcherCLI"]),
    // Benchmarks that print figures: swift run -c release watcher-bench rules
    .executableTarget(name: "watcher-bench", dependencies: ["WatcherCore"]),
    .target(name: "WatcherTestSupport", dependencies: ["WatcherCore"]),
    .testTarget(
      name: "WatcherCoreTests", dependencies: ["WatcherCore", "WatcherTestSupport"], exclude: ["Fixtures"]),
    .testTarget(
      name: "WatcherCLITests", dependencies: ["WatcherCLI", "WatcherCore", "WatcherTestSupport"], exclude: ["Fixtures"]),
  ]
)

// Strict, uniform settings for every Swift target (as swift-log does in one loop).
for target in package.targets where target.type != .system && target.name != "CHookSupervisor" {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
