// swift-tools-version:6.0
// SPDX-License-Identifier: MIT
import PackageDescription

// The targets draw the architecture (docs/design.md); the compiler refuses an import that runs the wrong way.
//
//   WatcherSupport                      bytes, JSON writing, dates, hashing, atomic files, locks, Urgency; no C
//   WatcherRegex    -> Support          the linear-time regex engine
//   WatcherXML      -> Support          libxml2 SAX, input decoding, UTF-8 repair, entities
//   WatcherFeed     -> XML              the formats, the normalized model, HTML to text
//   WatcherConfig   -> Feed, Regex      YAML, the config and rule model, loader, diagnostics, editor, OPML
//   WatcherRules    -> Config           the rule engine, decisions, dry run
//   WatcherState    -> Support          state files, kept notifications, digests, the journal
//   WatcherFetch    -> Support          HTTP(S) with libcurl
//   WatcherActions  -> State, Config, Fetch   notifications (libnotify, pictures), hooks (CHookSupervisor)
//   WatcherPoll     -> Rules, State, Fetch, Actions   the coordinator
//   WatcherCLI      -> Poll             commands, arguments, words for every error
let package = Package(
  name: "watcher",
  products: [
    .executable(name: "watcher", targets: ["watcher"]),
    .library(name: "WatcherFuzzing", targets: ["WatcherFuzzing"]),
  ],
  targets: [
    .systemLibrary(name: "CYaml", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
    .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
    // zlib comes with libxml2-dev; it reads gzip-compressed feed files (HTTP bodies are decoded by libcurl).
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    // Our C targets: the hook supervisor, which must run between fork and exec where Swift cannot; and
    // libcurl and libnotify, loaded when first called (curl.c, notify.c), not at every command's start-up.
    // curl's headers come from libcurl4-openssl-dev; the libraries at run time from libcurl4 and libnotify4.
    .target(name: "CHookSupervisor"),
    .target(name: "CWatcherXML", dependencies: ["CLibXML2"]),
    .target(name: "CCurl"),
    .target(name: "CNotify"),

    .target(name: "WatcherSupport"),
    .target(name: "WatcherRegex", dependencies: ["WatcherSupport"]),
    .target(name: "WatcherXML", dependencies: ["WatcherSupport", "CLibXML2", "CWatcherXML"]),
    .target(name: "WatcherFeed", dependencies: ["WatcherXML", "WatcherSupport", "CZlib"]),
    .target(
      name: "WatcherConfig", dependencies: ["WatcherFeed", "WatcherXML", "WatcherRegex", "WatcherSupport", "CYaml"]),
    .target(name: "WatcherRules", dependencies: ["WatcherConfig", "WatcherFeed", "WatcherRegex", "WatcherSupport"]),
    .target(name: "WatcherState", dependencies: ["WatcherSupport"]),
    .target(name: "WatcherFetch", dependencies: ["WatcherSupport", "CCurl"]),
    .target(
      name: "WatcherActions",
      dependencies: [
        "WatcherState", "WatcherConfig", "WatcherFeed", "WatcherFetch", "WatcherSupport", "CNotify", "CHookSupervisor",
      ]),
    .target(
      name: "WatcherPoll",
      dependencies: [
        "WatcherRules", "WatcherState", "WatcherFetch", "WatcherActions", "WatcherConfig", "WatcherFeed",
        "WatcherSupport",
      ]),
    // The code each fuzz target runs (Fuzz/), here so that the regression tests run exactly the same code.
    .target(name: "WatcherFuzzing", dependencies: ["WatcherPoll"]),
    .target(name: "WatcherCLI", dependencies: ["WatcherPoll"]),
    // It exports no symbol (contrib/link/watcher.map says why): a library it loads binds only to its own.
    .executableTarget(
      name: "watcher", dependencies: ["WatcherCLI"],
      linkerSettings: [
        .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/contrib/link/watcher.map"])
      ]
    ),
    // Benchmarks that print figures: swift run -c release watcher-bench rules|regex|extract
    .executableTarget(name: "watcher-bench", dependencies: ["WatcherPoll", "WatcherTestSupport"]),
    // What the tests share: fixtures and goldens, a loopback HTTP server, scratch directories, child
    // processes; below the layers it tests, so a parser test builds only the parser.
    .target(name: "WatcherTestSupport", dependencies: ["WatcherFeed", "WatcherState", "WatcherSupport"]),
    // One test target per layer, each depending on its own layer (docs/development.md, "The inner loop").
    .testTarget(
      name: "WatcherFeedTests", dependencies: ["WatcherFeed", "WatcherXML", "WatcherRegex", "WatcherTestSupport"]),
    .testTarget(name: "WatcherSupportTests", dependencies: ["WatcherSupport", "WatcherTestSupport"]),
    .testTarget(name: "WatcherRegexTests", dependencies: ["WatcherRegex", "WatcherTestSupport"]),
    .testTarget(name: "WatcherXMLTests", dependencies: ["WatcherXML", "WatcherTestSupport"]),
    .testTarget(name: "WatcherFetchTests", dependencies: ["WatcherFetch", "WatcherTestSupport"]),
    .testTarget(name: "WatcherConfigTests", dependencies: ["WatcherConfig", "WatcherTestSupport"]),
    .testTarget(name: "WatcherRulesTests", dependencies: ["WatcherRules", "WatcherTestSupport"]),
    .testTarget(
      name: "WatcherActionsTests",
      dependencies: ["WatcherActions", "WatcherConfig", "WatcherState", "WatcherSupport", "WatcherTestSupport"]),
    .testTarget(name: "WatcherStateTests", dependencies: ["WatcherState", "WatcherTestSupport"]),
    .testTarget(name: "WatcherPollTests", dependencies: ["WatcherPoll", "WatcherFuzzing", "WatcherTestSupport"]),
    .testTarget(
      name: "WatcherCLITests", dependencies: ["WatcherCLI", "WatcherPoll", "WatcherTestSupport"], exclude: ["Fixtures"]),
  ]
)

// Strict, uniform settings for every Swift target (as swift-log does in one loop).
for target in package.targets where target.type != .system && !target.name.hasPrefix("C") {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("MemberImportVisibility"),
    ]
}

// The parse and rule hot loops (the SAX callbacks, the regex DFA and Pike VM, the rule engine) mutate class
// state; dynamic exclusivity checks cost about 5% of parse time and 8% of rule evaluation there
// (Scripts/bench/parse-speed.sh, watcher-bench rules). Release builds turn them off for those four targets
// only; every other target, and debug builds (the tests), keep them.
let unchecked = ["Regex", "XML", "Feed", "Rules"]
for target in package.targets where unchecked.map({ "Watcher" + $0 }).contains(target.name) {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
    ]
}
