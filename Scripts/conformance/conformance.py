#!/usr/bin/env python3
"""Parser conformance: `watcher parse --json` against the feedparser-based oracle.

Usage (normally through conformance.sh, which provides feedparser):
    conformance.py WATCHER_BIN [PATH ...] [--show N] [--json FILE] [--jobs N]

PATH: feed files or folders (default: Tests/Corpus/registry of this repository).
For every file it runs `WATCHER_BIN parse --json FILE` (10 s limit each),
maps the output onto the oracle schema and scores field agreement
(compare.py). It also counts crashes (killed by a signal), time-outs and
non-zero exits: a feed that cannot be parsed should still exit 0 with
warnings, or exit non-zero with a message on stderr, never crash.

watcher's schema -> oracle schema:
    items[].text -> summary_text; items[].enclosures[].url -> enclosures;
    everything else by the same name.
"""
import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402
import oracle   # noqa: E402

CACHE = os.path.expanduser(os.environ.get("ORACLE_CACHE", "~/.cache/watcher-oracle/json"))
SKIP_SUFFIXES = (".expected.json", ".golden.json", ".md", ".txt", ".tsv", ".py", ".swift")


def feed_files(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for dp, dns, fns in os.walk(p):
            dns.sort()
            for fn in sorted(fns):
                if fn.endswith(SKIP_SUFFIXES) or fn.startswith("."):
                    continue
                yield os.path.join(dp, fn)


def oracle_doc(path):
    with open(path, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    cp = os.path.join(CACHE, digest + ".json")
    if os.path.exists(cp):
        with open(cp, encoding="utf-8") as fh:
            return json.load(fh)
    doc = oracle.normalize_file(path) if hasattr(oracle, "normalize_file") else None
    if doc is None:
        out = subprocess.run([sys.executable, os.path.join(HERE, "oracle.py"), path],
                             capture_output=True, timeout=120)
        doc = json.loads(out.stdout.decode("utf-8")) if out.returncode == 0 else {"feed": {}, "items": []}
    os.makedirs(CACHE, exist_ok=True)
    with open(cp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
    return doc


def to_oracle_schema(doc):
    feed = doc.get("feed") or {}
    items = []
    for it in doc.get("items") or []:
        if not isinstance(it, dict):
            continue
        m = dict(it)
        m["summary_text"] = it.get("text")
        encl = it.get("enclosures") or []
        m["enclosures"] = [e.get("url") if isinstance(e, dict) else e for e in encl]
        items.append(m)
    return {"feed": {"title": feed.get("title"), "link": feed.get("link")}, "items": items}


def run_watcher(binary, path):
    try:
        p = subprocess.run([binary, "parse", "--json", path], capture_output=True, timeout=10)
    except subprocess.TimeoutExpired:
        return "timeout", None, ""
    if p.returncode < 0:
        return "crash(signal %d)" % -p.returncode, None, p.stderr.decode("utf-8", "replace")[-300:]
    if p.returncode != 0:
        return "exit %d" % p.returncode, None, p.stderr.decode("utf-8", "replace")[-300:]
    try:
        return "ok", json.loads(p.stdout.decode("utf-8")), ""
    except ValueError as e:
        return "bad json", None, str(e)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("watcher")
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--json", dest="json_out")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    paths = a.paths or [os.path.join(HERE, "..", "..", "Tests", "Corpus", "registry")]
    files = list(feed_files(paths))
    sc = compare.Score()
    outcomes = {}
    problems = []

    def work(f):
        return f, oracle_doc(f), run_watcher(a.watcher, f)

    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for f, odoc, (status, cdoc, err) in ex.map(work, files):
            outcomes[status.split("(")[0]] = outcomes.get(status.split("(")[0], 0) + 1
            if status != "ok":
                problems.append((f, status, err.strip().splitlines()[-1] if err.strip() else ""))
            if not odoc.get("items") and not (odoc.get("feed") or {}).get("title"):
                continue  # the oracle found no feed here (non-feed or unreadable): robustness only
            cand = to_oracle_schema(cdoc) if cdoc is not None else None
            if cand is None:
                sc.missing_files += 1
            compare.score_pair(sc, odoc, cand, os.path.relpath(f), a.show)
    print("watcher runs: %d files: %s" % (len(files), ", ".join("%s %d" % kv for kv in sorted(outcomes.items()))))
    for f, status, err in problems[:15]:
        print("  %s: %s %s" % (os.path.relpath(f), status, err[:150]))
    if len(problems) > 15:
        print("  ... %d more" % (len(problems) - 15))
    print()
    compare.report(sc, a.show)
    if a.json_out:
        res = compare.as_json(sc)
        res["runs"] = outcomes
        with open(a.json_out, "w") as fh:
            json.dump(res, fh, indent=2)


if __name__ == "__main__":
    main()
