#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""watcher against sfeed, newsboat, rss2email and feed2exec, side by side in one run (issue #8).

Usage: peers.py WATCHER VENV WORKDIR [--runs 3] [--feeds 200] [--items 50] [--big BIG.xml]

The workload: FEEDS feeds x ITEMS items, RSS 2.0 and Atom alternating, realistic titles, 1-3 categories,
1-2 KB HTML descriptions; a second generation where 10% of each feed's items are new. nginx serves it
on 127.0.0.1 with ETag, Last-Modified and gzip, and logs every status. Every tool runs the same
scenarios with a per-item hook that appends the item's title to a file (a /bin/sh per item, as each
tool runs its hooks); the file is checked against the items that were new, so a fast wrong answer
cannot win. Each scenario is timed with wait4 (wall, CPU of the tool and everything it started, peak
RSS), median of RUNS, from the same starting state each time.
"""
import argparse, html, json, os, random, shutil, socket, statistics, subprocess, sys, tempfile, time

TOOLS = ["watcher", "watcher-sh-c", "watcher-run", "sfeed", "newsboat", "rss2email", "feed2exec"]
SCENARIOS = [
    ("cold", "cold first poll: act on every item"),
    ("cold1", "cold first poll, one core (taskset -c 0)"),
    ("catchup", "cold: mark everything seen"),
    ("unchanged", "re-poll, nothing changed"),
    ("nocond", "re-poll, nothing changed, server ignores conditional GET"),
    ("new10", "re-poll, 10% new"),
]
# The tools whose runs take minutes: measured --slow-runs times (default 1), the others --runs times.
SLOW = {"rss2email", "feed2exec"}
PROJECTS = ["Linux", "GNOME", "KDE Plasma", "Swift", "Rust", "Python", "Firefox", "systemd", "Wayland",
            "PostgreSQL", "nginx", "curl", "OpenSSL", "Debian", "Fedora", "LLVM", "Git", "Vim", "Emacs", "Go"]
PATTERNS = ["{p} {v} released", "Security advisory for {p} {v}", "What is new in {p} {v}",
            "{p} {v}: faster startup and fewer crashes", "Call for testing: {p} {v} beta",
            "How we moved to {p} {v}", "{p} {v} drops support for old hardware"]
CATEGORIES = ["release", "security", "linux", "desktop", "programming", "database", "web", "tools",
              "distribution", "community"]
WORDS = ("the a new faster memory kernel driver support update fix release users developers build "
         "package network storage security patch performance desktop server cloud version").split()


PLACES = ["São Paulo", "Zürich", "Kraków", "東京", "Reykjavík", "Montréal", "İstanbul", "Łódź"]
# "plain": the first workload. "dense": the second harness's (issue #39): items of about 1.3 KB with about
# twenty escaped tags each and some `&amp;`, non-ASCII text, dc:creator and always three categories.
WORKLOAD = "plain"


def title_of(feed, item, gen):
    rng = random.Random(feed * 100_000 + item * 10 + gen)
    p = rng.choice(PROJECTS)
    v = "%d.%d" % (rng.randrange(1, 40), rng.randrange(0, 20))
    place = " in %s" % rng.choice(PLACES) if WORKLOAD == "dense" else ""
    return rng.choice(PATTERNS).format(p=p, v=v) + place + " (%d.%d.%d)" % (feed, item, gen)


def dense_description(rng):
    """About 1 KB: paragraphs of a sentence or two, each with a little inline markup or an `&`."""
    paragraphs, size, target = [], 0, rng.randrange(850, 1150)
    while size < target:
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(18, 32)))
        inline = rng.choice(["<em>%s</em>" % rng.choice(PLACES), "%s & %s" % (rng.choice(PLACES), rng.choice(WORDS)),
                             rng.choice(PLACES)])
        p = "<p>%s %s.</p>" % (words.capitalize(), inline)
        paragraphs.append(p)
        size += len(p.encode())
    return "".join(paragraphs)


def description(rng):
    if WORKLOAD == "dense":
        return dense_description(rng)
    paragraphs, size, target = [], 0, rng.randrange(1000, 2000)
    while size < target:
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(12, 30)))
        p = "<p>%s <a href=\"https://example.com/%d\">details</a> and <em>%s</em>.</p>" % (
            words.capitalize(), rng.randrange(10**6), rng.choice(WORDS))
        paragraphs.append(p)
        size += len(p)
    return "".join(paragraphs)


def items_of(feed, items, gen):
    """(item number, generation) of each item in generation `gen`: 10% of them new in gen 1."""
    new = items // 10 if gen else 0
    return [(i, gen if i < new else 0) for i in range(items)]


def write_feeds(www, feeds, items, gen):
    os.makedirs(www, exist_ok=True)
    titles = []
    for f in range(feeds):
        rng = random.Random(f)
        atom = f % 2 == 1
        out = []
        if atom:
            out.append('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
                       "<title>Feed %d</title><id>urn:feed:%d</id><updated>2026-11-29T10:00:00Z</updated>"
                       '<link href="https://example.com/%d/"/>' % (f, f, f))
        else:
            out.append('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" '
                       'xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>Feed %d</title>'
                       "<link>https://example.com/%d/</link><description>bench</description>" % (f, f))
        for i, g in items_of(f, items, gen):
            irng = random.Random(f * 100_000 + i * 10 + g)
            title = title_of(f, i, g)
            titles.append(title)
            cats = irng.sample(CATEGORIES, 3 if WORKLOAD == "dense" else irng.randrange(1, 4))
            creator = "Author %d" % irng.randrange(40) if WORKLOAD == "dense" else ""
            body = html.escape(description(irng), quote=False)
            minute = (items - i) % 60
            if atom:
                out.append("<entry><title>%s</title><id>urn:item:%d:%d:%d</id><link href=\"https://example.com/%d/%d/%d\"/>"
                           "<updated>2026-11-29T09:%02d:00Z</updated>%s%s<content type=\"html\">%s</content></entry>"
                           % (html.escape(title), f, i, g, f, i, g, minute,
                              "<author><name>%s</name></author>" % creator if creator else "",
                              "".join('<category term="%s"/>' % c for c in cats), body))
            else:
                out.append("<item><title>%s</title><guid>urn:item:%d:%d:%d</guid><link>https://example.com/%d/%d/%d</link>"
                           "<pubDate>Sun, 29 Nov 2026 09:%02d:00 GMT</pubDate>%s%s<description>%s</description></item>"
                           % (html.escape(title), f, i, g, f, i, g, minute,
                              "<dc:creator>%s</dc:creator>" % creator if creator else "",
                              "".join("<category>%s</category>" % c for c in cats), body))
        out.append("</feed>\n" if atom else "</channel></rss>\n")
        path = os.path.join(www, "feed%d.xml" % f)
        with open(path, "w") as fh:
            fh.write("".join(out))
        stamp = 1_700_000_000 + gen * 1000  # nginx's ETag is mtime + size: each generation its own
        os.utime(path, (stamp, stamp))
    return titles


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Nginx:
    def __init__(self, work, root):
        self.work, self.port, self.root = work, free_port(), root
        self.log = os.path.join(work, "nginx", "access.log")
        os.makedirs(os.path.join(work, "nginx"), exist_ok=True)
        self.conf = os.path.join(work, "nginx", "nginx.conf")
        self.write_conf(conditional=True)
        self.process = subprocess.Popen(["nginx", "-c", self.conf, "-p", work], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.1).close()
                break
            except OSError:
                time.sleep(0.05)

    def conditional(self, on):
        """Answers conditional GET (ETag, If-Modified-Since) or, as many servers do, ignores it: 200 every time."""
        self.write_conf(conditional=on)
        subprocess.run(["nginx", "-s", "reload", "-c", self.conf, "-p", self.work], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # the old workers finish, the new ones take over

    def write_conf(self, conditional):
        work, root, conf = self.work, self.root, self.conf
        validators = "etag on;" if conditional else "etag off; if_modified_since off;"
        with open(conf, "w") as fh:
            fh.write("""daemon off; worker_processes 2; pid %(w)s/nginx/nginx.pid; error_log %(w)s/nginx/error.log;
events { worker_connections 4096; }
http { log_format s '$status'; access_log %(log)s s; sendfile on;
  gzip on; gzip_types application/rss+xml application/atom+xml text/xml application/xml; gzip_min_length 256;
  types { application/xml xml; } client_body_temp_path %(w)s/nginx; proxy_temp_path %(w)s/nginx;
  fastcgi_temp_path %(w)s/nginx; uwsgi_temp_path %(w)s/nginx; scgi_temp_path %(w)s/nginx;
  server { listen 127.0.0.1:%(p)d; root %(root)s; %(v)s disable_symlinks off; } }
""" % {"w": work, "p": self.port, "root": root, "log": self.log, "v": validators})

    def url(self, f):
        return "http://127.0.0.1:%d/feed%d.xml" % (self.port, f)

    def mark(self):
        return os.path.getsize(self.log) if os.path.exists(self.log) else 0

    def counts(self, since):
        with open(self.log) as fh:
            fh.seek(since)
            lines = fh.read().split()
        return sum(1 for s in lines if s == "200"), sum(1 for s in lines if s == "304")

    def stop(self):
        self.process.terminate()
        self.process.wait()


ALL_CPU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "all-cpu.py")


def timed(cmd, env, cwd=None, one_core=False, busy=False):
    """(wall, CPU, peak RSS, exit code, stderr's tail) of `cmd`, run under all-cpu.py: the CPU is that of every
    process it started, however deep, and every process it left behind (a plain wait4 misses a hook reaped by
    a helper that is never waited for). `one_core` pins it and all its processes to CPU 0; with `busy`, a
    shell loop keeps one core busy meanwhile (a desktop where something else runs)."""
    # stderr goes to a file, not a pipe: a tool that logs a lot (rss2email) would block on a full pipe.
    with tempfile.TemporaryFile() as errors, tempfile.NamedTemporaryFile(suffix=".json") as result:
        pin = ["taskset", "-c", "0"] if one_core else []
        spinner = subprocess.Popen(["/bin/sh", "-c", "while :; do :; done"]) if busy else None
        if spinner:
            time.sleep(0.2)
        p = subprocess.Popen([sys.executable, ALL_CPU, result.name] + pin + cmd, env=env, cwd=cwd,
                             stdout=subprocess.DEVNULL, stderr=errors)
        p.wait()
        if spinner:
            spinner.kill()
            spinner.wait()
        errors.seek(0)
        err = errors.read()[-4000:].decode(errors="replace")
        r = json.load(open(result.name))
    return r["wall"], r["cpu"], r["rss"], r["code"], err


# The hook every tool runs per item, in `sh -c` (watcher's `hook:`, sfeed's loop, the floors): the title,
# from $WATCHER_TITLE or "$1", appended to a file.
HOOK = "printf '%%%%s\\n' \"%s\" >> '%%s'"


def shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def write(path, text, mode=0o644):
    with open(path, "w") as fh:
        fh.write(text)
    os.chmod(path, mode)


class Tool:
    """One tool: its files under WORK/NAME, how to run a scenario, and where its mutable state is."""
    per_item_hook = True
    parallel = ""
    scenarios = ("cold", "catchup", "unchanged", "nocond", "new10")  # the one-core row is watcher's and sfeed's

    def __init__(self, name, work, nginx, feeds, env):
        self.name, self.dir, self.nginx, self.feeds = name, os.path.join(work, name), nginx, feeds
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.out = os.path.join(self.dir, "hook-out.txt")
        self.hook = os.path.join(self.dir, "hook.sh")
        write(self.hook, "#!/bin/sh\nprintf '%%s\\n' \"$1\" >> '%s'\n" % self.out, 0o755)
        self.env = dict(env, HOME=self.dir, XDG_CONFIG_HOME=os.path.join(self.dir, ".config"),
                        XDG_CACHE_HOME=os.path.join(self.dir, ".cache"),
                        XDG_DATA_HOME=os.path.join(self.dir, ".local/share"),
                        XDG_STATE_HOME=os.path.join(self.dir, ".local/state"))
        self.state_paths = []  # what a scenario's starting state consists of
        self.setup()

    def reset(self):
        for path in self.state_paths + [self.out]:
            if os.path.isdir(path):
                shutil.rmtree(path)
            elif os.path.exists(path):
                os.remove(path)

    def save(self, tag):
        saved = os.path.join(self.dir, "saved-" + tag)
        shutil.rmtree(saved, ignore_errors=True)
        os.makedirs(saved)
        for i, path in enumerate(self.state_paths):
            if os.path.isdir(path):
                shutil.copytree(path, os.path.join(saved, str(i)), symlinks=True)
            elif os.path.exists(path):
                shutil.copy2(path, os.path.join(saved, str(i)))

    def restore(self, tag):
        self.reset()
        saved = os.path.join(self.dir, "saved-" + tag)
        for i, path in enumerate(self.state_paths):
            source = os.path.join(saved, str(i))
            if os.path.isdir(source):
                shutil.copytree(source, path, symlinks=True)
            elif os.path.exists(source):
                shutil.copy2(source, path)

    def hook_lines(self):
        if not os.path.exists(self.out):
            return []
        with open(self.out) as fh:
            return fh.read().splitlines()


class Watcher(Tool):
    def setup(self):
        self.state = os.path.join(self.dir, "state")
        self.state_paths = [self.state]
        feeds = "".join("  - { url: '%s', name: f%d }\n" % (self.nginx.url(f), f) for f in range(self.feeds))
        rule = "rules:\n  - match: { title: '(' }\n    hook: { command: %s }\n" % json.dumps(
            HOOK % "$WATCHER_TITLE" % self.out)
        for first in ("all", "silent"):
            write(os.path.join(self.dir, "%s.yaml" % first),
                  "settings:\n  interval: 1s\n  first_poll: %s\n  max_age: none\n  state_dir: %s\nfeeds:\n%s%s"
                  % (first, self.state, feeds, rule))

    scenarios = None

    def command(self, scenario):
        config = os.path.join(self.dir, "all.yaml")
        if scenario == "catchup":
            return [WATCHER, "catch-up", "--config", config]
        return [WATCHER, "poll", "--config", config]


class WatcherRun(Watcher):
    """watcher with a run: hook: the program and the title as one argument, no shell in between."""
    scenarios = ("cold", "cold1", "new10")

    def rule(self):
        return "hook: { run: ['%s', '{title}'] }" % self.hook

    def setup(self):
        super().setup()
        for first in ("all", "silent"):
            path = os.path.join(self.dir, "%s.yaml" % first)
            text = open(path).read()
            write(path, text[:text.index("rules:\n")] + "rules:\n  - match: { title: '(' }\n    %s\n" % self.rule())


class WatcherShC(WatcherRun):
    """watcher with the hook written as a shell of its own: `sh -c '…'`, as one might copy it from another tool."""

    def rule(self):
        return "hook: { command: %s }" % json.dumps("sh -c " + shell_quote(HOOK % "$WATCHER_TITLE" % self.out))


class Sfeed(Tool):
    parallel = "maxjobs=8"
    scenarios = ("cold", "cold1", "catchup", "unchanged", "nocond", "new10")

    def setup(self):
        self.feeds_dir = os.path.join(self.dir, "feeds")
        self.state_paths = [self.feeds_dir]
        lines = "".join("\tfeed 'f%d' '%s'\n" % (f, self.nginx.url(f)) for f in range(self.feeds))
        write(os.path.join(self.dir, "sfeedrc"), "sfeedpath='%s'\nmaxjobs=8\nfeeds() {\n%s}\n" % (self.feeds_dir, lines))
        # sfeed has no hook: the usual way is to compare each feed's TSV file before and after
        # sfeed_update and act on the lines with a new id (field 6); title is field 2.
        write(os.path.join(self.dir, "run.sh"), """#!/bin/sh
set -e
cd '%(d)s'
rm -rf before && mkdir -p before feeds && cp -R feeds/. before/
sfeed_update sfeedrc >/dev/null 2>&1 || true
[ "$1" = catchup ] && exit 0
for f in feeds/*; do
  [ -f "$f" ] || continue
  old="before/${f#feeds/}"; [ -f "$old" ] || : > "$old"
  awk -F '\\t' 'FILENAME == ARGV[1] { seen[$6] = 1; next } !($6 in seen) { print $2 }' "$old" "$f"
done | while IFS= read -r title; do sh -c %(h)s sh "$title"; done
""" % {"d": self.dir, "h": shell_quote(HOOK % "$1" % self.out)}, 0o755)

    def command(self, scenario):
        return ["/bin/sh", os.path.join(self.dir, "run.sh"), scenario]


class Newsboat(Tool):
    per_item_hook = False
    parallel = "reload-threads 8"

    def setup(self):
        self.cache = os.path.join(self.dir, "cache.db")
        self.state_paths = [self.cache]
        write(os.path.join(self.dir, "urls"), "".join(self.nginx.url(f) + "\n" for f in range(self.feeds)))
        write(os.path.join(self.dir, "config"), "reload-threads 8\n")

    def command(self, scenario):
        return ["newsboat", "-x", "reload", "-u", os.path.join(self.dir, "urls"), "-c", self.cache,
                "-C", os.path.join(self.dir, "config")]


class Rss2email(Tool):
    def setup(self):
        self.data = os.path.join(self.dir, "r2e.json")
        self.config = os.path.join(self.dir, "r2e.cfg")
        self.state_paths = [self.data]
        # rss2email mails each new item: its "sendmail" is our hook, which takes the Subject (the title).
        sendmail = os.path.join(self.dir, "sendmail.sh")
        write(sendmail, "#!/bin/sh\nsed -n 's/^Subject: //p' | head -n 1 >> '%s'\n" % self.out, 0o755)
        sections = "".join("[feed.f%d]\nurl = %s\n\n" % (f, self.nginx.url(f)) for f in range(self.feeds))
        write(self.config, "[DEFAULT]\nto = you@example.com\nfrom = bench@example.com\nemail-protocol = sendmail\n"
              "sendmail = %s\nhtml-mail = False\nuse-8bit = True\n\n%s" % (sendmail, sections))

    def reset(self):
        super().reset()
        write(self.data, '{"version": 2, "feeds": []}\n')

    def command(self, scenario):
        extra = ["--no-send"] if scenario == "catchup" else []
        return [os.path.join(VENV, "bin", "r2e"), "-c", self.config, "-d", self.data, "run"] + extra


class Feed2exec(Tool):
    parallel = "-j 8"

    def setup(self):
        self.config = os.path.join(self.dir, "feed2exec.ini")
        self.db = os.path.join(self.dir, "feed2exec.db")
        self.state_paths = [self.db, os.path.join(self.dir, ".cache")]
        sections = "".join("[f%d]\nurl = %s\noutput = feed2exec.plugins.exec\nargs = %s {item.title}\n\n"
                           % (f, self.nginx.url(f), self.hook) for f in range(self.feeds))
        write(self.config, sections)

    def command(self, scenario):
        extra = ["--catchup"] if scenario == "catchup" else []
        return [os.path.join(VENV, "bin", "feed2exec"), "--config", self.config, "--database", self.db,
                "fetch", "-j", "8"] + extra


CLASSES = {"watcher": Watcher, "watcher-sh-c": WatcherShC, "watcher-run": WatcherRun, "sfeed": Sfeed, "newsboat": Newsboat, "rss2email": Rss2email, "feed2exec": Feed2exec}


def check(lines, expected, per_item):
    if not per_item:
        return "n/a (no per-item hook)"
    if sorted(lines) == sorted(expected):
        return "ok (%d)" % len(lines)
    missing = len(set(expected) - set(lines))
    extra = len(set(lines) - set(expected))
    dups = len(lines) - len(set(lines))
    return "WRONG: %d missing, %d extra, %d repeated of %d" % (missing, extra, dups, len(expected))


def serve(work, gen):
    link = os.path.join(work, "www")
    if os.path.islink(link):
        os.remove(link)
    os.symlink("www%d" % gen, link)


def floor_hook(work):
    """The hook of the floors, quoted for a shell: the tools' own, writing to a file of its own."""
    return shell_quote(HOOK % "$1" % os.path.join(work, "floor-hook-out.txt"))


def spread_hooks(work, count):
    """The floor of `count` hooks: as many `sh -c` as items, spread over every core by xargs -P."""
    hook = floor_hook(work)
    return ["/bin/sh", "-c", "seq %d | xargs -P %d -I{} sh -c %s sh 'title {}'" % (count, os.cpu_count() or 1, hook)]


def measure_floors(work, nginx, feeds, total, hook_count, big, paired):
    """The floors; `paired` holds samples of the floor of `total` hooks already taken, each right after one of
    watcher's cold polls (both cores, one core), whose median stands for that floor."""
    floors = []
    urls = []
    for f in range(feeds):
        urls += ["-o", "/dev/null", nginx.url(f)]
    wall, cpu, rss, code, _ = timed(["curl", "-s", "--compressed", "--parallel", "--parallel-max", "8"] + urls, os.environ)
    floors.append(("all %d feeds in one curl process (--parallel, 8)" % feeds, wall, cpu, rss))
    hook = floor_hook(work)
    cores = os.cpu_count() or 1
    for count in (total, hook_count):
        loop = "i=0; while [ $i -lt %d ]; do sh -c %s sh \"title $i\"; i=$((i+1)); done" % (count, hook)
        wall, cpu, rss, code, _ = timed(["/bin/sh", "-c", loop], os.environ)
        floors.append(("%d hooks back to back (sh -c per item)" % count, wall, cpu, rss))
        for label, one_core in (("spread over all %d cores (xargs -P)" % cores, False),
                                ("on one core (xargs -P, taskset -c 0)", True)):
            samples = paired.get(one_core) if count == total else None
            if samples:
                wall, cpu, rss = (statistics.median(s[i] for s in samples) for i in range(3))
                label += ", median of %d, each right after a cold poll of watcher's" % len(samples)
            else:
                wall, cpu, rss, code, _ = timed(spread_hooks(work, count), os.environ, one_core=one_core)
            floors.append(("%d hooks %s" % (count, label), wall, cpu, rss))
    if big:
        wall, cpu, rss, code, _ = timed(["xmllint", "--stream", "--noout", big], os.environ)
        floors.append(("xmllint --stream on the big feed", wall, cpu, rss))
    return floors


# Rounds of the parse rows, whatever --runs says (half as many for the huge feed).
PARSE_ROUNDS = 9
# The parse rows measured while another process keeps one core busy.
BUSY = ", another process keeps a core busy"
# watcher's other forms of the parse: `watcher parse FEED` (the readable summary), `watcher parse - < FEED`.
TEXT = "watcher, readable summary (no --json)"
STDIN = "watcher, from standard input (parse --json - < FEED)"


def parse_big(big, runs, slow_runs, peers=True):
    size = os.path.getsize(big)
    commands = [
        ("watcher", [WATCHER, "parse", "--json", "--max-size", str(size + 1), "--max-items", "10000000", big]),
        ("sfeed", ["/bin/sh", "-c", "sfeed < '%s'" % big]),
        ("xmllint --stream (libxml2 alone)", ["xmllint", "--stream", "--noout", big]),
        # The other ways to ask: the readable summary, and the feed on standard input (as sfeed reads it).
        (TEXT, [WATCHER, "parse", "--max-size", str(size + 1), "--max-items", "10000000", big]),
        (STDIN, ["/bin/sh", "-c", "'%s' parse --json --max-size %d --max-items 10000000 - < '%s'" % (
            WATCHER, size + 1, big)]),
    ]
    if peers:
        commands.append(("feedparser (rss2email, feed2exec)", [
            os.path.join(VENV, "bin", "python"), "-c", "import feedparser, sys; feedparser.parse(sys.argv[1])", big]))
    # The fast parsers run in turn (watcher, sfeed, xmllint, watcher, ...), not each one's runs back to back:
    # this machine's speed drifts over minutes, and taking turns puts every parser under the same drift.
    commands[2:2] = [(name + suffix, cmd) for suffix in (", one core", BUSY) for name, cmd in commands[:2]]
    samples_of = {name: [] for name, _ in commands}
    # The rows beside a busy core take their turns after the others', so that those are measured as before.
    for busy in (False, True):
        for _ in range(runs):
            for name, cmd in commands:
                if not name.startswith("feedparser") and name.endswith(BUSY) == busy:
                    samples_of[name].append(timed(cmd, os.environ, one_core=name.endswith("one core"), busy=busy))
    for name, cmd in commands:
        if name.startswith("feedparser"):
            samples_of[name] = [timed(cmd, os.environ) for _ in range(slow_runs)]
    rows = []
    for name, cmd in commands:
        samples = samples_of[name]
        bad = [s for s in samples if s[3] != 0]
        rows.append((name, statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples),
                     max(s[2] for s in samples), "exit %d" % bad[0][3] if bad else "ok"))
    return rows


def poll_cap(work, feed, runs):
    """watcher polling one feed just under the 20 MB cap from a server that ignores conditional GET: the
    first poll (silent: identity only), a re-poll (every item already seen), and a first poll that acts on
    every item (rules run, no rule matches). Peak RSS against the body's size."""
    d = os.path.join(work, "cap")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    shutil.copy(feed, os.path.join(d, "cap.xml"))
    port = free_port()
    server = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "serve200.py"), d, str(port)])
    time.sleep(1)
    rows = []
    # What the process holds whatever the feed (code, Foundation, ICU's data): a poll of a one-item feed.
    write(os.path.join(d, "tiny.xml"), "<rss version='2.0'><channel><title>t</title><item><title>x</title>"
          "<guid>1</guid></item></channel></rss>")
    try:
        for label, first in (("a one-item feed (the baseline)", "silent"), ("first poll (silent)", "silent"), ("re-poll, all seen", "silent"),
                             ("first poll acting on every item", "all")):
            samples = []
            for _ in range(runs):
                state = os.path.join(d, "state-" + first)
                if label != "re-poll, all seen":
                    shutil.rmtree(state, ignore_errors=True)
                config = os.path.join(d, first + ".yaml")
                name = "tiny.xml" if "baseline" in label else "cap.xml"
                write(config, "settings: { first_poll: %s, max_age: none, state_dir: %s, max_items: 1000000 }\n"
                      "feeds:\n  - { url: 'http://127.0.0.1:%d/%s', name: cap }\n"
                      "rules:\n  - { match: { title: 'no such title anywhere' }, tag: [x] }\n"
                      % (first, state, port, name))
                samples.append(timed([WATCHER, "poll", "--force", "--config", config], os.environ))
            rows.append((label, statistics.median(s[0] for s in samples), max(s[2] for s in samples)))
    finally:
        server.terminate()
        server.wait()
    return os.path.getsize(feed), rows


def memory_1000(work, nginx, feeds):
    d = os.path.join(work, "memory")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "state"))
    config = os.path.join(d, "rules.yaml")
    write(config, "settings:\n  interval: 1h\n  first_poll: silent\n  state_dir: %s\nfeeds:\n%s" % (
        os.path.join(d, "state"),
        "".join("  - { url: '%s?n=%d', name: m%d }\n" % (nginx.url(i % feeds), i, i) for i in range(1000))))
    p = subprocess.Popen([WATCHER, "run", "--config", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        if len([n for n in os.listdir(os.path.join(d, "state")) if n.endswith(".json")]) >= 1000:
            break
        time.sleep(0.5)
    time.sleep(2)
    status = open("/proc/%d/status" % p.pid).read()
    value = {l.split(":")[0]: int(l.split()[1]) for l in status.splitlines() if l.startswith(("VmHWM", "VmRSS"))}
    p.terminate()
    p.wait()
    return value.get("VmHWM", 0), value.get("VmRSS", 0)


def main():
    global WATCHER, VENV, WORKLOAD
    ap = argparse.ArgumentParser()
    ap.add_argument("watcher")
    ap.add_argument("venv")
    ap.add_argument("workdir")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--slow-runs", type=int, default=1)
    ap.add_argument("--cap-feed", help="a feed just under the 20 MB cap, polled alone (peak RSS vs body)")
    ap.add_argument("--huge", help="a second, larger feed for the parse (watcher and sfeed only)")
    ap.add_argument("--feeds", type=int, default=200)
    ap.add_argument("--items", type=int, default=50)
    ap.add_argument("--big")
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--workload", choices=["plain", "dense"], default="plain",
                    help="plain: the first workload; dense: the second harness's (1.3 KB items, ~20 escaped tags each)")
    a = ap.parse_args()
    WORKLOAD = a.workload
    WATCHER, VENV = os.path.abspath(a.watcher), os.path.abspath(a.venv)
    work = os.path.abspath(a.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    titles0 = write_feeds(os.path.join(work, "www0"), a.feeds, a.items, 0)
    titles1 = write_feeds(os.path.join(work, "www1"), a.feeds, a.items, 1)
    new_titles = sorted(set(titles1) - set(titles0))
    serve(work, 0)
    nginx = Nginx(work, os.path.join(work, "www"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    results = {}  # (scenario, tool) -> (wall, cpu, rss, 200s, 304s, check)
    paired = {}  # one core? -> samples of the floor of as many hooks, each taken after a cold poll of watcher's
    try:
        for name in a.tools.split(","):
            tool = CLASSES[name](name, work, nginx, a.feeds, env)
            for scenario, _ in SCENARIOS:
                if tool.scenarios and scenario not in tool.scenarios:
                    continue
                samples = []
                for run in range(a.slow_runs if name in SLOW else a.runs):
                    if scenario in ("cold", "cold1", "catchup"):
                        tool.reset()
                    else:
                        if not os.path.isdir(os.path.join(tool.dir, "saved-seen")):
                            # A tool measured without catch-up still needs the state after it.
                            tool.reset()
                            serve(work, 0)
                            timed(tool.command("catchup"), tool.env, cwd=tool.dir)
                            tool.save("seen")
                        tool.restore("seen")
                    serve(work, 1 if scenario == "new10" else 0)
                    if scenario == "nocond":
                        nginx.conditional(False)
                    # Every tool gets the same pause (untimed): watcher's interval is 1 s, and a feed
                    # polled less than an interval ago is not due.
                    time.sleep(1.2)
                    mark = nginx.mark()
                    wall, cpu, rss, code, err = timed(tool.command(scenario), tool.env, cwd=tool.dir,
                                                      one_core=scenario == "cold1")
                    ok200, ok304 = nginx.counts(mark)
                    if scenario == "nocond":
                        nginx.conditional(True)
                    expected = {"cold": titles0, "cold1": titles0, "new10": new_titles}.get(scenario, [])
                    verdict = check(tool.hook_lines(), expected, tool.per_item_hook)
                    if code != 0:
                        verdict = "exit %d: %s" % (code, err.strip().splitlines()[-1][:80] if err.strip() else "")
                    samples.append((wall, cpu, rss, ok200, ok304, verdict))
                    if scenario == "catchup" and run == 0:
                        tool.save("seen")
                    serve(work, 0)
                    if name == "watcher" and scenario in ("cold", "cold1"):
                        # The floor of as many shells, taken right after, so the two share the machine's
                        # speed of the minute (it drifts by a third; the floors once ran minutes later).
                        one_core = scenario == "cold1"
                        paired.setdefault(one_core, []).append(
                            timed(spread_hooks(work, len(titles0)), os.environ, one_core=one_core)[:3])
                verdicts = sorted(set(s[5] for s in samples))
                results[(scenario, name)] = (
                    statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples),
                    max(s[2] for s in samples), samples[-1][3], samples[-1][4], "; ".join(verdicts))
                print("%-10s %-10s %8.3f s wall %8.3f s cpu %7.1f MB  200=%d 304=%d  %s" % (
                    name, scenario, *results[(scenario, name)][:2], results[(scenario, name)][2] / 1e6,
                    *results[(scenario, name)][3:]), flush=True)
        floors = measure_floors(work, nginx, a.feeds, len(titles0), len(new_titles), a.big, paired)
        memory = memory_1000(work, nginx, a.feeds) if "watcher" in a.tools else None
    finally:
        nginx.stop()
    slow = any(t in a.tools for t in ("rss2email", "feed2exec"))
    # A parse takes a fraction of a second, and a row's median of three moved by a fifth between runs: the
    # fast parsers take more turns (PARSE_ROUNDS), the huge feed fewer.
    big_rows = parse_big(a.big, max(a.runs, PARSE_ROUNDS), a.slow_runs, peers=slow) if a.big else []
    huge_rows = parse_big(a.huge, max(a.runs, PARSE_ROUNDS // 2), a.slow_runs, peers=False) if a.huge else []
    cap = poll_cap(work, a.cap_feed, a.runs) if a.cap_feed else None
    report(results, floors, big_rows, huge_rows, cap, memory, a, len(titles0), len(new_titles))


def report(results, floors, big_rows, huge_rows, cap, memory, a, total, new):
    shape = ("1-3 categories, 1-2 KB HTML" if a.workload == "plain" else
             "3 categories, dc:creator, about 1 KB of HTML with ~20 escaped tags, non-ASCII text")
    lines = ["Workload %s: %d feeds x %d items (RSS 2.0 and Atom alternating, %s), "
             "%d new items in the 10%% round; nginx on 127.0.0.1 with ETag, Last-Modified, gzip. "
             "Median of %d runs; CPU includes every process the tool started, however deep (all-cpu.py); "
             "ratio = wall / watcher's wall." % (a.workload, a.feeds, a.items, shape, new, a.runs), ""]
    lines.append("| scenario | tool | wall s | CPU s | peak RSS MB | HTTP 200 / 304 | hook output | vs watcher |")
    lines.append("|---|---|---:|---:|---:|---|---|---:|")
    for scenario, label in SCENARIOS:
        base = results.get((scenario, "watcher"))
        for name in TOOLS:
            r = results.get((scenario, name))
            if not r:
                continue
            ratio = "%.1f×" % (r[0] / base[0]) if base and name != "watcher" else ""
            if name == "newsboat" and scenario in ("cold", "new10"):
                ratio = "runs no hooks"
            lines.append("| %s | %s | %.3f | %.3f | %.1f | %d / %d | %s | %s |" % (
                label, name, r[0], r[1], r[2] / 1e6, r[3], r[4], r[5], ratio))
    for rows, path in ((big_rows, a.big), (huge_rows, a.huge)):
        if not rows:
            continue
        rounds = max(a.runs, PARSE_ROUNDS if path == a.big else PARSE_ROUNDS // 2)
        lines += ["", "Parsing a big feed (%s, %.0f MB), `watcher parse --json`; median of %d rounds, the parsers "
                  "taking turns:" % (os.path.basename(path), os.path.getsize(path) / 1e6, rounds), "",
            "| parser | wall s | CPU s | peak RSS MB | result | vs watcher |", "|---|---:|---:|---:|---|---:|"]
        base = rows[0][1]
        for name, wall, cpu, rss, verdict in rows:
            lines.append("| %s | %.3f | %.3f | %.1f | %s | %s |" % (
                name, wall, cpu, rss / 1e6, verdict, "" if name == "watcher" else "%.2f×" % (wall / base)))
    if cap:
        size, rows = cap
        base = rows[0][2]
        lines += ["", "watcher polling one %.1f MB feed (the cap is 20 MB) from a server that ignores conditional "
                  "GET; above the baseline = peak RSS minus that of a poll of a one-item feed:" % (size / 1e6), "",
                  "| poll | wall s | peak RSS MB | above the baseline, MB | that / body |", "|---|---:|---:|---:|---:|"]
        for label, wall, rss in rows:
            lines.append("| %s | %.3f | %.1f | %.1f | %.2f× |" % (label, wall, rss / 1e6, (rss - base) / 1e6,
                                                               (rss - base) / size))
    lines += ["", "Floors (what the machine allows):", "", "| floor | wall s | CPU s | peak RSS MB |", "|---|---:|---:|---:|"]
    for name, wall, cpu, rss in floors:
        lines.append("| %s | %.3f | %.3f | %.1f |" % (name, wall, cpu, rss / 1e6))
    if memory:
        lines += ["", "watcher run holding 1,000 feeds after its first pass: peak RSS %.1f MB, RSS %.1f MB."
                  % (memory[0] / 1024, memory[1] / 1024)]
    lines += targets(results, floors, big_rows, huge_rows, cap)
    text = "\n".join(lines) + "\n"
    print("\n" + text)
    with open(os.path.join(os.path.abspath(a.workdir), "table.md"), "w") as fh:
        fh.write(text)


def targets(results, floors, big_rows, huge_rows, cap):
    """The issue's targets as ratios from this run, each with whether it is met."""
    wall = lambda scenario, tool: results.get((scenario, tool), (None,))[0]
    floor = {name: w for name, w, _, _ in floors}
    spread = [w for name, w in floor.items() if "spread over all" in name]
    pinned = [w for name, w in floor.items() if "on one core" in name]
    rows = []

    def row(label, value, limit, unit="×"):
        if value is None:
            return
        rows.append("| %s | %.2f%s | ≤ %.2f%s | %s |" % (label, value, unit, limit, unit, "met" if value <= limit else "NOT met"))

    for scenario, cores, floors_ in (("cold", "both cores", spread), ("cold1", "one core", pinned)):
        w, s = wall(scenario, "watcher"), wall(scenario, "sfeed")
        if w and s:
            row("cold, 10,000 hooks, %s: watcher / sfeed" % cores, w / s, 0.6)
        if w and floors_:
            row("cold, 10,000 hooks, %s: watcher / 10,000 shells" % cores, w / floors_[0], 1.3)
    w, s = wall("new10", "watcher"), wall("new10", "sfeed")
    if w and s:
        row("10% new: watcher / sfeed", w / s, 0.4)
    w, s = wall("nocond", "watcher"), wall("unchanged", "sfeed")
    if w and s:
        row("no conditional GET: watcher / sfeed's unchanged re-poll", w / s, 0.2)
    c = wall("catchup", "watcher")
    if w and c:
        row("no conditional GET: watcher / watcher's cold mark-seen", w / c, 1.0)
    for rows_, name in ((big_rows, "big"), (huge_rows, "huge")):
        if len(rows_) >= 2:
            row("parse the %s feed: watcher / sfeed, wall" % name, rows_[0][1] / rows_[1][1], 1.0)
            row("parse the %s feed: watcher / sfeed, CPU" % name, rows_[0][2] / rows_[1][2], 1.5)
            row("parse the %s feed: watcher's peak RSS" % name, rows_[0][3] / 1e6, 64, " MB")
            walls = {r[0]: r[1] for r in rows_}
            cpus = {r[0]: r[2] for r in rows_}
            for form, label in ((TEXT, "readable summary"), (STDIN, "from standard input")):
                if form in walls:
                    row("parse the %s feed, %s: watcher / sfeed, wall" % (name, label), walls[form] / rows_[1][1], 1.0)
                    row("parse the %s feed, %s: watcher / sfeed, CPU" % (name, label), cpus[form] / rows_[1][2], 1.5)
            if "watcher" + BUSY in walls:
                row("parse the %s feed, another process keeping a core busy: watcher / sfeed, wall" % name,
                    walls["watcher" + BUSY] / walls["sfeed" + BUSY], 1.5)
    if cap:
        size, cap_rows = cap
        for label, _, rss in cap_rows[1:]:
            row("20 MB poll, %s: RSS above the baseline / body" % label, (rss - cap_rows[0][2]) / size, 2.0)
    if not rows:
        return []
    return ["", "Targets, from this run:", "", "| target | this run | limit | |", "|---|---:|---:|---|"] + rows


WATCHER = VENV = ""
if __name__ == "__main__":
    main()
