// SPDX-License-Identifier: MIT
// Copyright the watcher authors.
//
// Hook supervisors and the spawner that forks them. Processes here are single-threaded C: nothing touches
// Swift, and the one fork made from watcher (the spawner's, at start or on first use) runs only
// async-signal-safe code before it settles.
//
// Why not a fork per hook: on virtual machines a fork of watcher costs several times that of a small
// process, which tripled the cost of a hook (docs/benchmarks.md, "Measurements behind the code"). A supervisor is forked once and
// runs hooks one after another.
//
// Why a shell host: a shell hook (`/bin/sh -c COMMAND`) started with posix_spawn costs an exec of the shell,
// its dynamic linking and start-up; a subshell forked by a shell that is already running costs a fifth of
// that. So a supervisor keeps a shell reading commands from a pipe (the host) and
// hands it each shell hook as `( … )`: the host forks the subshell, waits for it and writes its status on a
// pipe. Item data reaches the host only inside single quotes, which the shell takes byte for byte (every
// byte but NUL, which no environment can hold); the command is the user's, run with `eval` in the subshell,
// and a shell script (`#!/bin/sh`) is read with `.` in it. A subshell cannot change `$0`, so a host has the
// `$0` its hooks need, and a supervisor keeps two.

#define _GNU_SOURCE
#include "hook_supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { FD_STDIN, FD_STDOUT, FD_STDERR, FD_BLOB, REQUEST_FDS };

/// A request's fixed part. The strings (path, argv, envp, each NUL-terminated) follow it in the same
/// message when they are small (`inline_size`), else they are in a memfd sent as a fourth descriptor.
typedef struct {
  int32_t argc;
  int32_t envc;
  int64_t timeout_ms;
  int64_t grace_ms;
  int64_t inline_size;
} request_header;

/// The largest request sent in one message; larger string sets go through a memfd.
enum { INLINE_MAX = 96 * 1024 };

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void pause_ms(long ms) {
  struct timespec pause = {0, ms * 1000 * 1000};
  nanosleep(&pause, NULL);
}

/// Waits up to `ms` for the child `pid` to end; returns whether it did (or is no child of ours).
static int wait_bounded(pid_t pid, long ms) {
  for (long until = now_ms() + ms;; pause_ms(1)) {
    pid_t done = waitpid(pid, NULL, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) return 1;
    if (now_ms() >= until) return 0;
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

// MARK: - Messages with descriptors

/// Receives one message into `buffer` and up to `max_fds` descriptors (close-on-exec) into `fds`; returns
/// the message's length (0 when the other end closed, -1 on error) and sets `*received`.
static ssize_t receive(int sock, void *buffer, size_t size, int *fds, int max_fds, int *received) {
  struct iovec io = {buffer, size};
  union {
    char buffer[CMSG_SPACE(sizeof(int) * 8)];
    struct cmsghdr align;
  } control;
  struct msghdr message;
  memset(&message, 0, sizeof message);
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control.buffer;
  message.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)max_fds);
  ssize_t n;
  do {
    n = recvmsg(sock, &message, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  *received = 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); n >= 0 && c; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      if (count > max_fds) count = max_fds;
      memcpy(fds, CMSG_DATA(c), sizeof(int) * (size_t)count);
      *received = count;
    }
  }
  return n;
}

/// Sends one message of `size` bytes with `count` descriptors; returns whether all of it went.
static int transmit(int sock, const void *buffer, size_t size, const int *fds, int count) {
  union {
    char buffer[CMSG_SPACE(sizeof(int) * 8)];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  struct iovec io = {(void *)buffer, size};
  struct msghdr message;
  memset(&message, 0, sizeof message);
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control.buffer;
  message.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)count);
  struct cmsghdr *c = CMSG_FIRSTHDR(&message);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)count);
  memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)count);
  ssize_t sent;
  do {
    sent = sendmsg(sock, &message, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  return sent == (ssize_t)size;
}

// MARK: - A supervisor

/// A shell this supervisor keeps and feeds shell hooks to, one at a time (see the top of this file).
typedef struct {
  /// 0 when there is none.
  pid_t pid;
  /// Its standard input, where hooks are written (non-blocking).
  int commands;
  /// Its descriptor 3, where it writes each hook's exit status as a line.
  int statuses;
  /// The environment it started with: hooks whose environment differs from it only in values and added
  /// variables get those as `export` lines; any other difference starts a new host.
  char *environment;
  size_t environment_size;
  size_t environment_count;
  /// Its `$0`, which a subshell cannot change: a hook that needs another gets another host.
  char *name;
  /// When it last took a hook (a count); the host replaced is the one used least recently.
  unsigned long used;
  /// Its wait status once reaped, else -1.
  int status;
} shell_host;

#define NO_HOST {0, -1, -1, NULL, 0, 0, NULL, 0, -1}

/// Two hosts, so that hooks of two kinds taking turns (a `hook:` command, `$0` `/bin/sh`, and a `run:`
/// script, `$0` its path) each keep theirs.
enum { HOSTS = 2 };
static shell_host hosts[HOSTS] = {NO_HOST, NO_HOST};

/// Reaps every child that has exited; returns 1 when no child is left. Records the hook's status.
static int reap(pid_t hook, int *hook_status) {
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      if (pid == hook) *hook_status = status;
      for (int i = 0; i < HOSTS; i++) {
        if (pid == hosts[i].pid) hosts[i].status = status;
      }
      continue;
    }
    if (pid < 0 && errno == EINTR) continue;
    return pid < 0 && errno == ECHILD;
  }
}

/// Calls `each` with every child of this process, read from /proc/thread-self/children (a supervisor has
/// one thread); returns 0 when they cannot be read.
static int for_each_child(void (*each)(pid_t, void *), void *context) {
  int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
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
        each((pid_t)pid, context);
        pid = 0;
        in_number = 0;
      }
    }
  }
  if (in_number) each((pid_t)pid, context);
  close(fd);
  return 1;
}

static void signal_child(pid_t pid, void *sig) {
  kill(pid, *(int *)sig);
  kill(-pid, *(int *)sig);
}

/// Sends `sig` to the group `leader` leads, and to every child of this process and the group each leads.
static void signal_children(pid_t leader, int sig) {
  kill(-leader, sig);
  for_each_child(signal_child, &sig);
}

/// SIGTERM to everything below, a grace, then SIGKILL until nothing is left.
static void kill_all(pid_t leader, pid_t hook, int *hook_status, long grace_ms) {
  signal_children(leader, SIGTERM);
  long until = now_ms() + grace_ms;
  while (!reap(hook, hook_status) && now_ms() < until) pause_ms(10);
  // Killed processes hand their own children to us (we are their subreaper), so repeat until none is left.
  for (int round = 0; round < 10000 && !reap(hook, hook_status); round++) {
    signal_children(leader, SIGKILL);
    pause_ms(2);
  }
}

/// posix_spawn of `path` with `fds` as its descriptors 0, 1, 2 (and `status_fd`, when >= 0, as 3; a -1 in
/// `fds` is /dev/null), in a process group of its own with an empty signal mask; 0 or an errno.
static int spawn_in_group(pid_t *pid, const char *path, char *const argv[], char *const envp[], const int *fds,
                          int status_fd) {
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setsigmask(&attributes, &empty);
  posix_spawnattr_setpgroup(&attributes, 0);
  // Every disposition is already the default here (supervisor_loop), so no POSIX_SPAWN_SETSIGDEF: it
  // would cost one sigaction per signal in every spawn.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (int i = 0; i < 3; i++) {
    if (fds[i] >= 0) {
      posix_spawn_file_actions_adddup2(&actions, fds[i], i);
    } else {
      posix_spawn_file_actions_addopen(&actions, i, "/dev/null", O_RDWR, 0);
    }
  }
  if (status_fd >= 0) posix_spawn_file_actions_adddup2(&actions, status_fd, 3);
  int spawned = posix_spawn(pid, path, &actions, &attributes, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  return spawned;
}

// MARK: - The shell host

/// A growing buffer of text.
typedef struct {
  char *bytes;
  size_t length;
  size_t capacity;
  int failed;
} text;

static void text_append(text *t, const char *bytes, size_t length) {
  if (t->failed) return;
  if (t->length + length > t->capacity) {
    size_t capacity = t->capacity ? t->capacity : 4096;
    while (capacity < t->length + length) capacity *= 2;
    char *grown = realloc(t->bytes, capacity);
    if (!grown) {
      t->failed = 1;
      return;
    }
    t->bytes = grown;
    t->capacity = capacity;
  }
  memcpy(t->bytes + t->length, bytes, length);
  t->length += length;
}

static void text_add(text *t, const char *string) { text_append(t, string, strlen(string)); }

/// `bytes` in single quotes, each `'` written as `'\''`: the shell reads it as exactly those bytes.
static void text_quoted(text *t, const char *bytes, size_t length) {
  text_append(t, "'", 1);
  const char *end = bytes + length;
  for (const char *p = bytes; p < end;) {
    const char *quote = memchr(p, '\'', (size_t)(end - p));
    size_t run = quote ? (size_t)(quote - p) : (size_t)(end - p);
    text_append(t, p, run);
    if (!quote) break;
    text_append(t, "'\\''", 4);
    p = quote + 1;
  }
  text_append(t, "'", 1);
}

/// Set once a host could not open this supervisor's descriptors through /proc (this process is not
/// dumpable, for one: its program cannot be read by the user who runs it, or a security module forbids it).
/// Shell hooks are then spawned.
static int host_unreachable = 0;

/// A hook as a host runs it: in a subshell with `$0` NAME (the host's) and `$1`… ARGUMENTS, either CODE
/// with `eval` or SCRIPT with `.` after `set OPTIONS`.
typedef struct {
  const char *name;
  char *const *arguments;
  const char *code;
  const char *script;
  char options[16];
} hosted_hook;

/// Whether `path` is the file `/bin/sh` is, under any name.
static int system_shell(const char *path) {
  struct stat shell, file;
  return stat("/bin/sh", &shell) == 0 && stat(path, &file) == 0 && shell.st_dev == file.st_dev &&
         shell.st_ino == file.st_ino;
}

/// Whether `path` is a regular file this process may read (and, with `executable`, execute).
static int usable_file(const char *path, int executable) {
  struct stat info;
  return stat(path, &info) == 0 && S_ISREG(info.st_mode) && access(path, executable ? R_OK | X_OK : R_OK) == 0;
}

/// Whether `path` is a program the system shell runs: an executable file whose `#!` line names `/bin/sh`'s
/// file, with no argument or options `set` takes as well (`#!/bin/sh -eu`), put in `options` ("" for none).
static int shell_script(const char *path, char options[16]) {
  if (!usable_file(path, 1)) return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  // The kernel reads the `#!` line from the first 256 bytes.
  char line[257];
  ssize_t n;
  do {
    n = read(fd, line, sizeof line - 1);
  } while (n < 0 && errno == EINTR);
  close(fd);
  if (n < 3 || line[0] != '#' || line[1] != '!') return 0;
  char *end = memchr(line, '\n', (size_t)n);
  if (!end) return 0;
  *end = 0;
  char *p = line + 2;
  while (*p == ' ' || *p == '\t') p++;
  char *interpreter = p;
  while (*p && *p != ' ' && *p != '\t') p++;
  if (*p) *p++ = 0;
  while (*p == ' ' || *p == '\t') p++;
  // The rest of the line, without the blanks around it, is one argument.
  size_t length = strlen(p);
  while (length > 0 && (p[length - 1] == ' ' || p[length - 1] == '\t')) length--;
  p[length] = 0;
  if (length > 0 && (p[0] != '-' || length < 2 || length >= 16 || strspn(p + 1, "aCefux") != length - 1)) return 0;
  memcpy(options, p, length + 1);
  return system_shell(interpreter);
}

/// Whether a hook runs in a host, and how: `/bin/sh -c CODE [NAME [ARGUMENT...]]`, `/bin/sh SCRIPT
/// [ARGUMENT...]` (`/bin/sh` under any name: `/usr/bin/sh`, `dash`), or a program that is a shell script
/// (`shell_script`), with pipes for its three streams. `$0` is what a shell of its own would have had:
/// NAME, else the shell's own name; SCRIPT; the program's path.
static int host_takes(const char *path, char *const argv[], const int *fds, hosted_hook *hook) {
  static char *const none[] = {NULL};
  for (int i = 0; i < 3; i++) {
    struct stat info;
    if (fstat(fds[i], &info) != 0 || !S_ISFIFO(info.st_mode)) return 0;
  }
  if (host_unreachable) return 0;
  memset(hook, 0, sizeof *hook);
  if (strcmp(path, "/bin/sh") != 0 && !system_shell(path)) {
    hook->name = hook->script = path;
    hook->arguments = argv[0] ? argv + 1 : none;
    return strchr(path, '/') && shell_script(path, hook->options);
  }
  if (!argv[0] || !argv[1]) return 0;
  if (strcmp(argv[1], "-c") == 0 && argv[2]) {
    hook->code = argv[2];
    hook->name = argv[3] ? argv[3] : argv[0];
    hook->arguments = argv[3] ? argv + 4 : none;
    return 1;
  }
  hook->name = hook->script = argv[1];
  hook->arguments = argv + 2;
  return argv[1][0] != '-' && argv[1][0] != '+' && usable_file(argv[1], 0);
}

/// Lets go of a host's descriptors and environment (the process itself is reaped elsewhere).
static void host_forget(shell_host *h) {
  if (h->commands >= 0) close(h->commands);
  if (h->statuses >= 0) close(h->statuses);
  free(h->environment);
  free(h->name);
  *h = (shell_host)NO_HOST;
}

/// Lets go of the hosts that have been reaped (a hook killed one, or it died while idle).
static void hosts_forget_gone(void) {
  for (int i = 0; i < HOSTS; i++) {
    if (hosts[i].status != -1) host_forget(&hosts[i]);
  }
}

/// Ends an idle host: its input closes, it exits, and it is waited for (its CPU time, and that of every
/// hook it ran, then counts as this supervisor's children's). Waits 2 s at most, then kills it.
static void host_end(shell_host *h) {
  if (h->pid > 0 && h->status == -1) {
    close(h->commands);
    h->commands = -1;
    if (!wait_bounded(h->pid, 2000)) {
      kill(h->pid, SIGKILL);
      while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR) {
      }
    }
  }
  host_forget(h);
}

static void hosts_end(void) {
  for (int i = 0; i < HOSTS; i++) host_end(&hosts[i]);
}

/// Starts `h` with `$0` `name` and `envp`; returns whether it runs. It is `sh -c '. /dev/stdin' NAME`: the
/// shell keeps its own name (bash as `sh` stays POSIX) and `$0` is NAME.
static int host_start(shell_host *h, const char *name, char *const envp[]) {
  int commands[2], statuses[2];
  if (pipe2(commands, O_CLOEXEC) != 0) return 0;
  if (pipe2(statuses, O_CLOEXEC) != 0) {
    close(commands[0]);
    close(commands[1]);
    return 0;
  }
  size_t size = 0, count = 0;
  for (char *const *e = envp; *e; e++, count++) size += strlen(*e) + 1;
  char *environment = malloc(size + 1);
  char *own_name = strdup(name);
  int spawned = environment && own_name ? 0 : ENOMEM;
  pid_t pid = 0;
  if (spawned == 0) {
    char *p = environment;
    for (char *const *e = envp; *e; e++) {
      size_t length = strlen(*e) + 1;
      memcpy(p, *e, length);
      p += length;
    }
    char *argv[] = {"sh", "-c", ". /dev/stdin", own_name, NULL};
    int streams[3] = {commands[0], -1, -1};
    spawned = spawn_in_group(&pid, "/bin/sh", argv, envp, streams, statuses[1]);
  }
  close(commands[0]);
  close(statuses[1]);
  if (spawned != 0) {
    free(environment);
    free(own_name);
    close(commands[1]);
    close(statuses[0]);
    return 0;
  }
  *h = (shell_host){pid, commands[1], statuses[0], environment, size, count, own_name, 0, -1};
  // It opens each hook's pipes as /proc/SUPERVISOR/fd/N: first it is asked whether it can, by the same
  // permission check (an access of one of this process's descriptors through /proc).
  char probe[128];
  int length = snprintf(probe, sizeof probe, "if [ -w /proc/%d/fd/%d ]; then echo 0 >&3; else echo 1 >&3; fi\n",
                        (int)getpid(), commands[1]);
  char answer[8] = {0};
  struct pollfd ready = {statuses[0], POLLIN, 0};
  if (write(commands[1], probe, (size_t)length) != length || poll(&ready, 1, 5000) != 1 ||
      read(statuses[0], answer, sizeof answer - 1) <= 0 || answer[0] != '0') {
    host_unreachable = 1;
    host_end(h);
    return 0;
  }
  fcntl(commands[1], F_SETFL, fcntl(commands[1], F_GETFL) | O_NONBLOCK);
  return 1;
}

/// Variables a subshell must not be given by assignment, because the shell reads them at start-up or keeps
/// them itself: a hook whose value differs from the host's gets a new host.
static int special_name(const char *name, size_t length) {
  static const char *const names[] = {"PATH", "IFS",  "PS1",    "PS2",      "PS4",       "PPID",     "PWD",
                                      "OLDPWD", "OPTIND", "OPTARG", "ENV",  "LINENO", "CDPATH", "MAIL",
                                      "MAILPATH", "MAILCHECK", "HISTSIZE", "HOME", NULL};
  for (const char *const *n = names; *n; n++) {
    if (strlen(*n) == length && memcmp(*n, name, length) == 0) return 1;
  }
  return 0;
}

static int shell_name(const char *name, size_t length) {
  if (length == 0 || (name[0] >= '0' && name[0] <= '9')) return 0;
  for (size_t i = 0; i < length; i++) {
    char c = name[i];
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return 0;
  }
  return !special_name(name, length);
}

/// The host's entry `NAME=…` for `name`, or NULL.
static const char *host_entry(const shell_host *h, const char *name, size_t length) {
  for (const char *p = h->environment, *end = h->environment + h->environment_size; p < end;) {
    size_t size = strlen(p);
    if (size > length && p[length] == '=' && memcmp(p, name, length) == 0) return p;
    p += size + 1;
  }
  return NULL;
}

/// Writes the `export` lines that turn the host's environment into `envp`; returns 0 when that cannot be
/// done by assignments (a variable to remove, a special or odd name), and the hook needs a new host.
static int add_environment(text *t, const shell_host *h, char *const envp[]) {
  size_t matched = 0;
  for (char *const *e = envp; *e; e++) {
    const char *equals = strchr(*e, '=');
    if (!equals) return 0;
    size_t length = (size_t)(equals - *e);
    const char *mine = host_entry(h, *e, length);
    if (mine) matched++;
    if (mine && strcmp(mine, *e) == 0) continue;
    if (!shell_name(*e, length)) return 0;
    text_add(t, "export ");
    text_append(t, *e, length + 1);
    text_quoted(t, equals + 1, strlen(equals + 1));
    text_append(t, "\n", 1);
  }
  return matched == h->environment_count;
}

/// The host's text for one hook: a subshell with the hook's environment, arguments and streams that runs
/// its code or script, then its status written on descriptor 3. Returns 0 when the environment needs a new
/// host.
static int host_text(text *t, const shell_host *h, const hosted_hook *hook, char *const envp[], const int *fds) {
  text_add(t, "(\n");
  if (!add_environment(t, h, envp)) return 0;
  if (hook->arguments[0]) {
    text_add(t, "set --");
    for (char *const *a = hook->arguments; *a; a++) {
      text_append(t, " ", 1);
      text_quoted(t, *a, strlen(*a));
    }
    text_append(t, "\n", 1);
  }
  char line[160];
  int pid = (int)getpid();
  // stderr first: should another of them fail to open, the hook's stderr says why.
  snprintf(line, sizeof line, "exec 2>/proc/%d/fd/%d 0</proc/%d/fd/%d 1>/proc/%d/fd/%d 3>&-\n", pid, fds[2], pid,
           fds[0], pid, fds[1]);
  text_add(t, line);
  if (hook->code) {
    text_add(t, "eval ");
    text_quoted(t, hook->code, strlen(hook->code));
  } else {
    if (hook->options[0]) {
      text_add(t, "set ");
      text_add(t, hook->options);
      text_add(t, "\n");
    }
    // `.` looks a name without a slash up in PATH; `sh SCRIPT` reads it where it is.
    text_add(t, strchr(hook->script, '/') ? ". " : ". ./");
    text_quoted(t, hook->script, strlen(hook->script));
  }
  text_add(t, "\n)\necho $? >&3\n");
  return !t->failed;
}

/// Whether any process other than the hosts is still this supervisor's child (one a hook left behind).
static void note_other(pid_t pid, void *others) {
  for (int i = 0; i < HOSTS; i++) {
    if (pid == hosts[i].pid) return;
  }
  *(int *)others = 1;
}

static int others_left(void) {
  int others = 0;
  if (!for_each_child(note_other, &others)) return 1;
  return others;
}

/// Sends the report on the supervisor's socket (one message).
static void report(int fd, char kind, int reusable, int status, int error) {
  watcher_hook_report message;
  memset(&message, 0, sizeof message);
  message.kind = kind;
  message.reusable = (char)reusable;
  message.status = status;
  message.error = error;
  ssize_t n;
  do {
    n = send(fd, &message, sizeof message, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
}

/// Whether nothing but the hosts is left below this supervisor once a hook is done; reaps what has ended.
static int nothing_left(pid_t hook, int *hook_status) {
  int none = reap(hook, hook_status);
  hosts_forget_gone();
  return none || !others_left();
}

/// Closes the supervisor's copies of a hook's three streams.
static void close_streams(int *fds) {
  for (int i = 0; i < 3; i++) {
    if (fds[i] >= 0) close(fds[i]);
    fds[i] = -1;
  }
}

/// Starts `path` for one hook with posix_spawn, in a process group of its own; returns its pid, or 0 with
/// the error reported.
static pid_t spawn_hook(int sock, const char *path, char *const argv[], char *const envp[], int *fds) {
  pid_t hook = 0;
  int spawned = spawn_in_group(&hook, path, argv, envp, fds, -1);
  // The hook's streams belong to it now: this side lets go of them at once.
  close_streams(fds);
  if (spawned != 0) {
    report(sock, 'X', 1, -1, spawned);
    return 0;
  }
  return hook;
}

/// The host a shell hook goes to, with its text: the one with the hook's `$0` and an environment the hook's
/// can be made from, else a new one in place of the one with that `$0` or the one used least recently.
/// NULL (and an empty text) when the hook is to be spawned instead.
static shell_host *hand_to_host(text *commands, const char *path, char *const argv[], char *const envp[],
                                int *fds) {
  static unsigned long uses = 0;
  hosted_hook hook;
  if (!host_takes(path, argv, fds, &hook)) return NULL;
  reap(0, &(int){-1});
  hosts_forget_gone();
  shell_host *chosen = NULL;
  for (int i = 0; i < HOSTS && !chosen; i++) {
    if (hosts[i].pid > 0 && strcmp(hosts[i].name, hook.name) == 0) chosen = &hosts[i];
  }
  if (chosen && host_text(commands, chosen, &hook, envp, fds)) {
    chosen->used = ++uses;
    return chosen;
  }
  commands->length = 0;
  commands->failed = 0;
  if (!chosen) {
    chosen = &hosts[0];
    for (int i = 1; i < HOSTS; i++) {
      if (hosts[i].used < chosen->used) chosen = &hosts[i];
    }
  }
  host_end(chosen);
  if (host_start(chosen, hook.name, envp) && host_text(commands, chosen, &hook, envp, fds)) {
    chosen->used = ++uses;
    return chosen;
  }
  commands->length = 0;
  return NULL;
}

/// Runs one hook to its end, reporting on `sock`; returns whether this supervisor can take another.
///
/// A shell hook goes to a host when it can; anything else is spawned. Either way the timeout runs from
/// here, and on timeout or stop everything below this supervisor is killed (the hosts too: the next shell
/// hook starts another).
static int run_hook(int sock, int sfd, const char *path, char *const argv[], char *const envp[], int *fds,
                    long timeout_ms, long grace_ms) {
  long started = now_ms();
  text commands = {NULL, 0, 0, 0};
  size_t written = 0;
  shell_host *host = hand_to_host(&commands, path, argv, envp, fds);
  int hosted = host != NULL;
  // The process whose wait status is the hook's (none when hosted: the host reports it), and the group
  // that holds it.
  pid_t hook = hosted ? 0 : spawn_hook(sock, path, argv, envp, fds);
  pid_t leader = hosted ? host->pid : hook;
  if (!hosted && hook == 0) {
    free(commands.bytes);
    return 1;
  }

  int hook_status = -1;
  long deadline = started + timeout_ms;
  char kind = 'E';
  int gone = 0;
  for (;;) {
    long left = deadline - now_ms();
    if (left <= 0) {
      kind = 'T';
      break;
    }
    struct pollfd watch[4] = {{sfd, POLLIN, 0}, {sock, POLLIN, 0}, {-1, POLLIN, 0}, {-1, POLLOUT, 0}};
    if (hosted) {
      watch[2].fd = host->statuses;
      if (written < commands.length) watch[3].fd = host->commands;
    }
    int ready = poll(watch, 4, (int)(left > 60000 ? 60000 : left));
    if (ready < 0 && errno != EINTR) {
      kind = 'C';
      break;
    }
    if (watch[1].revents) {  // watcher asks to stop (a message), or is gone (the socket closed)
      char byte;
      gone = recv(sock, &byte, 1, MSG_DONTWAIT) <= 0 && (watch[1].revents & (POLLHUP | POLLERR));
      kind = 'C';
      break;
    }
    if (watch[3].revents) {
      ssize_t n = write(host->commands, commands.bytes + written, commands.length - written);
      if (n > 0) written += (size_t)n;
      // The host is gone: its end shows on its status pipe.
      if (n < 0 && errno != EAGAIN && errno != EINTR) written = commands.length;
    }
    if (watch[2].revents) {
      char line[16];
      ssize_t n = read(host->statuses, line, sizeof line - 1);
      if (n > 0) {
        line[n] = 0;
        hook_status = (atoi(line) & 0xff) << 8;
        break;
      }
      if (n == 0 || (n < 0 && errno != EINTR)) {
        // The host itself ended (the hook killed its shell): its own wait status is the hook's.
        while (host->status == -1 && waitpid(host->pid, &host->status, 0) < 0 && errno == EINTR) {
        }
        hook_status = host->status;
        break;
      }
    }
    if (watch[0].revents & POLLIN) {
      struct signalfd_siginfo info;
      while (read(sfd, &info, sizeof info) == (ssize_t)sizeof info) {
      }
      reap(hook, &hook_status);
      if (!hosted && hook_status != -1) break;
    }
  }
  free(commands.bytes);
  if (kind != 'E') {
    kill_all(leader, hook, &hook_status, grace_ms);
    hosts_forget_gone();
    close_streams(fds);
    if (gone) _exit(0);
    report(sock, kind, 1, hook_status, 0);
    return 1;
  }
  close_streams(fds);
  // Processes the hook left running are ours now; they must never be taken for a later hook's, so this
  // supervisor retires and leaves them to the system.
  int reusable = nothing_left(hook, &hook_status);
  report(sock, 'E', reusable, hook_status, 0);
  return reusable;
}

/// A supervisor's life: takes requests on `sock` one at a time until it retires or watcher is gone.
static void supervisor_loop(int sock) {
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  prctl(PR_SET_NAME, "watcher-hook", 0, 0, 0);
  // Every signal at its default, so hooks start with defaults (an ignored SIGPIPE would survive exec); all
  // stay blocked here, and SIGCHLD is read from a signalfd.
  for (int sig = 1; sig < NSIG; sig++) {
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  }
  sigset_t wanted;
  sigemptyset(&wanted);
  sigaddset(&wanted, SIGCHLD);
  int sfd = signalfd(-1, &wanted, SFD_CLOEXEC | SFD_NONBLOCK);
  static char buffer[sizeof(request_header) + INLINE_MAX];
  for (;;) {
    int fds[REQUEST_FDS] = {-1, -1, -1, -1};
    int received = 0;
    ssize_t n = receive(sock, buffer, sizeof buffer, fds, REQUEST_FDS, &received);
    if (n <= 0) {  // watcher is gone
      hosts_end();
      _exit(0);
    }
    if ((size_t)n < sizeof(request_header) && received == 0) continue;  // a stop that came too late
    request_header header;
    memset(&header, 0, sizeof header);
    if ((size_t)n >= sizeof header) memcpy(&header, buffer, sizeof header);
    char *blob = NULL;
    size_t size = 0;
    int mapped = 0;
    if (received == 3 && header.inline_size > 0 && (size_t)n == sizeof header + (size_t)header.inline_size) {
      blob = buffer + sizeof header;
      size = (size_t)header.inline_size;
    } else if (received == 4) {
      struct stat info;
      if (fstat(fds[FD_BLOB], &info) == 0 && info.st_size > 0) {
        size = (size_t)info.st_size;
        blob = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fds[FD_BLOB], 0);
        if (blob == MAP_FAILED) blob = NULL;
        mapped = blob != NULL;
      }
    }
    size_t count = (size_t)header.argc + (size_t)header.envc + 1;
    // path, argv..., NULL, envp..., NULL
    char **strings = blob && header.argc >= 1 && header.envc >= 0 && sfd >= 0 && received >= 3
                         ? calloc(count + 2, sizeof(char *))
                         : NULL;
    if (strings) {
      char *p = blob;
      char *end = blob + size;
      for (size_t i = 0; i < count; i++) {
        char *nul = p < end ? memchr(p, 0, (size_t)(end - p)) : NULL;
        if (!nul) {
          free(strings);
          strings = NULL;
          break;
        }
        strings[i + (i > (size_t)header.argc ? 1 : 0)] = p;
        p = nul + 1;
      }
    }
    int keep = 1;
    if (strings) {
      keep = run_hook(sock, sfd, strings[0], strings + 1, strings + header.argc + 2, fds, header.timeout_ms,
                      header.grace_ms);
      free(strings);
    } else {
      report(sock, 'X', sfd >= 0, -1, sfd < 0 ? EMFILE : EINVAL);
      if (sfd < 0) _exit(1);
    }
    if (mapped) munmap(blob, size);
    for (int i = 0; i < REQUEST_FDS; i++) {
      if (fds[i] >= 0) close(fds[i]);
    }
    if (!keep) {
      hosts_end();
      _exit(0);
    }
  }
}

// MARK: - The spawner

static int zygote_socket = -1;
static pid_t zygote_pid = -1;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
/// Supervisors waiting for a hook (their sockets).
static int idle[256];
static int idle_count = 0;

/// Reaps the supervisors that have ended; with `all`, waits for every one (each ends once watcher's side of
/// its socket is closed).
static void reap_supervisors(int all) {
  for (;;) {
    pid_t pid = waitpid(-1, NULL, all ? 0 : WNOHANG);
    if (pid > 0 || (pid < 0 && errno == EINTR)) continue;
    return;
  }
}

/// The spawner's loop: each message carries one socket, the new supervisor's end.
///
/// Supervisors are waited for, not left to the kernel (SIGCHLD ignored): a wait is what adds a process's
/// CPU time, and that of the hooks it reaped, to its parent's children's time, so `time watcher poll`, or
/// getrusage in a benchmark, counts every hook's shell.
static void zygote_loop(int sock) {
  for (;;) {
    char byte;
    int fd = -1;
    int received = 0;
    reap_supervisors(0);
    ssize_t n = receive(sock, &byte, 1, &fd, 1, &received);
    if (n <= 0) {  // watcher is gone, or done with hooks
      reap_supervisors(1);
      _exit(0);
    }
    if (received != 1) continue;
    pid_t pid = fork();
    if (pid == 0) {
      close(sock);
      if (fd != 3) {
        dup2(fd, 3);
        close(fd);
      }
      fcntl(3, F_SETFD, FD_CLOEXEC);
      close_from(4);
      supervisor_loop(3);
      _exit(0);
    }
    close(fd);
  }
}

/// Starts the spawner; the caller holds pool_lock (or runs before any thread).
static void start_locked(void) {
  if (zygote_socket >= 0) return;
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return;
  pid_t pid = fork();
  if (pid < 0) {
    close(pair[0]);
    close(pair[1]);
    return;
  }
  if (pid == 0) {
    // Only async-signal-safe calls until the descriptors are settled: watcher may have threads.
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 || dup2(devnull, 2) < 0) _exit(1);
    int sock = fcntl(pair[1], F_DUPFD_CLOEXEC, 3);
    if (sock < 0) _exit(1);
    if (sock != 3) {
      dup2(sock, 3);
      fcntl(3, F_SETFD, FD_CLOEXEC);
    }
    close_from(4);
    prctl(PR_SET_NAME, "watcher-hooks", 0, 0, 0);
    zygote_loop(3);
    _exit(0);
  }
  close(pair[1]);
  zygote_socket = pair[0];
  zygote_pid = pid;
}

void watcher_hook_zygote_finish(void) {
  pthread_mutex_lock(&pool_lock);
  while (idle_count > 0) close(idle[--idle_count]);
  int zygote = zygote_socket;
  pid_t pid = zygote_pid;
  zygote_socket = -1;
  zygote_pid = -1;
  pthread_mutex_unlock(&pool_lock);
  if (zygote < 0) return;
  close(zygote);
  // Bounded: a supervisor still running a hook (some thread did not wait for its own) ends only when this
  // process exits and its socket closes; then the spawner is left to the system, as before.
  if (pid > 0) wait_bounded(pid, 2000);
}

void watcher_hook_zygote_start(void) {
  pthread_mutex_lock(&pool_lock);
  start_locked();
  pthread_mutex_unlock(&pool_lock);
}

/// A new supervisor's socket, or -1.
static int new_supervisor(void) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return -1;
  for (int attempt = 0; attempt < 2; attempt++) {
    pthread_mutex_lock(&pool_lock);
    start_locked();
    int zygote = zygote_socket;
    pthread_mutex_unlock(&pool_lock);
    if (zygote < 0) break;
    char byte = 'S';
    if (transmit(zygote, &byte, 1, &pair[1], 1)) {
      close(pair[1]);
      return pair[0];
    }
    // The spawner is gone (killed?): start another and try once more.
    pthread_mutex_lock(&pool_lock);
    if (zygote_socket == zygote) {
      close(zygote_socket);
      zygote_socket = -1;
    }
    pthread_mutex_unlock(&pool_lock);
  }
  close(pair[0]);
  close(pair[1]);
  return -1;
}

/// The strings of a request: path, argv, envp, each NUL-terminated, in a malloc'd buffer.
static char *pack(const char *path, char *const argv[], char *const envp[], int32_t *argc, int32_t *envc,
                  size_t *total) {
  *total = strlen(path) + 1;
  *argc = 0;
  *envc = 0;
  for (char *const *a = argv; *a; a++, (*argc)++) *total += strlen(*a) + 1;
  for (char *const *e = envp; *e; e++, (*envc)++) *total += strlen(*e) + 1;
  char *buffer = malloc(sizeof(request_header) + *total);
  if (!buffer) return NULL;
  char *p = buffer + sizeof(request_header);
  size_t length = strlen(path) + 1;
  memcpy(p, path, length);
  p += length;
  for (char *const *a = argv; *a; a++) {
    length = strlen(*a) + 1;
    memcpy(p, *a, length);
    p += length;
  }
  for (char *const *e = envp; *e; e++) {
    length = strlen(*e) + 1;
    memcpy(p, *e, length);
    p += length;
  }
  return buffer;
}

/// A memfd holding `size` bytes from `bytes`, or -1.
static int memfd_with(const char *bytes, size_t size) {
  int fd = memfd_create("watcher-hook", MFD_CLOEXEC);
  if (fd < 0) return -1;
  size_t written = 0;
  while (written < size) {
    ssize_t n = write(fd, bytes + written, size - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += (size_t)n;
  }
  if (written != size) {
    close(fd);
    return -1;
  }
  return fd;
}

int watcher_hook_spawn(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd,
                       int stderr_fd, long timeout_ms, long grace_ms) {
  request_header header = {0, 0, timeout_ms, grace_ms, 0};
  size_t total = 0;
  char *buffer = pack(path, argv, envp, &header.argc, &header.envc, &total);
  if (!buffer) return -ENOMEM;
  if (header.argc < 1) {
    free(buffer);
    return -EINVAL;
  }
  int fds[REQUEST_FDS] = {stdin_fd, stdout_fd, stderr_fd, -1};
  int fd_count = 3;
  size_t length = sizeof header;
  if (total <= INLINE_MAX) {
    header.inline_size = (int64_t)total;
    length += total;
  } else {
    fds[FD_BLOB] = memfd_with(buffer + sizeof header, total);
    if (fds[FD_BLOB] < 0) {
      int error = errno ? errno : EIO;
      free(buffer);
      return -error;
    }
    fd_count = 4;
  }
  memcpy(buffer, &header, sizeof header);
  int result = -EIO;
  // An idle supervisor may have gone away (killed): then take another, or start a new one.
  for (int attempt = 0; attempt < 4; attempt++) {
    int supervisor = -1;
    pthread_mutex_lock(&pool_lock);
    if (idle_count > 0) supervisor = idle[--idle_count];
    pthread_mutex_unlock(&pool_lock);
    if (supervisor < 0) supervisor = new_supervisor();
    if (supervisor < 0) break;
    if (transmit(supervisor, buffer, length, fds, fd_count)) {
      result = supervisor;
      break;
    }
    result = -(errno ? errno : EIO);
    close(supervisor);
  }
  if (fds[FD_BLOB] >= 0) close(fds[FD_BLOB]);
  free(buffer);
  return result;
}

void watcher_hook_stop(int handle) {
  char byte = 'C';
  ssize_t n;
  do {
    n = send(handle, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
}

void watcher_hook_release(int handle, int reusable) {
  if (handle < 0) return;
  if (reusable) {
    pthread_mutex_lock(&pool_lock);
    if (idle_count < (int)(sizeof idle / sizeof idle[0])) {
      idle[idle_count++] = handle;
      handle = -1;
    }
    pthread_mutex_unlock(&pool_lock);
  }
  if (handle >= 0) close(handle);
}

int watcher_cloexec_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
