// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherCLI

let arguments = Array(CommandLine.arguments.dropFirst())
WatcherCLI.prepareProcess(arguments)
exit(WatcherCLI.run(arguments))
