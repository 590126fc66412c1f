#!/usr/bin/env bash
# Installs the .deb, uses it as a normal user with the Swift toolchain out of reach, removes it, and checks
# that nothing is left but that user's own config and state. Run as root (CI is).
# Usage: Scripts/deb-test.sh watcher_VERSION_ARCH.deb
set -euo pipefail
deb=$(realpath "$1")
user=watcher-deb-test
fail() { echo "deb-test: FAIL: $*" >&2; exit 1; }
cleanup() { userdel -r "$user" >/dev/null 2>&1 || true; }
trap cleanup EXIT
dpkg -s watcher >/dev/null 2>&1 && fail "watcher is already installed as a package; remove it first"
cleanup
useradd -m -s /bin/sh "$user"
home=$(getent passwd "$user" | cut -d: -f6)
files=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\.||' | grep -v '/$')
[ "$(dpkg-deb -f "$deb" Recommends)" = bash-completion ] || fail "the package does not recommend bash-completion"
for path in /usr/share/applications/watcher.desktop /usr/share/icons/hicolor/scalable/apps/watcher.svg; do
  grep -qx "$path" <<<"$files" || fail "the package has no $path"
done

# make install puts the same self-contained binary in place.
prefix=$(mktemp -d)
chmod 755 "$prefix"
make -s -C "$(dirname "$0")/.." install PREFIX="$prefix" UNITDIR="$prefix/units" >/dev/null
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift || echo /opt/swift/usr/bin/swift)")")")
for binary in "$prefix/bin/watcher"; do
  if ldd "$binary" | grep -i -F -e "$toolchain" -e swift -e foundation -e dispatch >/dev/null; then
    fail "$binary loads a library of the Swift toolchain"
  fi
  env -i PATH=/usr/bin:/bin "$binary" --version >/dev/null || fail "$binary does not start without the toolchain"
done
rm -rf "$prefix"

env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null
[ -x /usr/bin/watcher ] || fail "/usr/bin/watcher was not installed"
# The toolchain is out of reach: no library comes from it, and the user's PATH does not have it.
if ldd /usr/bin/watcher | grep -F "$toolchain" >/dev/null; then fail "the binary loads libraries from $toolchain"; fi
if ldd /usr/bin/watcher | grep -i "swift\|foundation\|dispatch" >/dev/null; then fail "the binary loads a Swift library"; fi
as_user() { runuser -u "$user" -- env -i HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 "$@"; }
version=$(as_user watcher --version)
echo "deb-test: $version"
as_user sh -c 'cd && watcher init' | head -1
as_user watcher check
as_user sh -c 'cd && watcher poll' 2>&1 | tail -2
as_user sh -c 'cd && watcher status' >/dev/null
# The package's binary shows a notification: notify-test as the user, against dunst on a private bus and
# display (the fixture the notification tests use); a hang there fails within a minute.
if command -v dunst Xvfb dbus-run-session >/dev/null; then
  shown=$(mktemp -d)
  cp "$(dirname "$0")/../Tests/WatcherCLITests/Fixtures/notify-e2e.sh" "$shown/"
  chown -R "$user" "$shown"
  as_user bash "$shown/notify-e2e.sh" "$shown/history.json" -- watcher notify-test >"$shown/out" 2>&1 || true
  [ "$(cat "$shown/history.json.status" 2>/dev/null)" = 0 ] || fail "notify-test did not succeed: $(cat "$shown/out")"
  grep -q '"watcher: test notification"' "$shown/history.json" || fail "dunst did not show the test notification"
  echo "deb-test: $(grep '^shown:' "$shown/out")"
  rm -rf "$shown"
else
  fail "dunst, Xvfb and dbus-run-session are needed to show a notification (Scripts/packages.sh)"
fi
[ -f "$home/.config/watcher/rules.yaml" ] || fail "init wrote no config"
grep -q /usr/share/watcher/samples "$home/.config/watcher/rules.yaml" || fail "the config does not read the installed samples"
ls "$home/.local/state/watcher"/feed-*.json >/dev/null || fail "poll wrote no state"

env DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -qq watcher >/dev/null
dpkg -s watcher >/dev/null 2>&1 && fail "the package is still installed"
for file in $files; do [ ! -e "$file" ] || fail "$file is left after removal"; done
for dir in /usr/share/watcher /usr/share/doc/watcher; do [ ! -e "$dir" ] || fail "$dir is left after removal"; done
# In the user's home: only their config and state (and what useradd put there).
left=$(cd "$home" && find . -type f ! -path './.config/watcher/*' ! -path './.local/state/watcher/*' \
  ! -name '.bashrc' ! -name '.profile' ! -name '.bash_logout' | sort)
[ -z "$left" ] || fail "left in the home directory: $left"
echo "deb-test: installed, used as $user (init, check, poll, status), removed; nothing left but the user's config and state"
