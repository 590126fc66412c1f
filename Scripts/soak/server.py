#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A loopback feed server that misbehaves at random, for Scripts/soak.sh (issue #7).
# Usage: server.py WORKDIR FEEDS. Prints its port on stdout. Every feed gains an item every few seconds
# and keeps its last 40. About a third of the requests misbehave: 500s, 429s with Retry-After, slow and
# stalled bodies, truncated bodies, connection resets, garbage, bodies larger than watcher's limit.
# While WORKDIR/calm exists every answer is good. Every item id sent in a complete, good response is
# appended to WORKDIR/served.txt (once), so the driver can check that each one reached a hook.
import hashlib, os, random, socket, sys, threading, time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

work, feed_count = sys.argv[1], int(sys.argv[2])
start = time.time()
served, served_lock = set(), threading.Lock()
served_file = open(os.path.join(work, "served.txt"), "a", buffering=1)
counts, counts_lock = {}, threading.Lock()


def items_of(feed):
    period = 5 + feed % 7  # seconds between new items, different per feed
    newest = int((time.time() - start) / period) + 3
    return list(range(max(0, newest - 40), newest + 1)), period


def document(feed):
    numbers, period = items_of(feed)
    parts = ['<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel>',
             f"<title>soak feed {feed}</title><link>http://example.invalid/{feed}</link>"]
    # One feed in ten sends huge titles and descriptions (20 KB each), which digest and notify rules keep:
    # the files every feed shares must stay within their budgets and readable.
    huge = feed % 10 == 9
    for n in reversed(numbers):
        title = f"Feed {feed} item {n} &amp; more" + (" huge" + " words" * 4000 if huge else "")
        text = "Body text with <b>markup</b>. " * (700 if huge else 20)
        parts.append(f"<item><title>{title}</title><guid>soak-{feed}-{n}</guid>"
                     f"<link>http://example.invalid/{feed}/{n}</link>"
                     f"<description>{text}</description></item>")
    parts.append("</channel></rss>\n")
    body = "".join(parts).encode()
    modified = start + numbers[-1] * period
    return body, [f"soak-{feed}-{n}" for n in numbers], formatdate(modified, usegmt=True)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def count(self, what):
        with counts_lock:
            counts[what] = counts.get(what, 0) + 1

    def do_GET(self):
        try:
            feed = int(self.path.strip("/").split("/")[-1].split(".")[0])
        except ValueError:
            self.send_error(404)
            return
        calm = os.path.exists(os.path.join(work, "calm"))
        roll = 100 if calm else random.randrange(100)
        if roll < 8:
            self.count("500")
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if roll < 12:
            self.count("429")
            self.send_response(429)
            self.send_header("Retry-After", "4")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if roll < 17:
            self.count("reset")
            self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.close_connection = True
            self.request.close()
            return
        body, ids, modified = document(feed)
        etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
        if roll < 21:
            self.count("garbage")
            body = os.urandom(random.randrange(10, 5000))
            ids = []  # nothing readable was sent: these items are not served
        elif roll < 24:
            self.count("huge")
            self.send_response(200)
            self.send_header("Content-Type", "application/rss+xml")
            self.send_header("Content-Length", str(5_000_000))
            self.end_headers()
            try:
                chunk = b"<rss>" + b"x" * 65_531
                for _ in range(5_000_000 // len(chunk)):
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True
            return
        elif roll < 28:
            self.count("truncated")
            self.send_response(200)
            self.send_header("Content-Type", "application/rss+xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body[: len(body) // 2])
            except OSError:
                pass
            self.close_connection = True
            return
        elif roll < 32:
            self.count("stalled")  # longer than watcher's timeout
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body[:100])
                time.sleep(6)
                self.wfile.write(body[100:])
            except OSError:
                pass
            self.close_connection = True
            return
        if self.headers.get("If-None-Match") == etag and roll >= 34:
            self.count("304")
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        slow = roll in (32, 33)
        self.count("slow" if slow else "200")
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", modified)
        self.end_headers()
        try:
            if slow:
                self.wfile.write(body[: len(body) // 3])
                self.wfile.flush()
                time.sleep(1)
            self.wfile.write(body[len(body) // 3 if slow else 0:])
            self.wfile.flush()
        except OSError:
            return
        with served_lock:  # a good document, sent whole: record its ids
            for item in ids:
                if item not in served:
                    served.add(item)
                    served_file.write(item + "\n")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)


def report():
    while True:
        time.sleep(10)
        with counts_lock:
            line = " ".join(f"{k}={v}" for k, v in sorted(counts.items()))
        with open(os.path.join(work, "server-counts.txt"), "w") as f:
            f.write(line + "\n")


threading.Thread(target=report, daemon=True).start()
server.serve_forever()
