// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Opens a link in the user's browser with `xdg-open LINK`: the link is one argument, never shell text.
enum LinkOpener {
  /// Starts `xdg-open` with an empty signal mask and reaps it in the background.
  ///
  /// Only http(s) links are opened. The corresponding C functions are `posix_spawnp` and `waitpid`.
  static func open(_ link: String) {
    let lower = link.lowercased()
    guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var argv: [UnsafeMutablePointer<CChar>?] = [strdup("xdg-open"), strdup(link), nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    guard posix_spawnp(&pid, "xdg-open", nil, &attributes, &argv, environ) == 0 else { return }
    let child = pid
    Thread.detachNewThread { waitpid(child, nil, 0) }
  }
}
