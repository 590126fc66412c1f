#!/usr/bin/env bash
# Builds watcher_VERSION_ARCH.deb with dpkg-deb from a binary that carries the Swift runtime statically
# (`make static`). Usage: Scripts/make-deb.sh [BINARY] [OUTDIR]   (called by `make deb`)
#
# Layout: /usr/bin/watcher; man pages; completions where bash, zsh and fish look; the systemd user units in
# /usr/lib/systemd/user; the sample feeds, example config and hooks in /usr/share/watcher; docs and the
# copyright file in /usr/share/doc/watcher. Depends is derived from the binary with dpkg-shlibdeps.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build-static/release/watcher}
out=${2:-.}
[ -x "$bin" ] || { echo "no binary at $bin: run 'make static' first" >&2; exit 1; }
version=$(sed -n 's/.*public static let version = "\(.*\)".*/\1/p' Sources/WatcherCLI/WatcherCLI.swift)
arch=$(dpkg --print-architecture)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
root="$work/watcher_${version}_${arch}"
umask 022

install -D -m 755 "$bin" "$root/usr/bin/watcher"
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/watcher"
for page in contrib/man/watcher.1:man1 contrib/man/watcher-rules.5:man5; do
  install -d "$root/usr/share/man/${page##*:}"
  gzip -9n < "${page%%:*}" > "$root/usr/share/man/${page##*:}/$(basename "${page%%:*}").gz"
done
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
  "$root/usr/share/fish/vendor_completions.d"
"$bin" completions bash > "$root/usr/share/bash-completion/completions/watcher"
"$bin" completions zsh > "$root/usr/share/zsh/vendor-completions/_watcher"
"$bin" completions fish > "$root/usr/share/fish/vendor_completions.d/watcher.fish"
install -d "$root/usr/lib/systemd/user"
for unit in watcher.service watcher-poll.service watcher-poll.timer; do
  sed 's|%h/.local/bin/watcher|/usr/bin/watcher|' "contrib/systemd/$unit" > "$root/usr/lib/systemd/user/$unit"
  chmod 644 "$root/usr/lib/systemd/user/$unit"
done
install -d "$root/usr/share/watcher/hooks" "$root/usr/share/watcher/samples"
install -m 755 contrib/hooks/* "$root/usr/share/watcher/hooks/"
install -m 644 samples/*.rss samples/*.atom samples/*.html "$root/usr/share/watcher/samples/"
install -m 644 rules.example.yaml "$root/usr/share/watcher/rules.example.yaml"
install -D -m 644 contrib/desktop/watcher.desktop "$root/usr/share/applications/watcher.desktop"
install -D -m 644 contrib/desktop/watcher.svg "$root/usr/share/icons/hicolor/scalable/apps/watcher.svg"
install -d "$root/usr/share/doc/watcher"
install -m 644 README.md SECURITY.md docs/*.md "$root/usr/share/doc/watcher/"
install -m 644 contrib/debian/copyright "$root/usr/share/doc/watcher/copyright"
install -m 644 CHANGELOG.md "$root/usr/share/doc/watcher/CHANGELOG.md"
# A native package's changelog.gz is in Debian's format; the project's own changelog is beside it.
when=$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
printf 'watcher (%s) unstable; urgency=medium\n\n  * Release %s; what changed is in /usr/share/doc/watcher/CHANGELOG.md.\n\n -- watcher authors <watcher@watcher.invalid>  %s\n' \
  "$version" "$version" "$when" | gzip -9n > "$root/usr/share/doc/watcher/changelog.gz"

# Depends: what the binary links, as dpkg-shlibdeps finds it (it wants a debian/control to read), and the
# two libraries it loads when first used (libcurl, libnotify: Sources/CCurl, Sources/CNotify), which
# dpkg-shlibdeps learns from a stub program that links them (by soname: only the runtime packages are
# installed, not their -dev symlinks).
mkdir -p "$work/src/debian"
printf 'Source: watcher\n\nPackage: watcher\nArchitecture: any\n' > "$work/src/debian/control"
echo 'int main(void) { return 0; }' > "$work/src/loaded.c"
"${CC:-$(command -v cc || command -v clang)}" -o "$work/src/loaded" "$work/src/loaded.c" -Wl,--no-as-needed -l:libcurl.so.4 -l:libnotify.so.4
depends=$(cd "$work/src" && dpkg-shlibdeps -O "$root/usr/bin/watcher" loaded 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
for library in libcurl4 libnotify4; do
  case "$depends" in *"$library "* | *"$library,"* | *"$library") ;; *) echo "Depends lacks $library: $depends" >&2; exit 1 ;; esac
done
[ -n "$depends" ] || { echo "dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
install -d "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<CONTROL
Package: watcher
Version: $version
Architecture: $arch
Maintainer: watcher authors <watcher@watcher.invalid>
Installed-Size: $size
Depends: $depends
Recommends: bash-completion
Section: net
Priority: optional
Homepage: https://watcher.invalid/
Description: feed watcher that notifies or runs hooks for items matching rules
 watcher polls RSS, Atom and JSON feeds, finds the items it has not seen,
 runs YAML rules over each new item's category, title and text to tag or
 mute it, and for matches shows a desktop notification or runs a hook.
 It runs as a command or as a systemd user service; 'watcher init' writes
 a starter config and 'watcher test-rules --explain' shows what the rules
 do, and why.
CONTROL
(cd "$root" && find usr -type f -exec md5sum {} + | sort -k2) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
deb="$out/watcher_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
