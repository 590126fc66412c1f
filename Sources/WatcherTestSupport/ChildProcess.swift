// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Dispatch
import Foundation

/// What a finished child process left: its exit status and everything it wrote.
public struct ChildResult: Sendable {
  public var status: Int32
  public var output: String
  public var errors: String
}

/// Runs real programs (the built `watcher`, `/bin/sh`, `systemd-analyze`) for end-to-end tests.
public enum ChildProcess {
  /// Runs `executable` with `arguments` to completion.
  ///
  /// Both pipes are drained at once, so a child that writes a lot to either never blocks. `environment`
  /// replaces the inherited one when given.
  public static func run(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil,
    stdin: Data? = nil
  ) throws -> ChildResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe()
    let err = Pipe()
    let input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try process.run()
    if let stdin {
      input.fileHandleForWriting.write(stdin)
      try? input.fileHandleForWriting.close()
    }
    let errors = Drain(err.fileHandleForReading)
    let output = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ChildResult(
      status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
      errors: String(decoding: errors.wait(), as: UTF8.self))
  }

  /// Runs `executable` found at an absolute path.
  public static func run(
    _ path: String, _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil
  ) throws -> ChildResult {
    try run(URL(fileURLWithPath: path), arguments, environment: environment, in: directory)
  }
}

/// Reads a pipe to its end on another thread.
private final class Drain: @unchecked Sendable {
  private var data = Data()
  private let done = DispatchSemaphore(value: 0)

  init(_ handle: FileHandle) {
    Thread.detachNewThread { [self] in
      data = handle.readDataToEndOfFile()
      done.signal()
    }
  }

  /// Everything read, once the writer closed the pipe.
  ///
  /// The semaphore orders the write before this read.
  func wait() -> Data {
    done.wait()
    return data
  }
}
