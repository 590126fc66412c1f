// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherSupport

/// What a command wrote, captured in memory for tests.
public final class TerminalRecording: Sendable {
  private let out = Locked<[UInt8]>([])
  private let err = Locked<[UInt8]>([])

  /// Creates an empty recording.
  public init() {}

  /// Everything written to standard output.
  public var output: String { out.withLock { String(decoding: $0, as: UTF8.self) } }
  /// Everything written to standard error.
  public var errors: String { err.withLock { String(decoding: $0, as: UTF8.self) } }

  /// Appends to standard output.
  public func writeOutput(_ bytes: [UInt8]) { out.withLock { $0.append(contentsOf: bytes) } }
  /// Appends to standard error.
  public func writeErrors(_ bytes: [UInt8]) { err.withLock { $0.append(contentsOf: bytes) } }
}
