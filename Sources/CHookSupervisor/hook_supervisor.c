// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

#define _GNU_SOURCE
#include "hook_supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/// Reaps every child that has exited; returns 1 when no child is left. Records the hook's status.
static int reap(pid_t hook, int *hook_status) {
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      if (pid == hook) *hook_status = status;
      continue;
    }
    if (pid < 0 && errno == EINTR) continue;
    return pid < 0 && errno == ECHILD;
  }
}

/// Sends `sig` to every child of this process (and to the group each leads), and to the hook's group.
/// Children are read from /proc/thread-self/children: the supervisor has one thread.
static void signal_children(pid_t hook, int sig) {
  kill(-hook, sig);
  int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char buffer[4096];
  ssize_t n;
  long pid = 0;
  int in_number = 0;
  while ((n = read(fd, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    for (ssize_t i = 0; i < n; i++) {
      char c = buffer[i];
      if (c >= '0' && c <= '9') {
        pid = pid * 10 + (c - '0');
        in_number = 1;
      } else if (in_number) {
        kill((pid_t)pid, sig);
        kill(-(pid_t)pid, sig);
        pid = 0;
        in_number = 0;
      }
    }
  }
  if (in_number) {
    kill((pid_t)pid, sig);
    kill(-(pid_t)pid, sig);
  }
  close(fd);
}

/// SIGTERM to everything below, a grace, then SIGKILL until nothing is left.
static void kill_all(pid_t hook, int *hook_status, long grace_ms) {
  signal_children(hook, SIGTERM);
  long until = now_ms() + grace_ms;
  while (!reap(hook, hook_status) && now_ms() < until) {
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  // Killed processes hand their own children to us (we are their subreaper), so repeat until none is left.
  for (int round = 0; round < 10000 && !reap(hook, hook_status); round++) {
    signal_children(hook, SIGKILL);
    struct timespec pause = {0, 2 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
}

static void report(int fd, char kind, int status, int error) {
  watcher_hook_report message = {kind, status, error};
  const char *p = (const char *)&message;
  size_t left = sizeof message;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= (size_t)n;
  }
}

static void close_from(int lowest) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, lowest, ~0U, 0) == 0) return;
#endif
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = lowest; fd < max; fd++) close(fd);
}

static void supervise(const char *path, char *const argv[], char *const envp[], int fds[4], long timeout_ms,
                      long grace_ms) {
  long started = now_ms();
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, NULL);
  // Standard streams on 0-2 and the status pipe on 3, whatever numbers they had; nothing else stays open
  // (watcher's other pipes, its state lock, its sockets).
  for (int i = 0; i < 4; i++) fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10);
  for (int i = 0; i < 4; i++) {
    if (fds[i] < 0 || dup2(fds[i], i) < 0) _exit(127);
  }
  close_from(4);
  fcntl(3, F_SETFD, FD_CLOEXEC);
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

  sigset_t wanted;
  sigemptyset(&wanted);
  sigaddset(&wanted, SIGCHLD);
  sigaddset(&wanted, SIGTERM);
  int sfd = signalfd(-1, &wanted, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) {
    report(3, 'X', -1, errno);
    _exit(127);
  }

  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&attributes, &empty);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  pid_t hook = 0;
  int spawned = posix_spawn(&hook, path, NULL, &attributes, argv, envp);
  if (spawned != 0) {
    report(3, 'X', -1, spawned);
    _exit(127);
  }
  // The hook's streams belong to it now.
  int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int i = 0; i < 3; i++) dup2(devnull, i);

  int hook_status = -1;
  long deadline = started + timeout_ms;
  for (;;) {
    struct pollfd watch[2] = {{sfd, POLLIN, 0}, {3, 0, 0}};
    long left = deadline - now_ms();
    if (left <= 0) {
      kill_all(hook, &hook_status, grace_ms);
      report(3, 'T', hook_status, 0);
      _exit(0);
    }
    int ready = poll(watch, 2, (int)(left > 60000 ? 60000 : left));
    if (ready < 0 && errno != EINTR) break;
    if (watch[1].revents & (POLLERR | POLLHUP)) break;  // watcher is gone
    if (watch[0].revents & POLLIN) {
      struct signalfd_siginfo info;
      int stop = 0;
      while (read(sfd, &info, sizeof info) == (ssize_t)sizeof info) {
        if (info.ssi_signo == SIGTERM) stop = 1;
      }
      if (stop) {
        kill_all(hook, &hook_status, grace_ms);
        report(3, 'C', hook_status, 0);
        _exit(0);
      }
      reap(hook, &hook_status);
      if (hook_status != -1) {
        report(3, 'E', hook_status, 0);
        _exit(0);
      }
    }
  }
  kill_all(hook, &hook_status, grace_ms);
  _exit(0);
}

pid_t watcher_hook_spawn(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd,
                         int stderr_fd, int status_fd, long timeout_ms, long grace_ms) {
  pid_t pid = fork();
  if (pid < 0) return -errno;
  if (pid == 0) {
    int fds[4] = {stdin_fd, stdout_fd, stderr_fd, status_fd};
    supervise(path, argv, envp, fds, timeout_ms, grace_ms);
    _exit(127);
  }
  return pid;
}

int watcher_cloexec_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
