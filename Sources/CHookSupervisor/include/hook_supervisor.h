// SPDX-License-Identifier: MIT
// Copyright the watcher authors.
//
// Hook supervisors: small processes that run hooks and answer for every process a hook starts.
#ifndef WATCHER_HOOK_SUPERVISOR_H
#define WATCHER_HOOK_SUPERVISOR_H

#include <sys/types.h>

/// What a supervisor writes on a hook's status pipe, once, when the hook is done.
typedef struct {
  /// 'E': the hook exited by itself; 'T': it ran past its timeout and everything it started was killed;
  /// 'C': watcher asked to stop it (the control pipe) and everything was killed;
  /// 'X': the program could not be started (`error` holds errno).
  char kind;
  /// Whether the supervisor takes further hooks (1), or retired (0) because this hook left processes
  /// running in the background, which must not be mistaken for a later hook's.
  char reusable;
  /// The hook's wait status (as from waitpid), when it was reaped; -1 when not.
  int status;
  /// errno for 'X'.
  int error;
} watcher_hook_report;

/// Forks the spawner: a small single-threaded process that forks supervisors.
///
/// Call it at start, before any thread exists, while the process is small: supervisors are then forks of
/// this small process, not of the grown, multi-threaded watcher. Without it, the first hook starts it.
/// The spawner and its supervisors exit when watcher does.
void watcher_hook_zygote_start(void);

/// Lets go of the idle supervisors and the spawner, and waits for the spawner, which waits for them: the
/// hooks' CPU time then counts as this process's children's. Call before exiting; waits 2 s at most.
void watcher_hook_zygote_finish(void);

/// Starts `path` with `argv` and `envp` (in a process group of its own, every signal at its default and
/// unblocked), with `stdin_fd`, `stdout_fd` and `stderr_fd` as its standard streams, under a supervisor.
/// Returns the supervisor's handle (a socket, >= 0), or -errno when the request could not be made. The
/// caller keeps its descriptors.
///
/// A supervisor is a child subreaper (PR_SET_CHILD_SUBREAPER) that runs one hook at a time, so every
/// process the hook starts, even one that calls setsid, stays its descendant. A shell hook (`path` is
/// /bin/sh, `argv` is `sh -c COMMAND`, the three streams are pipes) runs as a subshell of a `/bin/sh` the
/// supervisor keeps (in a process group of its own): `$$` is then that shell's pid, and a hook killed by
/// signal N reports exit 128+N, as any shell does; a hook that kills that shell reports its signal. It sends one
/// `watcher_hook_report` on the handle (read it with read(2)):
/// - as soon as the hook itself exits ('E'); what the hook left running in the background keeps running
///   (the supervisor then retires, leaving those processes to the system);
/// - after `timeout_ms` ('T'), after `watcher_hook_stop` ('C'), or when the handle closes (watcher died or
///   gave up; no report then): it sends SIGTERM to every process below it, waits up to `grace_ms`, then
///   SIGKILLs whatever is left, until none is left.
/// Give the handle back with `watcher_hook_release` once the report is read.
int watcher_hook_spawn(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd,
                       int stderr_fd, long timeout_ms, long grace_ms);

/// Asks the supervisor behind `handle` to end its hook and everything it started.
void watcher_hook_stop(int handle);

/// Gives a supervisor back after its report: kept for the next hook when `reusable`, else closed.
void watcher_hook_release(int handle, int reusable);

/// pipe2(fds, O_CLOEXEC), which Swift's Glibc module does not export; 0 or -1 with errno.
int watcher_cloexec_pipe(int fds[2]);

#endif
