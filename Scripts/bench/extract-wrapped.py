#!/usr/bin/env python3
"""Article extraction when the article sits inside an element that is usually pruned (issue #71).

libxml2's repair of a broken template (an unclosed `<button>` or `<nav>` in a site header, a heading closed by
the wrong end tag), a page-wide ASP.NET `<form>`, a server-rendered page streamed into `<div hidden>`, or a
page its style hides until script reveals it: each nests the whole article inside an element of a kind the
extractor removes before scoring. This writes a copy of an evaluation set (either layout that
extract-quality.py reads) with each page's body opened inside one such element, scores each copy with
extract-quality.py, and prints one line per kind: the set's F1, the pages that came back empty, and the pages
under F1 0.5. Compare the lines with the set's own score: a kind whose F1 falls is a pruning rule that removed
the article. It also rewrites pages the old ways (RESHAPED: paragraphs between <br><br> or in divs, tags in
capitals, windows-1252), scored the same way.

    python3 Scripts/bench/extract-wrapped.py SET WATCHER [--hash-names] [KIND ...]
"""
import gzip, json, os, re, shutil, subprocess, sys, tempfile

# Each kind: what is written after <body …>, and what before </body> (nothing: left open, for libxml2 to repair).
KINDS = {
    "button": ('<button class="menu-toggle">', ""),
    "nav": ('<nav class="top"><div class="inner">', ""),
    "noscript": ("<noscript>", ""),
    "hidden": ('<div hidden id="S:0">', "</div>"),
    "form": ('<form id="aspnetForm" method="post" action="./">', "</form>"),
    "header": ('<header class="site-header"><div class="logo">', ""),
    "aria-hidden": ('<div class="page" aria-hidden="true">', "</div>"),
    "role-navigation": ('<div role="navigation">', ""),
    "link": ('<a href="/" class="logo">', ""),
    "menu-item": ('<ul class="menu"><li class="item">', ""),
    "svg": ('<svg class="icon" viewBox="0 0 10 10"><path d="M0 0"/>', ""),
    "ins": ('<ins class="adsbygoogle">', ""),
    "aside": ('<aside class="wrap">', "</aside>"),
    "footer": ("<footer>", ""),
    "figure": ('<figure class="wrap">', "</figure>"),
    "blockquote": ("<blockquote>", "</blockquote>"),
    "dialog": ('<div role="dialog" class="modal">', "</div>"),
    "label": ("<label>", ""),
    "span": ('<span class="nav-item">', ""),
    "details": ("<details open>", "</details>"),
    "heading": ('<h2 class="title">', ""),
    "wrong-end-tag": ('<h2 class="site-title">Site name</h3>', ""),
    "sidebar": ('<div class="sidebar">', "</div>"),
    "video": ("<video>", ""),
    "object": ("<object>", ""),
    "style-hidden": ('<div style="display:none" id="app">', "</div>"),
    "template": ("<template>", ""),
    "table-cell": ('<table class="layout"><tr><td class="logo">Site', ""),
    "font": ('<font face="Arial" size="2">', ""),
    "center": ("<center>", ""),
    "nested-link": ('<a href="/" class="logo"><a href="/home">', ""),
    "definition": ("<dl><dd>", ""),
    "layout-table": ('<table width="100%"><tr><td width="150" valign="top"><a href="/">Home</a><br><a href="/news">'
                     'News</a><br><a href="/sport">Sport</a><br><a href="/weather">Weather</a></td><td valign="top">',
                     "</td></tr></table>"),
}
def _tags_upper(data):
    return re.sub(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)", lambda m: "<" + m.group(1) + m.group(2).upper(), data)


def _latin1(data):
    data = re.sub(r"<meta\b[^>]*charset[^>]*>", "", data, flags=re.I)
    data = re.sub(r"<head\b[^>]*>", lambda m: m.group(0) + '<meta http-equiv="Content-Type" '
                  'content="text/html; charset=windows-1252">', data, count=1, flags=re.I)
    return data.encode("cp1252", "xmlcharrefreplace")


# Pages written another way than the set's: each a function of the page's text (its result, text or bytes,
# is the page). Old pages' ways: paragraphs as text between <br><br>, as <div>s or <span>s, left unclosed,
# tags in capitals, a Western charset.
RESHAPED = {
    "br-paragraphs": lambda d: re.sub(r"</p\s*>", "<br><br>", re.sub(r"<p\b[^>]*>", "", d, flags=re.I), flags=re.I),
    "div-paragraphs": lambda d: re.sub(r"<(/?)p(?=[\s>])", r"<\1div", d, flags=re.I),
    "unclosed-p": lambda d: re.sub(r"</p\s*>", "", d, flags=re.I),
    "span-paragraphs": lambda d: re.sub(r"</p\s*>", "</span><br><br>", re.sub(r"<p(?=[\s>])", "<span", d, flags=re.I),
                                        flags=re.I),
    "upper-tags": _tags_upper,
    "windows-1252": _latin1,
}
QUALITY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "extract-quality.py")


def wrapped(data, opening, closing):
    body = re.search(r"<body\b[^>]*>", data, re.I)
    at = body.end() if body else 0
    data = data[:at] + opening + data[at:]
    if closing:
        end = data.lower().rfind("</body>")
        data = data[:end] + closing + data[end:] if end >= 0 else data + closing
    return data


def copy(root, target, change):
    """`root` copied into `target` with every page changed by `change`; the truth files as they are."""
    def write(source, destination):
        data = open(source, "rb").read()
        packed = data[:2] == b"\x1f\x8b"
        text = (gzip.decompress(data) if packed else data).decode("utf-8", "surrogateescape")
        out = change(text)
        if isinstance(out, str):
            out = out.encode("utf-8", "surrogateescape")
        open(destination, "wb").write(gzip.compress(out) if packed else out)

    if os.path.exists(os.path.join(root, "ground-truth.json")):
        os.makedirs(os.path.join(target, "html"))
        shutil.copy(os.path.join(root, "ground-truth.json"), target)
        for name in sorted(os.listdir(os.path.join(root, "html"))):
            write(os.path.join(root, "html", name), os.path.join(target, "html", name))
        return
    for name in sorted(os.listdir(root)):
        source = os.path.join(root, name, "source.html")
        if not os.path.exists(source):
            continue
        os.makedirs(os.path.join(target, name))
        shutil.copy(os.path.join(root, name, "expected.html"), os.path.join(target, name))
        write(source, os.path.join(target, name, "source.html"))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = [a for a in sys.argv[1:] if a == "--hash-names"]
    if len(args) < 2:
        sys.exit(__doc__)
    root, watcher, kinds = args[0], args[1], args[2:] or list(KINDS) + list(RESHAPED)
    scratch = tempfile.mkdtemp()
    try:
        for kind in kinds:
            target = os.path.join(scratch, kind)
            change = RESHAPED.get(kind) or (lambda d, k=KINDS[kind]: wrapped(d, *k))
            copy(root, target, change)
            out = subprocess.run([sys.executable, QUALITY, target, watcher, "--worst", "20"] + flags,
                                 capture_output=True, text=True).stdout.splitlines()
            low = [f"{line.split()[-1][:16]} {line.split()[0]}" for line in out[2:] if float(line.split()[0]) < 0.5]
            print(f"{kind:16s} {out[0].split(': ', 1)[1]}" + (f"; under 0.5: {', '.join(low)}" if low else ""),
                  flush=True)
            shutil.rmtree(target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


main()
