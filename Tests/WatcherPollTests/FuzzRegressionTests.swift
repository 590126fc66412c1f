// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherFuzzing
import WatcherTestSupport

/// Every saved fuzzer finding, run through the code the fuzzer ran (issue #7).
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
  static let root = Fixtures.url("Fuzz")

  static func inputs(_ target: FuzzHarness) -> [URL] {
    let directory = root.appendingPathComponent(target.rawValue)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.sorted().map { directory.appendingPathComponent($0) }
  }

  @Test("each saved input runs to completion", arguments: FuzzHarness.allCases)
  func replay(_ target: FuzzHarness) throws {
    let inputs = Self.inputs(target)
    #expect(!inputs.isEmpty, "no regression inputs for '\(target.rawValue)'")
    for input in inputs {
      target.run(try Data(contentsOf: input))
    }
  }

  @Test("the config findings are refused or matched as documented")
  func configOutcomes() throws {
    func load(_ name: String) throws -> Result<Config, ConfigError> {
      let text = try String(contentsOf: Self.root.appendingPathComponent("config/\(name)"), encoding: .utf8)
      return Result { () throws(ConfigError) in try ConfigLoader.parse(text, path: name) }
    }
    #expect(throws: ConfigError.self) { try load("nested-groups.yaml").get() }
    #expect(throws: ConfigError.self) { try load("huge-count.yaml").get() }
    #expect(try load("non-ascii-range.yaml").get().rules.count == 1)
    #expect(try load("hostile-regex.yaml").get().rules.count == 1)
  }
}
