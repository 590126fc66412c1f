#!/usr/bin/env python3
"""The story set with ordinary posts of unrelated feeds mixed in (issue #67: "items that belong to no story
stay alone").

The public story set holds only items of big stories; a real subscription is mostly posts no other feed
carries. This mixes the set with every headline (three words or more, each once) of the feeds under FEEDS
(default: the repository's test corpus), each feed its own publisher, published at a time drawn from the
set's own (seeded), and each its own story. It scores the result with the set's scorer and says how many of
the mixed-in posts were grouped with anything.

    python3 Scripts/bench/stories-unrelated.py STORY-SET/dev.jsonl WATCHER [--feeds DIR]
"""
import argparse, collections, json, os, random, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("items", help="the story set's dev.jsonl (score.py is looked for beside it)")
ap.add_argument("watcher")
ap.add_argument("--feeds", default=os.path.join(os.path.dirname(__file__), "../../Tests/Corpus"))
ap.add_argument("--seed", type=int, default=7)
a = ap.parse_args()

posts, seen = [], set()
for root, _, files in os.walk(a.feeds):
    for name in sorted(files):
        path = os.path.join(root, name)
        if os.path.getsize(path) > 5_000_000 or name.endswith((".md", ".tsv", ".txt", ".py")):
            continue
        try:
            out = subprocess.run([a.watcher, "parse", "--json", path], capture_output=True, timeout=20).stdout
            doc = json.loads(out)
        except Exception:
            continue
        feed = ((doc.get("feed") or {}).get("title") or "") + "|" + name
        for item in doc.get("items", []):
            title = " ".join((item.get("title") or "").split())
            if len(title.split()) < 3 or title.lower() in seen:
                continue
            seen.add(title.lower())
            posts.append((feed, title, item.get("link") or ""))

stories = [json.loads(line) for line in open(a.items)]
times = sorted(s["published"] for s in stories)
random.seed(a.seed)
mixed = stories + [
    {"id": str(10_000_000 + n), "feed": feed, "title": title, "link": link, "published": random.choice(times),
     "category": "", "story": "unrelated-%d" % n}
    for n, (feed, title, link) in enumerate(posts)
]
mixed.sort(key=lambda s: (s["published"], int(s["id"])))
work = tempfile.mkdtemp()
path = os.path.join(work, "mixed.jsonl")
with open(path, "w") as out:
    for s in mixed:
        out.write(json.dumps(s) + "\n")
print("%d story items, %d unrelated posts from %d feeds" % (len(stories), len(posts), len({p[0] for p in posts})))
scorer = os.path.join(os.path.dirname(os.path.abspath(a.items)), "score.py")
predictions = os.path.join(work, "pred.jsonl")
with open(path) as fin, open(predictions, "w") as fout:
    lines = "".join(json.dumps({k: s[k] for k in ("id", "feed", "title", "link", "published", "category")}) + "\n"
                    for s in map(json.loads, fin))
    subprocess.run([a.watcher, "stories", "--jsonl"], input=lines.encode(), stdout=fout, check=True)
subprocess.run([sys.executable, scorer, path, "--pred", predictions], check=True)
clusters = collections.Counter()
labels = {}
for line in open(predictions):
    d = json.loads(line)
    labels[d["id"]] = d["cluster"]
    clusters[d["cluster"]] += 1
grouped = sum(1 for i, c in labels.items() if int(i) >= 10_000_000 and clusters[c] > 1)
print("unrelated posts grouped with another item: %d of %d (%.1f%%)" % (grouped, len(posts), 100.0 * grouped / len(posts)))
