#!/usr/bin/env python3
"""Two watcher binaries polling the same 200 feeds x 50 items from files, taking turns.

Usage: poll-ab.py OLD NEW [--rounds 9] [--instructions]

Scenarios: cold (first poll, first_poll: silent), idle (nothing due: the same state, a 10 h interval),
re-poll (`--all` after 10 % of every feed's items changed). Each is run on a copy of the state the
scenario starts from, so every round measures the same work. Prints the median and minimum CPU
(user + system, by wait4) of each; with --instructions, also each scenario's instructions counted by
valgrind (stable on a shared machine where CPU times move by 10-30 %; needs valgrind, binaries are
stripped first because valgrind 3.19 cannot read the toolchain's debug information).

The rule matches nothing and stories are off where the binary knows them, so the figures are the
poll's own work: read states, parse, decide, save.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile
from importlib.machinery import SourceFileLoader

HERE = os.path.dirname(os.path.abspath(__file__))
write_feeds = SourceFileLoader("poll_speed", os.path.join(HERE, "poll-speed.py")).load_module().write_feeds
FEEDS, ITEMS = 200, 50


def config(path, www, interval, stories):
    with open(path, "w") as fh:
        fh.write("settings:\n  first_poll: silent\n" + ("  stories: false\n" if stories else "") + "feeds:\n")
        for f in range(FEEDS):
            fh.write("  - url: file://%s/feed%d.xml\n    interval: %s\n" % (www, f, interval))
        fh.write("rules:\n  - name: none\n    match: { title: zzzz }\n    hook: 'true'\n")


def run(cmd, valgrind=False):
    if valgrind:
        out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                             capture_output=True, text=True)
        lines = [l for l in out.stderr.splitlines() if "Collected" in l]
        return int(lines[-1].split()[-1])
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), err.decode()[-500:]))
    return (ru.ru_utime + ru.ru_stime) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old"); ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--instructions", action="store_true")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="poll-ab-")
    www = os.path.join(work, "www"); os.makedirs(www)
    binaries = {"old": os.path.abspath(a.old), "new": os.path.abspath(a.new)}
    setups = {}
    write_feeds(www, FEEDS, ITEMS, 0)
    for name, binary in binaries.items():
        d = os.path.join(work, name); os.makedirs(d)
        probe = os.path.join(d, "probe.yaml"); config(probe, www, "1s", True)
        stories = subprocess.run([binary, "check", "--config", probe], capture_output=True).returncode == 0
        due, idle = os.path.join(d, "due.yaml"), os.path.join(d, "idle.yaml")
        config(due, www, "1s", stories); config(idle, www, "10h", stories)
        run([binary, "poll", "--state-dir", os.path.join(d, "polled"), "--config", due])
        setups[name] = (d, due, idle)
    write_feeds(www, FEEDS, ITEMS, 1, 0.1)

    def scenario(name, kind, valgrind=False):
        d, due, idle = setups[name]
        state = os.path.join(d, "state"); shutil.rmtree(state, ignore_errors=True)
        if kind != "cold": shutil.copytree(os.path.join(d, "polled"), state)
        if kind == "cold": write_feeds(www, FEEDS, ITEMS, 0)
        args = {"cold": ["--config", due], "idle": ["--config", idle], "re-poll": ["--config", due, "--all"]}[kind]
        result = run([binaries[name], "poll", "--state-dir", state] + args, valgrind)
        if kind == "cold": write_feeds(www, FEEDS, ITEMS, 1, 0.1)
        return result

    kinds = ["cold", "idle", "re-poll"]
    cpu = {(n, k): [] for n in binaries for k in kinds}
    for r in range(a.rounds):
        for name in (["old", "new"] if r % 2 == 0 else ["new", "old"]):
            for kind in kinds:
                cpu[(name, kind)].append(scenario(name, kind))
    print("| scenario | old CPU ms, median (min) | new CPU ms, median (min) |" + (" old instructions | new instructions |" if a.instructions else ""))
    print("|---|---|---|" + ("---|---|" if a.instructions else ""))
    if a.instructions:
        for name in binaries:
            stripped = os.path.join(work, name + ".stripped")
            subprocess.run(["strip", "-o", stripped, binaries[name]], check=True)
            binaries[name] = stripped
    for kind in kinds:
        o, n = cpu[("old", kind)], cpu[("new", kind)]
        row = "| %s | %.1f (%.1f) | %.1f (%.1f) |" % (kind, statistics.median(o), min(o), statistics.median(n), min(n))
        if a.instructions:
            row += " %.1f M | %.1f M |" % (scenario("old", kind, True) / 1e6, scenario("new", kind, True) / 1e6)
        print(row)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
