#!/usr/bin/env python3
# Start-up time: the median of 20 runs of `BIN --version` and `BIN check --config EXAMPLE`, per binary.
# Usage: python3 Scripts/bench/startup.py BIN1[,BIN2...] EXAMPLE_CONFIG
import subprocess, sys, time, statistics, os
def med(cmd, env):
    ts=[]
    for _ in range(20):
        t=time.perf_counter(); subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); ts.append(time.perf_counter()-t)
    return statistics.median(ts)*1000
ex=sys.argv[2]
env=dict(os.environ)
for b in sys.argv[1].split(","):
    print(f"{b}: size {os.path.getsize(b)/1e6:.1f} MB; --version {med([b,'--version'],env):.1f} ms; check {med([b,'check','--config',ex],env):.1f} ms (median of 20)")
