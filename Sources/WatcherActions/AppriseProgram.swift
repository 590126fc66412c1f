// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherSupport

/// How an `apprise:` action reaches Apprise: its Python library, run by the interpreter the `apprise`
/// command names, with a fixed program that reads one JSON request on stdin.
///
/// The request carries the URLs (their tokens), the title, the body, the files to attach and the Apprise
/// config files: nothing of it on a command line, which every local user can read in `/proc`, and none of it
/// code.
enum AppriseProgram {
  /// The program, the same for every message.
  static let script = """
    import json, sys
    import apprise
    request = json.load(sys.stdin)
    notifier = apprise.Apprise()
    for url in request["urls"]:
        if not notifier.add(url):
            sys.stderr.write("apprise: a URL it cannot use (its scheme, or a part of it, is wrong)\\n")
    for path in request["configs"]:
        config = apprise.AppriseConfig()
        config.add(path)
        notifier.add(config)
    if len(notifier) == 0:
        sys.stderr.write("apprise: no notification URL could be loaded\\n")
        sys.exit(3)
    sent = notifier.notify(
        body=request["body"], title=request["title"], notify_type=request["type"],
        body_format=apprise.NotifyFormat.TEXT, attach=request["attach"] or None)
    sys.exit(0 if sent else 1)
    """

  /// The interpreter that the `apprise` command at `program` runs under (its `#!` line), nil when it names
  /// no Python.
  static func interpreter(of program: String, environment: [String: String] = [:]) -> String? {
    guard case .read(let bytes) = ChunkedFile.readRegularFile(program, maxBytes: 64 * 1_024, followSymlinks: true)
    else { return nil }
    let first = bytes.prefix { $0 != UInt8(ascii: "\n") }
    guard first.starts(with: Array("#!".utf8)) else { return nil }
    let words = String(decoding: first.dropFirst(2), as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" })
      .map(String.init)
    guard var interpreter = words.first else { return nil }
    if interpreter.hasSuffix("/env"), words.count > 1 {
      guard let found = HookProgram.resolve(words[1], environment: environment) else { return nil }
      interpreter = found
    }
    return interpreter.split(separator: "/").last?.hasPrefix("python") == true ? interpreter : nil
  }
}
