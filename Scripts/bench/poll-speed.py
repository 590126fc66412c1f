#!/usr/bin/env python3
"""Polling benchmark: 200 feeds x 50 items served by nginx on 127.0.0.1 (ETag, Last-Modified, gzip).

Usage: poll-speed.py WATCHER_BIN WORKDIR [--feeds 200] [--items 50] [--runs 3]
Scenarios, each timed with wait4 (wall, CPU, peak RSS), median of --runs:
  cold first poll (first_poll: silent: record everything, act on nothing),
  unchanged re-poll (every feed answers 304),
  re-poll with 10% new items in every feed.
"""
import argparse, os, random, shutil, signal, socket, statistics, subprocess, sys, time

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port

def write_feeds(www, feeds, items, generation, new_fraction=0.0):
    rng = random.Random(7)
    for f in range(feeds):
        parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>Feed %d</title>' % f]
        new = int(items * new_fraction)
        for i in range(items):
            gen = generation if i < new else 0
            desc = " ".join(rng.choice(["linux", "swift", "release", "kernel", "patch", "notes"]) for _ in range(150))
            parts.append("<item><title>Item %d-%d-%d</title><guid>g%d-%d-%d</guid><link>https://example.com/%d/%d/%d</link>"
                         "<pubDate>Sun, 29 Nov 2026 10:%02d:00 GMT</pubDate><description>&lt;p&gt;%s&lt;/p&gt;</description></item>"
                         % (f, i, gen, f, i, gen, f, i, gen, i % 60, desc))
        parts.append("</channel></rss>\n")
        path = os.path.join(www, "feed%d.xml" % f)
        with open(path, "w") as fh:
            fh.write("".join(parts))
        # nginx's ETag is mtime + size: give every generation its own mtime so a change is always seen.
        stamp = 1_700_000_000 + generation * 100
        os.utime(path, (stamp, stamp))

def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(); p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit("watcher failed (%d): %s" % (code, err[-400:]))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024, err.strip().splitlines()[-1] if err.strip() else ""

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("watcher"); ap.add_argument("workdir")
    ap.add_argument("--feeds", type=int, default=200); ap.add_argument("--items", type=int, default=50)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    work = os.path.abspath(a.workdir); shutil.rmtree(work, ignore_errors=True)
    www = os.path.join(work, "www"); os.makedirs(www); os.makedirs(os.path.join(work, "nginx"))
    write_feeds(www, a.feeds, a.items, 0)
    port = free_port()
    conf = os.path.join(work, "nginx", "nginx.conf")
    with open(conf, "w") as fh:
        fh.write("""daemon off; worker_processes 1; pid %(w)s/nginx/nginx.pid; error_log %(w)s/nginx/error.log;
events { worker_connections 1024; }
http { access_log off; sendfile on; gzip on; gzip_types application/rss+xml text/xml application/xml; gzip_min_length 256;
  types { application/rss+xml xml; } client_body_temp_path %(w)s/nginx; proxy_temp_path %(w)s/nginx;
  fastcgi_temp_path %(w)s/nginx; uwsgi_temp_path %(w)s/nginx; scgi_temp_path %(w)s/nginx;
  server { listen 127.0.0.1:%(p)d; root %(www)s; etag on; } }
""" % {"w": work, "p": port, "www": www})
    nginx = subprocess.Popen(["nginx", "-c", conf, "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), 0.1).close(); break
        except OSError:
            time.sleep(0.05)
    try:
        config = os.path.join(work, "rules.yaml")
        with open(config, "w") as fh:
            fh.write("settings:\n  interval: 1s\n  first_poll: silent\n  max_age: none\nfeeds:\n")
            for f in range(a.feeds):
                fh.write("  - { url: 'http://127.0.0.1:%d/feed%d.xml', name: f%d }\n" % (port, f, f))
            fh.write("rules:\n  - { name: releases, match: { title: Item }, tag: [seen] }\n")
        results = {}
        for scenario in ("cold first poll (silent)", "unchanged re-poll (304)", "re-poll, 10% new"):
            samples = []
            for r in range(a.runs):
                state = os.path.join(work, "state")
                if scenario.startswith("cold"):
                    shutil.rmtree(state, ignore_errors=True); write_feeds(www, a.feeds, a.items, 0)
                else:
                    shutil.rmtree(state, ignore_errors=True); write_feeds(www, a.feeds, a.items, 0)
                    run([a.watcher, "poll", "--config", config, "--state-dir", state])
                    if scenario.startswith("re-poll"):
                        write_feeds(www, a.feeds, a.items, r + 1, 0.1)
                    time.sleep(1.1)
                samples.append(run([a.watcher, "poll", "--config", config, "--state-dir", state]))
            results[scenario] = samples
        print("%d feeds x %d items on nginx 127.0.0.1:%d, median of %d runs" % (a.feeds, a.items, port, a.runs))
        print("%-26s %9s %9s %10s  %s" % ("scenario", "wall s", "CPU s", "peak RSS", "watcher says"))
        for scenario, samples in results.items():
            print("%-26s %9.3f %9.3f %7.1f MB  %s" % (scenario, statistics.median(s[0] for s in samples),
                  statistics.median(s[1] for s in samples), max(s[2] for s in samples) / 1e6, samples[-1][3]))
    finally:
        nginx.send_signal(signal.SIGTERM); nginx.wait()

if __name__ == "__main__":
    main()
