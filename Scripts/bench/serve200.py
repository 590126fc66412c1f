#!/usr/bin/env python3
# A server that ignores conditional GET, as many do: every request gets 200 and the whole file, with no
# ETag or Last-Modified. Usage: python3 Scripts/bench/serve200.py DIRECTORY PORT
import http.server, sys, os
class H(http.server.SimpleHTTPRequestHandler):
    def send_head(self):
        # Ignore conditional GET: always 200 with the whole body, no validators.
        path = self.translate_path(self.path)
        f = open(path, 'rb'); fs = os.fstat(f.fileno())
        self.send_response(200); self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(fs.st_size)); self.end_headers(); return f
    def log_message(self, *a): pass
os.chdir(sys.argv[1]); http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), H).serve_forever()
