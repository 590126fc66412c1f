#!/usr/bin/env python3
"""Builds of watcher against each other and against sfeed and xmllint, parsing one feed, taking turns.

Usage: parse-ab.py FEED WATCHER [WATCHER...] [--runs 9] [--one-core | --both] [--text] [--contend]

This machine's speed drifts by a third between minutes, so runs of different binaries compare only when
they take turns: each round runs every binary once, in order. Prints, per binary, the median and best CPU
seconds (user + system, of the process and all it started) and wall seconds, and each median against
sfeed's. With --one-core every command runs pinned to one core (taskset -c 0); with --both each watcher
also runs pinned, as a row of its own in the same rounds (what its second thread costs in CPU). With --text
watcher prints its readable summary (`watcher parse FEED`) instead of the JSON. With --contend, a program that
streams through 256 MB of memory (memory-hog.c, built with cc) runs on the last core throughout, as another
tenant of a shared host takes the last-level cache: pair it with --one-core to keep it off core 0.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time


def timed(cmd, stdin_path=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(stdin_path or os.devnull, "rb") as fin:
        code = subprocess.run(cmd, stdin=fin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if code != 0:
        sys.exit("%s: exit %d" % (" ".join(cmd), code))
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def start_hog():
    """memory-hog.c, built into bench-out if missing, started on the last core."""
    here = os.path.dirname(os.path.abspath(__file__))
    binary = os.path.join(here, "..", "..", "bench-out", "memory-hog")
    source = os.path.join(here, "memory-hog.c")
    if not os.path.exists(binary) or os.path.getmtime(binary) < os.path.getmtime(source):
        os.makedirs(os.path.dirname(binary), exist_ok=True)
        subprocess.run(["cc", "-O2", "-o", binary, source], check=True)
    hog = subprocess.Popen(["taskset", "-c", str(os.cpu_count() - 1), binary])
    time.sleep(1)  # its 256 MB written once before the first round
    return hog


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("feed")
    ap.add_argument("watchers", nargs="+")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--text", action="store_true", help="the readable summary, not --json")
    ap.add_argument("--contend", action="store_true", help="a memory streamer on the last core meanwhile")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--one-core", action="store_true")
    mode.add_argument("--both", action="store_true", help="each watcher on both cores and on one")
    a = ap.parse_args()
    pin = ["taskset", "-c", "0"] if a.one_core else []
    size = os.path.getsize(a.feed)
    commands = []
    for w in a.watchers:
        parse = [w, "parse"] + ([] if a.text else ["--json"]) + ["--max-size", str(size + 1), "--max-items", "10000000", a.feed]
        commands.append((w, pin + parse, None))
        if a.both:
            commands.append((w + ", one core", ["taskset", "-c", "0"] + parse, None))
    # The XML peers read no JSON Feed: a JSON feed is timed for watcher alone.
    xml = not a.feed.endswith(".json")
    if xml and shutil.which("sfeed"):
        commands.append(("sfeed", pin + ["sfeed"], a.feed))
    if xml and shutil.which("xmllint"):
        commands.append(("xmllint --stream", pin + ["xmllint", "--stream", "--noout", a.feed], None))
    samples = {name: [] for name, _, _ in commands}
    hog = start_hog() if a.contend else None
    try:
        for _ in range(a.runs):
            for name, cmd, stdin in commands:
                samples[name].append(timed(cmd, stdin))
    finally:
        if hog:
            hog.kill()
            hog.wait()
    base = samples.get("sfeed")
    base_cpu = statistics.median(c for c, _ in base) if base else None
    base_wall = statistics.median(w for _, w in base) if base else None
    print("%s (%.0f MB), %d rounds%s%s; seconds, median (best)" % (
        os.path.basename(a.feed), size / 1e6, a.runs, ", one core" if a.one_core else "",
        ", a memory streamer on core %d" % (os.cpu_count() - 1) if a.contend else ""))
    print("| binary | CPU | wall | CPU vs sfeed | wall vs sfeed |")
    print("|---|---:|---:|---:|---:|")
    for name, _, _ in commands:
        cpu = [c for c, _ in samples[name]]
        wall = [w for _, w in samples[name]]
        cm, wm = statistics.median(cpu), statistics.median(wall)
        ratio = ("%.2f×" % (cm / base_cpu), "%.2f×" % (wm / base_wall)) if base else ("", "")
        print("| %s | %.3f (%.3f) | %.3f (%.3f) | %s | %s |" % (name, cm, min(cpu), wm, min(wall), *ratio))


if __name__ == "__main__":
    main()
