# make install [PREFIX=~/.local]  /  make uninstall  /  make deb (watcher_VERSION_ARCH.deb)
PREFIX ?= $(HOME)/.local
BINDIR = $(PREFIX)/bin
SHAREDIR = $(PREFIX)/share
MANDIR = $(SHAREDIR)/man
UNITDIR ?= $(HOME)/.config/systemd/user

# The installed binary carries the Swift runtime and Foundation (--static-swift-stdlib): it runs without
# the toolchain, loading only Debian's own libraries. WATCHER_BIN=path installs that binary instead of
# building one (the tests install the debug build).
STATIC_BIN = .build-static/release/watcher
ifeq ($(origin WATCHER_BIN), undefined)
install: static
endif
WATCHER_BIN ?= $(STATIC_BIN)

.PHONY: build static install uninstall deb test
build:
	swift build -c release --product watcher

# The one release build: the quick start, install and deb all use it (Scripts/build-static.sh).
static:
	Scripts/build-static.sh

deb: static
	Scripts/make-deb.sh $(STATIC_BIN) .

install:
	install -d $(BINDIR) $(SHAREDIR)/watcher/hooks $(SHAREDIR)/watcher/samples $(UNITDIR)
	install -m 755 $(WATCHER_BIN) $(BINDIR)/watcher
	install -m 755 contrib/hooks/* $(SHAREDIR)/watcher/hooks/
	install -m 644 rules.example.yaml $(SHAREDIR)/watcher/rules.example.yaml
	# The sample feeds: rules.example.yaml and the config 'watcher init' writes read them.
	install -m 644 samples/*.rss samples/*.atom samples/*.html $(SHAREDIR)/watcher/samples/
	# The units name the binary where this install put it.
	for unit in watcher.service watcher-poll.service watcher-poll.timer; do \
	  sed 's|%h/.local/bin/watcher|$(BINDIR)/watcher|' contrib/systemd/$$unit > $(UNITDIR)/$$unit; done
	install -d $(SHAREDIR)/bash-completion/completions $(SHAREDIR)/zsh/site-functions $(SHAREDIR)/fish/vendor_completions.d
	$(WATCHER_BIN) completions bash > $(SHAREDIR)/bash-completion/completions/watcher
	$(WATCHER_BIN) completions zsh > $(SHAREDIR)/zsh/site-functions/_watcher
	$(WATCHER_BIN) completions fish > $(SHAREDIR)/fish/vendor_completions.d/watcher.fish
	# The documents --help and the man pages point to (JSON schemas, the rules language).
	install -d $(SHAREDIR)/doc/watcher
	install -m 644 README.md CHANGELOG.md docs/*.md $(SHAREDIR)/doc/watcher/
	# The desktop entry notifications name (desktop-entry: watcher), so the desktop can name the app and offer its settings.
	install -d $(SHAREDIR)/applications $(SHAREDIR)/icons/hicolor/scalable/apps
	install -m 644 contrib/desktop/watcher.desktop $(SHAREDIR)/applications/watcher.desktop
	install -m 644 contrib/desktop/watcher.svg $(SHAREDIR)/icons/hicolor/scalable/apps/watcher.svg
	install -d $(MANDIR)/man1 $(MANDIR)/man5
	install -m 644 contrib/man/watcher.1 $(MANDIR)/man1/watcher.1
	install -m 644 contrib/man/watcher-rules.5 $(MANDIR)/man5/watcher-rules.5

# Exactly the files install wrote, then their directories if nothing else is in them: what a hook keeps
# there (archive-jsonl's ~/.local/share/watcher/archive.jsonl) is the user's.
uninstall:
	rm -f $(BINDIR)/watcher $(UNITDIR)/watcher.service $(UNITDIR)/watcher-poll.service $(UNITDIR)/watcher-poll.timer
	rm -f $(addprefix $(SHAREDIR)/watcher/hooks/,$(notdir $(wildcard contrib/hooks/*)))
	rm -f $(addprefix $(SHAREDIR)/watcher/samples/,$(notdir $(wildcard samples/*.rss samples/*.atom samples/*.html)))
	rm -f $(SHAREDIR)/watcher/rules.example.yaml
	rm -f $(addprefix $(SHAREDIR)/doc/watcher/,README.md CHANGELOG.md $(notdir $(wildcard docs/*.md)))
	rm -f $(SHAREDIR)/bash-completion/completions/watcher $(SHAREDIR)/zsh/site-functions/_watcher $(SHAREDIR)/fish/vendor_completions.d/watcher.fish
	rm -f $(MANDIR)/man1/watcher.1 $(MANDIR)/man5/watcher-rules.5
	rm -f $(SHAREDIR)/applications/watcher.desktop $(SHAREDIR)/icons/hicolor/scalable/apps/watcher.svg
	for dir in $(SHAREDIR)/watcher/hooks $(SHAREDIR)/watcher/samples $(SHAREDIR)/watcher $(SHAREDIR)/doc/watcher; do \
	  rmdir $$dir 2>/dev/null || true; done

test:
	Scripts/test.sh
