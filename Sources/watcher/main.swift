// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherCLI

let arguments = Array(CommandLine.arguments.dropFirst())
WatcherCLI.prepareProcess(arguments)
let code = WatcherCLI.run(arguments)
WatcherCLI.finishProcess()
exit(code)
