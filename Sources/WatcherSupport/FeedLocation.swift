// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// Where a feed lives: an http(s) URL, a `file://` URL or a path.
///
/// The one place that tells them apart.
public enum FeedLocation {
  /// Whether `url` is fetched over HTTP(S) rather than read from a file (case-insensitive scheme).
  public static func isHTTP(_ url: some StringProtocol) -> Bool {
    let lower = url.prefix(8).lowercased()
    return lower.hasPrefix("http://") || lower.hasPrefix("https://")
  }

  /// A local path for a `file://` URL or a plain path (`~` expanded).
  public static func path(of url: String) -> String {
    if url.lowercased().hasPrefix("file://") { return URL(string: url)?.path ?? String(url.dropFirst(7)) }
    return HomePath.expand(url)
  }

  /// `url` with a relative path resolved against `directory` (a URL, an absolute path or `~/…` is kept).
  public static func resolve(_ url: String, against directory: String?) -> String {
    guard let directory, !url.isEmpty, !URLResolver.hasScheme(url), !url.hasPrefix("/"), !url.hasPrefix("~")
    else { return url }
    return URL(fileURLWithPath: directory).appendingPathComponent(url).standardizedFileURL.path
  }

  /// One spelling for each feed, to find the same feed written twice.
  ///
  /// HTTP(S): scheme and host in lower case, the default port dropped, an empty path as `/`, no fragment.
  /// Files: the absolute, standardized path (`./a/../feed.xml` and `file:///…/feed.xml` are one file).
  public static func normalized(_ url: String) -> String {
    if isHTTP(url) {
      guard var components = URLComponents(string: url) else { return url }
      components.scheme = components.scheme?.lowercased()
      components.host = components.host?.lowercased()
      if components.port == 80 && components.scheme == "http" || components.port == 443 && components.scheme == "https"
      {
        components.port = nil
      }
      if components.path.isEmpty { components.path = "/" }
      components.fragment = nil
      return components.string ?? url
    }
    let path = path(of: url)
    // A relative path (only when no directory was known to resolve it) is keyed as if under /.
    return URL(fileURLWithPath: path.hasPrefix("/") ? path : "/" + path).standardizedFileURL.path
  }
}
