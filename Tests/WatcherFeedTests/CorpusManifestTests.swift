// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

/// The corpus carries only files taken from package registries.
///
/// Those are PyPI's source distributions and Debian's source archives. Each file is listed in
/// `Tests/Corpus/MANIFEST.tsv` with the archive it came from, and each archive in `Tests/Corpus/ARCHIVES.tsv`
/// with its registry URL, sha256 and licence. `Scripts/corpus.sh verify` downloads the archives and compares
/// every file with its copy there.
@Suite("Corpus provenance")
struct CorpusManifestTests {
  static let corpus = Fixtures.repositoryRoot.appendingPathComponent("Tests/Corpus")

  /// The rows of a tab-separated file with a header line, as dictionaries.
  static func table(_ name: String) throws -> [[String: String]] {
    let text = try String(contentsOf: corpus.appendingPathComponent(name), encoding: .utf8)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map {
      $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }
    let header = lines.removeFirst()
    return lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
  }

  /// Where an archive of each registry may come from.
  static let registryHosts = [
    "pypi": ["https://files.pythonhosted.org/packages/"],
    "debian": ["http://deb.debian.org/debian/pool/", "https://snapshot.debian.org/archive/debian/"],
  ]

  @Test("every archive is a registry's source archive, with its sha256 and licence text")
  func archivesComeFromRegistries() throws {
    let archives = try Self.table("ARCHIVES.tsv")
    #expect(archives.count >= 10)
    for archive in archives {
      let name = archive["archive"] ?? "?"
      let hosts = Self.registryHosts[archive["registry"] ?? ""]
      #expect(hosts != nil, "\(name): registry '\(archive["registry"] ?? "")' is neither pypi nor debian")
      let url = archive["url"] ?? ""
      #expect(hosts?.contains { url.hasPrefix($0) } == true, "\(name): \(url) is not a registry download")
      #expect(url.hasSuffix("/" + name), "\(name): the URL names another file")
      let sha = archive["sha256"] ?? ""
      #expect(sha.count == 64 && sha.allSatisfy(\.isHexDigit), "\(name): no sha256")
      #expect(!(archive["license"] ?? "").isEmpty && !(archive["version"] ?? "").isEmpty, "\(name)")
      let licence = Self.corpus.appendingPathComponent("licenses/\(archive["package"] ?? "?").txt")
      #expect(FileManager.default.fileExists(atPath: licence.path), "\(name): no licence text at \(licence.path)")
    }
  }

  @Test("every corpus file is listed with its archive, and is the file its row describes")
  func everyFileIsListed() throws {
    let archives = Set(try Self.table("ARCHIVES.tsv").compactMap { $0["archive"] })
    let rows = try Self.table("MANIFEST.tsv")
    var listed: [String: [String: String]] = [:]
    for row in rows {
      let dest = row["dest"] ?? ""
      let archive = row["archive"] ?? ""
      #expect(archives.contains(archive), "\(dest): its archive '\(archive)' is not a registry archive")
      #expect(listed.updateValue(row, forKey: dest) == nil, "\(dest): listed twice")
    }
    let enumerator = try #require(FileManager.default.enumerator(atPath: Self.corpus.path))
    var onDisk: [String] = []
    while let path = enumerator.nextObject() as? String {
      let url = Self.corpus.appendingPathComponent(path)
      guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
        !path.hasPrefix("licenses/"), !["ARCHIVES.tsv", "MANIFEST.tsv", "SOURCES.md"].contains(path)
      else { continue }
      onDisk.append(path)
      #expect(listed[path] != nil, "\(path): in Tests/Corpus but not in MANIFEST.tsv")
    }
    #expect(Set(onDisk) == Set(listed.keys), "MANIFEST.tsv lists files that are not there")
    // Sizes and checksums, by sha256sum in one run.
    let sums = try Self.sha256(of: onDisk)
    for path in onDisk {
      guard let row = listed[path] else { continue }
      #expect(sums[path] == row["sha256"], "\(path): its sha256 is not MANIFEST.tsv's")
      let size = try FileManager.default.attributesOfItem(atPath: Self.corpus.appendingPathComponent(path).path)[.size]
      #expect((size as? Int).map(String.init) == row["bytes"], "\(path): its size is not MANIFEST.tsv's")
    }
  }

  static func sha256(of paths: [String]) throws -> [String: String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sha256sum", "--"] + paths
    process.currentDirectoryURL = corpus
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    var sums: [String: String] = [:]
    for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: " ", maxSplits: 1)
      guard parts.count == 2 else { continue }
      sums[String(parts[1].dropFirst())] = String(parts[0])
    }
    return sums
  }
}
