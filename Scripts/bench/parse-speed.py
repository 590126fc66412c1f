#!/usr/bin/env python3
"""Parse-speed benchmark: watcher vs xmllint --stream vs sfeed on one big feed, in the same run.

Usage: parse-speed.py WATCHER_BIN FEED [--runs 5]
Prints, per tool: best and median wall time, MB/s (file size / best time) and peak RSS (from wait4).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time


def run(cmd, stdin_path):
    with open(stdin_path, "rb") as fin, open(os.devnull, "wb") as fout:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=fin, stdout=fout, stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t0
        err = p.stderr.read().decode("utf-8", "replace")
        p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("%s failed: %s" % (" ".join(cmd), err[-500:]))
    return dt, ru.ru_maxrss * 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("watcher")
    ap.add_argument("feed")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--floor", help="the sax-floor binary (libxml2 SAX2 push with no-op callbacks)")
    a = ap.parse_args()
    size = os.path.getsize(a.feed)
    tools = [("watcher parse --json", [a.watcher, "parse", "--json", "--max-size", "200000000", a.feed])]
    if shutil.which("xmllint"):
        tools.append(("xmllint --stream --noout", ["xmllint", "--stream", "--noout", a.feed]))
    if a.floor:
        tools.append(("libxml2 SAX floor", [a.floor, a.feed]))
    if shutil.which("sfeed"):
        tools.append(("sfeed < file", ["sfeed"]))
    print("file: %s, %.1f MB" % (a.feed, size / 1e6))
    print("%-26s %9s %9s %9s %10s %9s" % ("tool", "best s", "median s", "MB/s", "peak RSS", "RSS/file"))
    for name, cmd in tools:
        times, rss = [], 0
        for _ in range(a.runs):
            dt, r = run(cmd, a.feed)
            times.append(dt)
            rss = max(rss, r)
        best = min(times)
        print("%-26s %9.3f %9.3f %9.1f %8.1f MB %8.2fx" % (
            name, best, statistics.median(times), size / 1e6 / best, rss / 1e6, rss / size))


if __name__ == "__main__":
    main()
