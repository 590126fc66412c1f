#!/usr/bin/env python3
"""Writes a deterministic RSS 2.0 feed for the parse benchmark.

Usage: gen-big-feed.py OUT [--items 50000] [--target-mb 60] [--workload plain|dense|mixed|media]
                       [--format rss|atom|xhtml]
Items have realistic titles, 1-3 categories, dc:creator, pubDate, a guid, and an escaped HTML description
sized so the file reaches about --target-mb megabytes. Same arguments, same bytes (seeded RNG).

--workload dense is the second harness's shape (issue #39): items of about 1.3 KB whose descriptions carry
about twenty escaped `&lt;`/`&gt;` each and some `&amp;`, non-ASCII text (São Paulo, Zürich, 東京), and
always three categories. It is what feeds of short HTML posts look like, and costs a parser more per byte
than the plain shape (whose paragraphs are longer between tags).

--workload mixed is a shape the tuned ones miss (issue #70): 40% of descriptions are HTML inside CDATA
(lists, `<pre><code>` with `&lt;` inside, links), the rest escaped HTML with about twenty `&lt;`/`&gt;`;
CJK and accented text; `dc:creator`; three categories; `isPermaLink="false"` urn guids; an `atom:link`.

--workload media adds the namespaced extensions of podcast and video feeds to the plain items:
`media:content`, `media:thumbnail`, `media:description`, `itunes:duration`, `itunes:explicit`,
`itunes:image`, an `enclosure`.

--format xhtml writes Atom entries whose content is `type="xhtml"`: markup inside a `div`, not text.

--format json writes JSON Feed 1.1 items of the plain shape (sfeed reads no JSON: compare with plain RSS).

--format atom writes the same items as an Atom feed (`entry`, `link href`, `category term`, an ISO date,
`author/name`, `content type="html"`): the second harness's feeds alternate between the two formats.
"""
import argparse
import random

WORDS = ("swift linux kernel release security patch feed parser rust python notify daemon update "
         "server cloud desktop wayland gnome kde compiler performance memory network storage database "
         "vulnerability CVE bug fix feature preview beta stable community conference talk").split()
CATS = ["release", "security", "linux", "swift", "rust", "python", "desktop", "cloud", "news", "events"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


PLACES = ["São Paulo", "Zürich", "Kraków", "東京", "Reykjavík", "Montréal", "İstanbul", "Łódź"]


def dense_body(rng, i, per_item, used):
    """Paragraphs of a few sentences with some inline markup: about twenty escaped `&lt;`/`&gt;` per item."""
    body, size = [], used
    while size + 120 < per_item:
        words = sentence(rng, rng.randint(14, 26))
        inline = rng.choice(["&lt;em&gt;%s&lt;/em&gt;" % rng.choice(PLACES), "%s &amp;amp; %s" % (
            rng.choice(PLACES), rng.choice(WORDS)), rng.choice(PLACES)])
        p = "&lt;p&gt;%s %s, %s&lt;/p&gt;" % (words, inline, sentence(rng, rng.randint(6, 12)))
        body.append(p)
        size += len(p.encode())
    return body


CJK = ["東京で新しいリリースが公開されました", "服务器性能的改进", "보안 업데이트가 있습니다", "Ελληνικά κείμενα",
       "Привет, мир", "naïve café déjà vu", "Ærøskøbing og Ålesund"]


def mixed_body(rng, i, per_item, used):
    """CDATA-wrapped HTML (40% of items) or escaped HTML with about twenty `&lt;`/`&gt;`."""
    parts, size = [], used
    cdata = i % 5 < 2
    while size + 160 < per_item:
        words = "%s %s, %s" % (sentence(rng, rng.randint(8, 18)), rng.choice(CJK), sentence(rng, rng.randint(4, 9)))
        kind = rng.randrange(4)
        if kind == 0:
            html = "<ul><li>%s</li><li>%s</li><li>%s</li></ul>" % (rng.choice(CJK), rng.choice(PLACES), rng.choice(WORDS))
        elif kind == 1:
            html = "<pre><code>if (a &lt; b &amp;&amp; c &gt; d) { return x-&gt;y; } // %s</code></pre>" % rng.choice(WORDS)
        else:
            html = '<p>%s <a href="https://example.com/%d?x=1&amp;y=2">%s</a> <strong>%s</strong></p>' % (
                words, i, rng.choice(WORDS), rng.choice(PLACES))
        parts.append(html)
        size += len(html.encode())
    body = "".join(parts)
    if cdata:
        return ["<![CDATA[" + body + "]]>"]
    return [body.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")]


def media_tags(rng, i):
    return ('<media:content url="https://cdn.example.com/%d.mp4" type="video/mp4" medium="video" duration="%d"/>\n'
            '<media:thumbnail url="https://cdn.example.com/%d.jpg" width="640" height="360"/>\n'
            '<media:description type="plain">%s</media:description>\n'
            '<itunes:duration>%d:%02d</itunes:duration>\n<itunes:explicit>false</itunes:explicit>\n'
            '<itunes:image href="https://cdn.example.com/%d-cover.jpg"/>\n'
            '<enclosure url="https://cdn.example.com/%d.mp3" length="%d" type="audio/mpeg"/>\n' % (
                i, 60 + i % 3000, i, sentence(rng, 12), i % 90, i % 60, i, i, 1_000_000 + i))


def write_json_feed(a):
    """JSON Feed 1.1: the plain items, their HTML in `content_html` (escaped as JSON, not as XML)."""
    import json
    rng = random.Random(42)
    per_item = int(a.target_mb * 1_000_000 / a.items)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write('{"version": "https://jsonfeed.org/version/1.1", "title": "Benchmark feed", '
                '"home_page_url": "https://example.com/", "items": [\n')
        for i in range(a.items):
            parts, size = [], 300
            while size + 150 < per_item:
                p = '<p>%s <a href="https://example.com/%d">link</a> &amp; more.</p>' % (
                    sentence(rng, rng.randint(8, 20)), i)
                parts.append(p)
                size += len(p)
            item = {"id": "post-%d" % i, "url": "https://example.com/posts/%d" % i,
                    "title": sentence(rng, rng.randint(5, 11)), "content_html": "".join(parts),
                    "date_published": "%d-%02d-%02dT%02d:%02d:00Z" % (2020 + i % 6, 1 + i % 12, 1 + i % 28, i % 24, i % 60),
                    "authors": [{"name": "Author %d" % (i % 97)}], "tags": rng.sample(CATS, rng.randint(1, 3))}
            f.write(("," if i else "") + json.dumps(item, ensure_ascii=False) + "\n")
        f.write("]}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--items", type=int, default=50000)
    ap.add_argument("--target-mb", type=float, default=60)
    ap.add_argument("--workload", choices=["plain", "dense", "mixed", "media"], default="plain")
    ap.add_argument("--format", choices=["rss", "atom", "xhtml", "json"], default="rss")
    a = ap.parse_args()
    if a.format == "json":
        return write_json_feed(a)
    dense = a.workload == "dense"
    mixed = a.workload == "mixed"
    xhtml = a.format == "xhtml"
    rng = random.Random(42)
    per_item = int(a.target_mb * 1_000_000 / a.items)
    atom = a.format in ("atom", "xhtml")
    with open(a.out, "w", encoding="utf-8") as f:
        if atom:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
                    '<title>Benchmark feed</title>\n<link href="https://example.com/"/>\n'
                    '<id>https://example.com/</id>\n<updated>2026-01-01T00:00:00Z</updated>\n')
        elif a.workload in ("mixed", "media"):
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
                    'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom" '
                    'xmlns:media="http://search.yahoo.com/mrss/" '
                    'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">\n<channel>\n'
                    '<title>Benchmark feed</title>\n<link>https://example.com/</link>\n'
                    '<atom:link href="https://example.com/feed.xml" rel="self" type="application/rss+xml"/>\n'
                    '<description>generated</description>\n')
        else:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
                'xmlns:dc="http://purl.org/dc/elements/1.1/">\n<channel>\n<title>Benchmark feed</title>\n'
                    '<link>https://example.com/</link>\n<description>generated</description>\n')
        for i in range(a.items):
            title = sentence(rng, rng.randint(5, 11))
            count = 3 if dense or mixed else rng.randint(1, 3)
            picked = rng.sample(CATS, count)
            if atom:
                cats = "".join('<category term="%s"/>' % c for c in picked)
                date = "%d-%02d-%02dT%02d:%02d:%02dZ" % (
                    2020 + i % 6, 1 + i % 12, 1 + i % 28, i % 24, i % 60, (i * 7) % 60)
                head = ('<entry>\n<title>%s</title>\n<link href="https://example.com/posts/%d"/>\n'
                        '<id>urn:post:%d</id>\n<updated>%s</updated>\n'
                        '<author><name>Author %d</name></author>\n%s\n%s' % (
                            title, i, i, date, i % 97, cats,
                            '<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">' if xhtml
                            else '<content type="html">'))
            else:
                cats = "".join("<category>%s</category>" % c for c in picked)
                date = "%s, %02d %s %d %02d:%02d:%02d +0000" % (
                    DAYS[i % 7], 1 + i % 28, MONTHS[i % 12], 2020 + i % 6, i % 24, i % 60, (i * 7) % 60)
                guid = "urn:uuid:%08x-0000-4000-8000-%012x" % (i, i * 7919) if mixed else "post-%d" % i
                extra = media_tags(rng, i) if a.workload == "media" else ""
                head = ('<item>\n<title>%s</title>\n<link>https://example.com/posts/%d</link>\n'
                        '<guid isPermaLink="false">%s</guid>\n<pubDate>%s</pubDate>\n'
                        '<dc:creator>Author %d</dc:creator>\n%s\n%s<description>' % (
                            title, i, guid, date, i % 97, cats, extra))
            if dense:
                body = dense_body(rng, i, per_item, len(head) + 30)
            elif mixed:
                body = mixed_body(rng, i, per_item, len(head) + 30)
            else:
                body = []
            size = per_item if dense or mixed else len(head) + 30
            while size + 150 < per_item:
                if xhtml:
                    p = '<p>%s <a href="https://example.com/%d">link</a> &amp; more.</p>' % (
                        sentence(rng, rng.randint(8, 20)), i)
                else:
                    p = "&lt;p&gt;%s &lt;a href=&quot;https://example.com/%d&quot;&gt;link&lt;/a&gt; &amp; more.&lt;/p&gt;" % (
                        sentence(rng, rng.randint(8, 20)), i)
                body.append(p)
                size += len(p)
            tail = ("</div></content>\n</entry>\n" if xhtml else "</content>\n</entry>\n") if atom \
                else "</description>\n</item>\n"
            f.write(head + "".join(body) + tail)
        f.write("</feed>\n" if atom else "</channel>\n</rss>\n")


if __name__ == "__main__":
    main()
