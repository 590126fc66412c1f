// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherCLI

exit(WatcherCLI.run(Array(CommandLine.arguments.dropFirst())))
