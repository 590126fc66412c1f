#!/usr/bin/env python3
"""Writes a deterministic RSS 2.0 feed for the parse benchmark.

Usage: gen-big-feed.py OUT [--items 50000] [--target-mb 60] [--workload plain|dense] [--format rss|atom]
Items have realistic titles, 1-3 categories, dc:creator, pubDate, a guid, and an escaped HTML description
sized so the file reaches about --target-mb megabytes. Same arguments, same bytes (seeded RNG).

--workload dense is the second harness's shape (issue #39): items of about 1.3 KB whose descriptions carry
about twenty escaped `&lt;`/`&gt;` each and some `&amp;`, non-ASCII text (São Paulo, Zürich, 東京), and
always three categories. It is what feeds of short HTML posts look like, and costs a parser more per byte
than the plain shape (whose paragraphs are longer between tags).

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--items", type=int, default=50000)
    ap.add_argument("--target-mb", type=float, default=60)
    ap.add_argument("--workload", choices=["plain", "dense"], default="plain")
    ap.add_argument("--format", choices=["rss", "atom"], default="rss")
    a = ap.parse_args()
    dense = a.workload == "dense"
    rng = random.Random(42)
    per_item = int(a.target_mb * 1_000_000 / a.items)
    atom = a.format == "atom"
    with open(a.out, "w", encoding="utf-8") as f:
        if atom:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
                    '<title>Benchmark feed</title>\n<link href="https://example.com/"/>\n'
                    '<id>https://example.com/</id>\n<updated>2026-01-01T00:00:00Z</updated>\n')
        else:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
                'xmlns:dc="http://purl.org/dc/elements/1.1/">\n<channel>\n<title>Benchmark feed</title>\n'
                    '<link>https://example.com/</link>\n<description>generated</description>\n')
        for i in range(a.items):
            title = sentence(rng, rng.randint(5, 11))
            count = 3 if dense else rng.randint(1, 3)
            picked = rng.sample(CATS, count)
            if atom:
                cats = "".join('<category term="%s"/>' % c for c in picked)
                date = "%d-%02d-%02dT%02d:%02d:%02dZ" % (
                    2020 + i % 6, 1 + i % 12, 1 + i % 28, i % 24, i % 60, (i * 7) % 60)
                head = ('<entry>\n<title>%s</title>\n<link href="https://example.com/posts/%d"/>\n'
                        '<id>urn:post:%d</id>\n<updated>%s</updated>\n'
                        '<author><name>Author %d</name></author>\n%s\n<content type="html">' % (
                            title, i, i, date, i % 97, cats))
            else:
                cats = "".join("<category>%s</category>" % c for c in picked)
                date = "%s, %02d %s %d %02d:%02d:%02d +0000" % (
                    DAYS[i % 7], 1 + i % 28, MONTHS[i % 12], 2020 + i % 6, i % 24, i % 60, (i * 7) % 60)
                head = ('<item>\n<title>%s</title>\n<link>https://example.com/posts/%d</link>\n'
                        '<guid isPermaLink="false">post-%d</guid>\n<pubDate>%s</pubDate>\n'
                        '<dc:creator>Author %d</dc:creator>\n%s\n<description>' % (title, i, i, date, i % 97, cats))
            body = dense_body(rng, i, per_item, len(head) + 30) if dense else []
            size = per_item if dense else len(head) + 30
            while size + 150 < per_item:
                p = "&lt;p&gt;%s &lt;a href=&quot;https://example.com/%d&quot;&gt;link&lt;/a&gt; &amp; more.&lt;/p&gt;" % (
                    sentence(rng, rng.randint(8, 20)), i)
                body.append(p)
                size += len(p)
            tail = "</content>\n</entry>\n" if atom else "</description>\n</item>\n"
            f.write(head + "".join(body) + tail)
        f.write("</feed>\n" if atom else "</channel>\n</rss>\n")


if __name__ == "__main__":
    main()
