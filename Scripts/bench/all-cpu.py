#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs a command and reports the CPU of everything it started, however deep (issue #39).

Usage: all-cpu.py RESULT.json COMMAND [ARG...]

A plain wait4 on a tool counts only the processes that were waited for all the way up: a hook reaped by a
supervisor that itself is never waited for is missed, and a tool that leaves helpers behind hides their
time. This process is a child subreaper: every orphan below it is handed to it, and it reaps them all
before it reports. wall is until the command itself exits; cpu (user + system) and peak RSS (the largest
single process) are of the whole tree.
"""
import ctypes, json, os, resource, sys, time

PR_SET_CHILD_SUBREAPER = 36


def main():
    out, cmd = sys.argv[1], sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("all-cpu.py: prctl(PR_SET_CHILD_SUBREAPER) failed")
    start = time.perf_counter()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ)
    wall, code = None, None
    while True:
        try:
            child, status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if child == pid:
            wall, code = time.perf_counter() - start, os.waitstatus_to_exitcode(status)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "w") as fh:
        json.dump({"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss * 1024, "code": code,
                   "left_behind_s": time.perf_counter() - start - wall}, fh)
    sys.exit(code if code and code > 0 else 0)


if __name__ == "__main__":
    main()
