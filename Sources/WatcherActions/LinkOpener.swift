// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Opens a link in the user's browser with `xdg-open LINK`: the link is one argument, never shell text.
public enum LinkOpener {
  /// Starts `xdg-open` with an empty signal mask and reaps it in the background.
  ///
  /// Only http(s) links are opened. The corresponding C functions are `posix_spawnp` and `waitpid`.
  public static func open(_ link: String) {
    guard isWebLink(link) else { return }
    var attributes = HookRunner.spawnAttributes(newProcessGroup: false)
    defer { posix_spawnattr_destroy(&attributes) }
    var argv: [UnsafeMutablePointer<CChar>?] = [strdup("xdg-open"), strdup(link), nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    guard posix_spawnp(&pid, "xdg-open", nil, &attributes, &argv, environ) == 0 else { return }
    let child = pid
    Threads.spawn { waitpid(child, nil, 0) }
  }

  /// Whether `link` is http(s): a feed's `file:`, `javascript:`, `smb:` or custom-scheme link is never
  /// handed to xdg-open, which would start whatever program claims it.
  package static func isWebLink(_ link: String) -> Bool { FeedLocation.isHTTP(link) }
}
