// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherCLI

let arguments = Array(CommandLine.arguments.dropFirst())
WatcherCLI.prepareProcess(arguments)
exit(WatcherCLI.run(arguments))
