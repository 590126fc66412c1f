// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherState

/// What a test checks of a pending action's payload; the product switches over `payload` instead.
extension FeedState.PendingAction {
  public var notification: Notification? {
    if case .notify(let value) = payload { return value }
    return nil
  }

  public var hook: Hook? {
    if case .hook(let value) = payload { return value }
    return nil
  }

  public var webhook: Webhook? {
    if case .webhook(let value) = payload { return value }
    return nil
  }

  public var apprise: Apprise? {
    if case .apprise(let value) = payload { return value }
    return nil
  }
}
