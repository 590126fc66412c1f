// SPDX-License-Identifier: MIT
// Copyright the watcher authors.
//
// A hook's supervisor: a small forked process that runs one hook and answers for every process it starts.
#ifndef WATCHER_HOOK_SUPERVISOR_H
#define WATCHER_HOOK_SUPERVISOR_H

#include <sys/types.h>

/// What the supervisor writes on its status pipe, once, just before it exits.
typedef struct {
  /// 'E': the hook exited by itself; 'T': it ran past its timeout and everything it started was killed;
  /// 'C': watcher asked to stop it (SIGTERM to the supervisor) and everything was killed;
  /// 'X': the program could not be started (`error` holds errno).
  char kind;
  /// The hook's wait status (as from waitpid), when it was reaped; -1 when not.
  int status;
  /// errno for 'X'.
  int error;
} watcher_hook_report;

/// Forks a supervisor that starts `path` with `argv` and `envp` (in a process group of its own, every signal
/// at its default and unblocked), with `stdin_fd`, `stdout_fd` and `stderr_fd` as its standard streams, and
/// returns the supervisor's pid (or -errno).
///
/// The supervisor is a child subreaper (PR_SET_CHILD_SUBREAPER), so every process the hook starts, even one
/// that calls setsid, stays its descendant. It writes one `watcher_hook_report` to `status_fd` and exits:
/// - as soon as the hook itself exits ('E'); what the hook left running in the background keeps running;
/// - after `timeout_ms` ('T'), or on SIGTERM ('C'): it sends SIGTERM to every process below it, waits up to
///   `grace_ms` for them to go, then SIGKILLs whatever is left, until none is left;
/// - when the read end of `status_fd` closes (watcher died), it kills everything the same way.
/// Only async-signal-safe calls run between fork and exit, so it is safe to call from any thread.
pid_t watcher_hook_spawn(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd,
                         int stderr_fd, int status_fd, long timeout_ms, long grace_ms);

/// pipe2(fds, O_CLOEXEC), which Swift's Glibc module does not export; 0 or -1 with errno.
int watcher_cloexec_pipe(int fds[2]);

#endif
