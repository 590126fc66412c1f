// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

/// The binary users install is the one the end-to-end tests run, and it exports nothing a library it loads
/// could bind to (contrib/link/watcher.map).
@Suite("The shipped binary")
struct ShippedBinaryTests {
  static var underTest: String? { ProcessInfo.processInfo.environment["WATCHER_TEST_BINARY"] }

  @Test(
    "its dynamic symbol table defines no symbol: GLib and libcurl bind only to themselves",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/nm")))
  func exportsNothing() throws {
    let binary = try #require(BinaryTests.binary)
    let result = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/nm"), ["-D", "--defined-only", binary.path])
    #expect(result.status == 0, "\(result.errors)")
    let exported = result.output.split(separator: "\n")
    #expect(exported.isEmpty, "\(binary.path) exports \(exported.count) symbols, first: \(exported.prefix(5))")
  }

  @Test(
    "Scripts/test.sh runs the end-to-end tests on the static build that make install and the package ship",
    .enabled(if: underTest != nil))
  func testsRunWhatShips() throws {
    let binary = try #require(BinaryTests.binary)
    #expect(binary.path.hasSuffix(".build-static/release/watcher"), "\(binary.path)")
    // --static-swift-stdlib: no library of the Swift toolchain is loaded.
    let ldd = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ldd"), [binary.path])
    #expect(!ldd.output.lowercased().contains("swift"), "\(ldd.output)")
    #expect(!ldd.output.contains("libFoundation"), "\(ldd.output)")
  }
}
