#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The soak of issue #7: `watcher run` against server.py (a loopback server that misbehaves at random) with
# a hook that fails or hangs now and then. Samples RSS, open fds and every state file every few seconds,
# writes series.csv, then checks: flat RSS and fds after warm-up, no lost hook, no invalid state file, the
# daemon never exited on its own. Usage: soak.py WATCHER OUTDIR MINUTES FEEDS
import json, os, signal, subprocess, sys, time

watcher, out, minutes, feeds = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
state_dir = os.path.join(out, "state")
os.makedirs(state_dir, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
server = subprocess.Popen([sys.executable, os.path.join(here, "server.py"), out, str(feeds)], stdout=subprocess.PIPE,
                          text=True)
port = int(server.stdout.readline())

hook_log = os.path.join(out, "hooks.log")
calm = os.path.join(out, "calm")
with open(os.path.join(out, "hook.sh"), "w") as f:
    f.write(f"""#!/bin/sh
# Records that it ran; then, unless the soak is calming down, fails (10%) or hangs past its timeout (3%).
echo "start $WATCHER_ID" >> '{hook_log}'
if [ ! -e '{calm}' ]; then
  roll=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
  roll=$((roll % 100))
  [ "$roll" -lt 10 ] && exit 3
  [ "$roll" -lt 13 ] && sleep 30
fi
cat > /dev/null
echo "ok $WATCHER_ID" >> '{hook_log}'
""")
config = os.path.join(out, "config.yaml")
with open(config, "w") as f:
    f.write(f"""settings:
  interval: 2s
  timeout: 3s
  max_size: 2MB
  first_poll: all
  max_age: none
  concurrency: 8
  hook_concurrency: 4
  hook_retries: 8
  state_dir: {state_dir}
feeds:
""")
    for i in range(feeds):
        f.write(f"  - url: http://127.0.0.1:{port}/feed/{i}.xml\n    name: f{i}\n")
    f.write(f"""rules:
  - match: {{ title: item }}
    hook: {{ command: "sh {out}/hook.sh", timeout: 2s }}
  - name: huge
    match: {{ title: huge }}
    digest: {{ every: 1m }}
  - name: huge-notify
    match: {{ title: huge }}
    notify: true
""")

log = open(os.path.join(out, "watcher.log"), "w")
daemon = subprocess.Popen([watcher, "run", "--config", config], stdout=log, stderr=subprocess.STDOUT)


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# The files every feed shares, each with the key it must have; and the largest size each reached.
shared = {"digests.json": "digests", "notifications.json": "notifications", "stories.json": None}
largest = {}
budget = 32 << 20


def check_states():
    """The number of state files, and the names of those that are not valid JSON state (or, for the shared
    files, over their 32 MiB budget)."""
    names = [n for n in os.listdir(state_dir) if n.endswith(".json")]
    invalid = []
    for name in names:
        path = os.path.join(state_dir, name)
        try:
            with open(path) as f:
                state = json.load(f)
            if name in shared:
                size = os.path.getsize(path)
                largest[name] = max(largest.get(name, 0), size)
                if not isinstance(state, dict) or (shared[name] and shared[name] not in state) or size > budget:
                    invalid.append(name)
            elif not isinstance(state, dict) or "url" not in state or not isinstance(state.get("items", {}), dict):
                invalid.append(name)
        except (OSError, ValueError):
            invalid.append(name)
    return len(names), invalid


time.sleep(2)  # let it start before the first sample
started = time.time()
rows, exited_early, invalid_seen, checks = [], None, set(), 0
duration = minutes * 60
calm_after = duration
finish = duration + 45  # the last 45 s are calm: every answer and every hook good, so retries can land
while True:
    elapsed = time.time() - started
    if elapsed >= finish:
        break
    if elapsed >= calm_after and not os.path.exists(calm):
        open(calm, "w").close()
    if daemon.poll() is not None:
        exited_early = daemon.returncode
        break
    try:
        fds = len(os.listdir(f"/proc/{daemon.pid}/fd"))
        rss = rss_kb(daemon.pid)
    except OSError:
        continue
    count, invalid = check_states()
    checks += 1
    invalid_seen.update(invalid)
    rows.append((round(elapsed, 1), rss, fds, count, len(invalid)))
    time.sleep(5)

status = None
if exited_early is None:
    daemon.send_signal(signal.SIGTERM)
    try:
        status = daemon.wait(timeout=60)
    except subprocess.TimeoutExpired:
        daemon.kill()
        status = "did not stop within 60 s of SIGTERM"
server.terminate()
server.wait()

with open(os.path.join(out, "series.csv"), "w") as f:
    f.write("seconds,rss_kb,open_fds,state_files,invalid_state_files\n")
    for row in rows:
        f.write(",".join(map(str, row)) + "\n")

served = set(open(os.path.join(out, "served.txt")).read().split())
started_ids, ok_ids = set(), set()
if os.path.exists(hook_log):
    for line in open(hook_log):
        kind, _, ident = line.strip().partition(" ")
        (started_ids if kind == "start" else ok_ids).add(ident)
dropped = 0
for name in os.listdir(state_dir):
    if name.endswith(".json") and name not in shared:
        dropped += len(json.load(open(os.path.join(state_dir, name))).get("dropped", []))
lost = sorted(served - started_ids)

warm = [r for r in rows if r[0] >= min(120, duration / 5)]
third = max(1, len(warm) // 3)


def mean(values):
    return sum(values) / max(1, len(values))


def trend(column):
    early, late = mean([r[column] for r in warm[:third]]), mean([r[column] for r in warm[-third:]])
    return early, late


rss_early, rss_late = trend(1)
fd_early, fd_late = trend(2)
flat_rss = rss_late <= rss_early * 1.10
flat_fds = fd_late <= fd_early + 3
ok = (exited_early is None and status == 0 and not invalid_seen and not lost and flat_rss and flat_fds
      and len(rows) > 0 and len(served) > 0)
counts = open(os.path.join(out, "server-counts.txt")).read().strip() if os.path.exists(
    os.path.join(out, "server-counts.txt")) else ""
print(f"server answers: {counts}")
print(f"samples: {len(rows)} over {rows[-1][0] if rows else 0:.0f} s (series: {out}/series.csv)")
rss = [r[1] for r in rows]
fds = [r[2] for r in rows]
print(f"summary: rss_kb start={rss[0]} max={max(rss)} end={rss[-1]}; fds start={fds[0]} max={max(fds)} end={fds[-1]}; "
      f"after warm-up rss {rss_early:.0f}->{rss_late:.0f} KB ({'flat' if flat_rss else 'GROWING'}), "
      f"fds {fd_early:.1f}->{fd_late:.1f} ({'flat' if flat_fds else 'GROWING'}); "
      f"items served={len(served)} hooks started for {len(started_ids & served)} succeeded for {len(ok_ids & served)} "
      f"dropped={dropped} lost={len(lost)}; state checks={checks} invalid={len(invalid_seen)}; "
      f"daemon {'exited on its own with ' + str(exited_early) if exited_early is not None else 'ran throughout'}, "
      f"exit after SIGTERM: {status} => {'PASS' if ok else 'FAIL'}")
print("shared files, largest: " + ", ".join(f"{n} {largest[n] / 1e6:.2f} MB" for n in sorted(largest)))
if lost:
    print("lost hooks:", " ".join(lost[:20]))
if invalid_seen:
    print("invalid state files:", " ".join(sorted(invalid_seen)))
sys.exit(0 if ok else 1)
