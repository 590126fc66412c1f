#!/usr/bin/env python3
# Scores `watcher extract` on an evaluation set of article pages with known main text, with the metric of
# the Zyte/Scrapinghub article-extraction-benchmark: each text becomes \w+ tokens, then 4-token shingles
# (a multiset; a text shorter than 4 tokens is one shingle); per page tp/fp/fn are normalized by their sum;
# precision is the mean over pages that extracted something, recall the mean over pages with a truth, and
# F1 is computed from the two means. Also: pages where nothing was extracted, and the time per page (wall
# time of the process, and that minus the median start-up of `watcher --version`; and its CPU time).
#
# Two layouts are read:
#   DIR/ground-truth.json + DIR/html/ID.html.gz        the article-extraction-benchmark (truth: articleBody)
#   DIR/NAME/source.html + DIR/NAME/expected.html      mozilla/readability's test pages (truth: the text of
#                                                      expected.html, Readability.js's own output)
#
# --hash-names reads each page with its class and id names replaced by hashes of them (`class="x3f9a1c"`), as
# a site built with CSS modules, styled-components or utility classes has them: what the extractor finds
# without the names' words. Equal names stay equal, and an attribute that refers to an id
# (`aria-describedby`, `aria-labelledby`, `for`, `headers`) names the id's hash, as such a site writes it.
# Usage: python3 Scripts/bench/extract-quality.py PATH [WATCHER] [--worst N] [--hash-names]
import gzip, hashlib, html.parser, json, os, re, resource, statistics, subprocess, sys, tempfile, time
from collections import Counter

TOKEN = re.compile(r"\w+", re.UNICODE)


def shingles(text, n=4):
    tokens = TOKEN.findall(text or "")
    return Counter(tuple(tokens[i:i + n]) for i in range(max(1, len(tokens) - n + 1)) if tokens[i:i + n])


def tp_fp_fn(truth, got):
    want, have = shingles(truth), shingles(got)
    tp = sum((want & have).values())
    fp = sum((have - want).values())
    fn = sum((want - have).values())
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def precision(tp, fp, fn):
    if fp == fn == 0: return 1.0
    if tp == fp == 0: return 0.0
    return tp / (tp + fp)


def recall(tp, fp, fn):
    if fp == fn == 0: return 1.0
    if tp == fn == 0: return 0.0
    return tp / (tp + fn)


class Text(html.parser.HTMLParser):
    """The text of an HTML document, block elements on lines of their own."""
    BLOCKS = {"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "pre", "blockquote", "section"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"): self.skip += 1
        if tag in self.BLOCKS: self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip: self.skip -= 1

    def handle_data(self, data):
        if not self.skip: self.parts.append(data)


def html_text(path):
    parser = Text()
    parser.feed(open(path, encoding="utf-8", errors="replace").read())
    return "".join(parser.parts)


TAG = re.compile(r"""<[a-zA-Z][^\s/>]*((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*/?>""")
ID_REFERENCES = ("aria-describedby", "aria-labelledby", "for", "headers")
ATTRIBUTE = re.compile(r"""(\s+)([^\s=/>]+)(?:(\s*=\s*)("[^"]*"|'[^']*'|[^\s"'>]+))?""")


def hashed_names(page, directory):
    """A copy of the page in `directory` with its class and id names replaced by hashes (read tag by tag and
    attribute by attribute, so that a `class=` inside another attribute's value is left alone)."""
    data = open(page, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    text = data.decode("utf-8", "surrogateescape")

    def hashed(value):
        return "x" + hashlib.md5(value.encode("utf-8", "surrogateescape")).hexdigest()[:6]

    def attribute(m):
        name = m.group(2).lower()
        if name not in ("class", "id") + ID_REFERENCES or m.group(4) is None:
            return m.group(0)
        value = m.group(4)[1:-1] if m.group(4)[0] in "\"'" else m.group(4)
        # A reference names ids, each hashed as the id it names is.
        value = " ".join(map(hashed, value.split())) if name in ID_REFERENCES else hashed(value)
        return f'{m.group(1)}{m.group(2)}{m.group(3)}"{value}"'

    def tag(m):
        start, end = m.span(1)
        return m.group(0)[:start - m.start()] + ATTRIBUTE.sub(attribute, m.group(1)) + m.group(0)[end - m.start():]

    copy = os.path.join(directory, "page.html")
    open(copy, "wb").write(TAG.sub(tag, text).encode("utf-8", "surrogateescape"))
    return copy


def pages(root):
    truth_file = os.path.join(root, "ground-truth.json")
    if os.path.exists(truth_file):
        for key, entry in sorted(json.load(open(truth_file, encoding="utf-8")).items()):
            yield key, os.path.join(root, "html", key + ".html.gz"), entry.get("articleBody", ""), entry.get("url")
    else:
        for name in sorted(os.listdir(root)):
            source, expected = os.path.join(root, name, "source.html"), os.path.join(root, name, "expected.html")
            if os.path.exists(source) and os.path.exists(expected):
                yield name, source, html_text(expected), None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    worst = int(sys.argv[sys.argv.index("--worst") + 1]) if "--worst" in sys.argv else 0
    if worst: args.remove(str(worst))
    root = args[0]
    watcher = args[1] if len(args) > 1 else ".build-static/release/watcher"
    startups = []
    for _ in range(10):
        start = time.perf_counter()
        subprocess.run([watcher, "--version"], stdout=subprocess.DEVNULL)
        startups.append(time.perf_counter() - start)
    startup = statistics.median(startups)
    rows, walls, cpus = [], [], []
    scratch = tempfile.mkdtemp()
    for name, page, truth, url in pages(root):
        if "--hash-names" in sys.argv:
            page = hashed_names(page, scratch)
        command = [watcher, "extract", "--json", page] + (["--base", url] if url else [])
        start, used = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command, capture_output=True)
        walls.append(time.perf_counter() - start)
        now = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime)
        try:
            got = json.loads(done.stdout).get("content") or ""
        except ValueError:
            got = ""
        rows.append((name, tp_fp_fn(truth, got), not TOKEN.search(got)))
    precisions = [precision(*r[1]) for r in rows if r[1][0] + r[1][1] > 0]
    recalls = [recall(*r[1]) for r in rows if r[1][0] + r[1][2] > 0]
    p, r = statistics.mean(precisions), statistics.mean(recalls)
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    empty = [row[0] for row in rows if row[2]]
    print(f"{root}{' (names hashed)' if '--hash-names' in sys.argv else ''}: {len(rows)} pages: F1 {f1:.3f} (P {p:.3f}, R {r:.3f}); {len(empty)} empty"
          + (f" ({', '.join(empty[:10])}{', …' if len(empty) > 10 else ''})" if empty else ""))
    print(f"time per page: median {statistics.median(walls) * 1000:.1f} ms wall, "
          f"{max(0.0, statistics.median(walls) - startup) * 1000:.1f} ms beyond start-up "
          f"({startup * 1000:.1f} ms); slowest {max(walls) * 1000:.0f} ms; "
          f"CPU median {statistics.median(cpus) * 1000:.1f} ms, all pages {sum(cpus):.2f} s")
    if worst:
        def page_f1(t):
            pp, rr = precision(*t), recall(*t)
            return 2 * pp * rr / (pp + rr) if pp + rr else 0.0
        for name, t, _ in sorted(rows, key=lambda row: page_f1(row[1]))[:worst]:
            print(f"  {page_f1(t):.3f}  P {precision(*t):.3f}  R {recall(*t):.3f}  {name}")


main()
