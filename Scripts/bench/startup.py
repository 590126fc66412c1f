#!/usr/bin/env python3
# Size and start-up: per binary, its size (as built and stripped) and the median of 20 runs of
# `BIN --version` and `BIN check --config EXAMPLE`, in wall and CPU milliseconds (the CPU of the process and
# of its children: check runs `sh -n` for each hook). One warm-up run of each first.
# Usage: python3 Scripts/bench/startup.py BIN1[,BIN2...] EXAMPLE_CONFIG [DEB1[,DEB2...]]
import os, resource, shutil, statistics, subprocess, sys, tempfile, time


def median(cmd):
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    walls, cpus = [], []
    for _ in range(20):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def stripped_size(binary):
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "stripped")
        subprocess.run(["strip", "-o", out, binary], check=True)
        return os.path.getsize(out)


example = sys.argv[2]
for binary in sys.argv[1].split(","):
    version = median([binary, "--version"])
    check = median([binary, "check", "--config", example])
    print(f"{binary}: {os.path.getsize(binary) / 1e6:.1f} MB, stripped {stripped_size(binary) / 1e6:.1f} MB; "
          f"--version {version[0]:.1f} ms (CPU {version[1]:.1f} ms); "
          f"check {check[0]:.1f} ms (CPU {check[1]:.1f} ms); medians of 20")
for deb in (sys.argv[3].split(",") if len(sys.argv) > 3 else []):
    print(f"{deb}: {os.path.getsize(deb) / 1e6:.2f} MB")
