#!/usr/bin/env python3
"""CPU and wall time of `watcher parse PAGE --base URL --jsonl` on saved pages: median, p90 and max.

    page-items.py BIN PAGE_DIR [--runs N]

PAGE_DIR holds pages as `*.html` or `*.html.gz` (gzip is undone before timing); a `truth.json` beside them
with `{ID: {"file", "base_url"}}` gives each page's address, else https://example.com/ is used. Each
page is run N times (default 3) and its fastest run kept; CPU is user + system of the child.
"""
import argparse, gzip, json, os, resource, statistics, subprocess, sys, tempfile, time
from pathlib import Path

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("pages")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    folder = Path(args.pages)
    bases = {}
    for truth in (folder / "truth.json", folder.parent / "truth.json"):
        if truth.exists():
            document = json.load(open(truth))
            for key, page in document.get("pages", document).items():
                bases[Path(page.get("file", key)).name.split(".")[0]] = page.get("base_url")
            break
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for path in sorted(folder.glob("*.htm*")):
            data = gzip.open(path).read() if path.suffix == ".gz" else path.read_bytes()
            page = Path(scratch) / "page.html"
            page.write_bytes(data)
            name = path.name.split(".")[0]
            base = bases.get(name) or "https://example.com/"
            best = None
            for _ in range(args.runs):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run([args.binary, "parse", str(page), "--base", base, "--jsonl"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                if best is None or cpu < best[0]:
                    best = (cpu, wall)
            rows.append((name, len(data), *best))
    cpus = sorted(r[2] for r in rows)
    walls = sorted(r[3] for r in rows)
    def p90(values):
        return values[min(len(values) - 1, int(0.9 * len(values)))]
    print(f"{len(rows)} pages, {args.runs} runs each (fastest kept), whole command incl. start-up")
    print(f"CPU ms:  median {1000 * statistics.median(cpus):.1f}  p90 {1000 * p90(cpus):.1f}  max {1000 * cpus[-1]:.1f}")
    print(f"wall ms: median {1000 * statistics.median(walls):.1f}  p90 {1000 * p90(walls):.1f}  max {1000 * walls[-1]:.1f}")
    for name, size, cpu, wall in sorted(rows, key=lambda r: -r[2])[:5]:
        print(f"  slowest: {name} ({size // 1024} KiB): {1000 * cpu:.1f} ms CPU, {1000 * wall:.1f} ms wall")

if __name__ == "__main__":
    main()
