// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// Where a `run:` hook's program is: checked by `watcher check`, resolved again when the hook runs.
public enum HookProgram {
  /// The absolute path of `program`: itself when it has a `/` (after `~`), else the first executable of
  /// that name in `PATH` (`environment`'s, else this process's); `nil` when there is none.
  public static func resolve(_ program: String, environment: [String: String]? = nil) -> String? {
    let expanded = HomePath.expand(program, environment: environment)
    if expanded.contains("/") { return FileManager.default.isExecutableFile(atPath: expanded) ? expanded : nil }
    let path = (environment ?? ProcessInfo.processInfo.environment)["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") where !directory.isEmpty {
      let candidate = "\(directory)/\(expanded)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// What is wrong with an absolute program or script path, or `nil` when it is an executable file.
  public enum PathProblem: Sendable, Equatable {
    /// Nothing is there.
    case missing
    /// A file is there, but it is not executable.
    case notExecutable
  }

  /// Whether `path` is the system shell under any name: the file `/bin/sh` is (`/usr/bin/sh`, `dash`).
  public static func isSystemShell(_ path: String) -> Bool {
    var shell = stat()
    var file = stat()
    guard stat("/bin/sh", &shell) == 0, stat(path, &file) == 0 else { return false }
    return shell.st_dev == file.st_dev && shell.st_ino == file.st_ino
  }

  /// The program and arguments of a shell command that only starts one program, with literal words, so
  /// that watcher can start it without the shell: the system shell itself (`sh -c 'CODE' [NAME ARGS…]`,
  /// `sh SCRIPT`; `sh` or a path to it), or a path to a program or a `#!` script (`/usr/local/bin/announce
  /// 'new post'`, `~/bin/hook.sh`).
  ///
  /// Every word must be a literal (quoted or plain: nothing the outer shell would expand, but a leading
  /// `~/`, which is HOME's). `nil` for any other command; for a first word without a `/` but `sh`, which
  /// the shell might take for a builtin; and for a file the shell would not hand to `execve` as it is
  /// (missing, not executable, a directory, or a script without `#!`, which the shell reads itself).
  /// Starting it straight away does what the outer shell would have done, with one shell started fewer.
  public static func directProgram(of command: String, environment: [String: String]? = nil) -> (
    program: String, arguments: [String]
  )? {
    var text = Substring(command)
    while let first = text.first, first == " " || first == "\t" || first == "\n" { text = text.dropFirst() }
    var home = ""
    if text.hasPrefix("~/") {
      guard let value = (environment ?? ProcessInfo.processInfo.environment)["HOME"], !value.isEmpty else { return nil }
      home = value
      text = text.dropFirst()
    }
    // A quoted `~` is the shell's literal `~`, which `resolve` would expand.
    guard var words = literalWords(String(text)), let first = words.first, first == "sh" || first.contains("/"),
      !first.hasPrefix("~")
    else { return nil }
    words[0] = home + first
    guard let program = resolve(words[0], environment: environment),
      isSystemShell(program) || startsByItself(program)
    else { return nil }
    return (program, words)
  }

  /// Whether `execve` runs `path` as it is: a regular file that starts with `#!` or is an ELF program.
  static func startsByItself(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var head: [UInt8] = [0, 0, 0, 0]
    guard read(fd, &head, 4) == 4 else { return false }
    return head[0...1] == [0x23, 0x21] || head == [0x7F, 0x45, 0x4C, 0x46]
  }

  /// The words of a simple command written only with literals: plain characters that mean nothing to the
  /// shell, `\`-escaped characters, '…', and "…" without `$`, `` ` `` or `\`; `nil` when anything in it
  /// would be expanded, redirected, assigned or taken as a second command.
  static func literalWords(_ command: String) -> [String]? {
    var words: [String] = []
    var word: [UInt8] = []
    var inWord = false
    var bytes = Array(command.utf8)[...]
    while let byte = bytes.first, byte == 0x20 || byte == 0x09 || byte == 0x0A { bytes.removeFirst() }
    while let byte = bytes.last, byte == 0x20 || byte == 0x09 || byte == 0x0A { bytes.removeLast() }
    while let byte = bytes.popFirst() {
      switch byte {
      case 0x20, 0x09:
        if inWord { words.append(String(decoding: word, as: UTF8.self)) }
        word = []
        inWord = false
      case UInt8(ascii: "'"):
        guard let end = bytes.firstIndex(of: UInt8(ascii: "'")) else { return nil }
        word += bytes[..<end]
        bytes = bytes[(end + 1)...]
        inWord = true
      case UInt8(ascii: "\\"):
        // An escaped character is itself (the `'\''` of a quoted quote); an escaped newline joins lines.
        guard let next = bytes.popFirst(), next != 0x0A else { return nil }
        word.append(next)
        inWord = true
      case UInt8(ascii: "\""):
        guard let end = bytes.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let quoted = bytes[..<end]
        guard
          !quoted.contains(where: { $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: "`") || $0 == UInt8(ascii: "\\") })
        else { return nil }
        word += quoted
        bytes = bytes[(end + 1)...]
        inWord = true
      default:
        // Letters, digits and punctuation the shell gives no meaning to (`=` only past the first word,
        // where it cannot be an assignment).
        let plain =
          (byte >= 0x80 || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || "-_./,:+@%".utf8.contains(byte)
            || (byte == UInt8(ascii: "=") && !words.isEmpty))
        guard plain else { return nil }
        word.append(byte)
        inWord = true
      }
    }
    if inWord { words.append(String(decoding: word, as: UTF8.self)) }
    return words
  }

  /// Checks an absolute path (`~` expanded by the caller).
  public static func problem(at path: String) -> PathProblem? {
    if FileManager.default.isExecutableFile(atPath: path) { return nil }
    return FileManager.default.fileExists(atPath: path) ? .notExecutable : .missing
  }
}
