#!/usr/bin/env bash
# Quick start: install what is missing, build watcher in release mode, and run it on the bundled default
# (offline): rules.example.yaml over the sample feeds in samples/. It shows what the rules would do (the
# dry run), then polls for real in a scratch state directory, so the sample items count as new: desktop
# notifications appear where there is a desktop session, and the output says what happened either way.
#
# WATCHER_BIN=path skips the install and the build and uses that binary (the test suite does this).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${WATCHER_BIN:-}" ]; then
  . Scripts/packages.sh
  install_watcher_packages build
  # The same build `make install` and `make deb` use, so neither builds again.
  Scripts/build-static.sh
  WATCHER_BIN=.build-static/release/watcher
fi
test -x "$WATCHER_BIN"
watcher() { "$WATCHER_BIN" "$@"; }

echo "== watcher check --config rules.example.yaml"
watcher check --config rules.example.yaml
echo
echo "== watcher test-rules --config rules.example.yaml   (the dry run: what the rules would do, and why)"
watcher test-rules --config rules.example.yaml
echo

# The real job. A copy of the example that acts on the samples' items even though they are not fresh:
# first_poll all (the default, silent, records a new feed's items without acting on them) and no max_age.
# Everything it writes (config copy, state, the example hook's archive) goes to a scratch directory that is
# removed at the end: the quick start leaves nothing behind.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/watcher-quickstart.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
sed -e 's|^\(  first_poll:\) silent |\1 all    |' -e 's|^\(  max_age:\) 7d  |\1 none|' \
    -e "s|url: samples/|url: file://$PWD/samples/|" -e "s|~/watcher-archive.tsv|$scratch/archive.tsv|" \
    rules.example.yaml > "$scratch/rules.yaml"
grep -q '^  first_poll: all' "$scratch/rules.yaml" && grep -q '^  max_age: none' "$scratch/rules.yaml"
echo "== watcher poll   (for real, with state in $scratch/state)"
status=0
output=$(watcher poll --config "$scratch/rules.yaml" --state-dir "$scratch/state" 2>&1) || status=$?
printf '%s\n' "$output"
echo
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] && [ ! -S "${XDG_RUNTIME_DIR:-/nonexistent}/bus" ]; then
  echo "No desktop session here, so no notification could be shown; everything else ran (see above)."
elif printf '%s' "$output" | grep -q 'to notify, kept'; then
  echo "No notification server answered, so the notifications are kept for a later poll (see above)."
elif [ "$status" -eq 0 ]; then
  echo "The notifications above were sent to your desktop."
fi
echo "== watcher status"
watcher status --config "$scratch/rules.yaml" --state-dir "$scratch/state"
echo
if [ -s "$scratch/archive.tsv" ]; then
  echo "== what the example's hook appended to its archive (title, link)"
  cat "$scratch/archive.tsv"
  echo
fi
echo "A second 'watcher poll' would find nothing new: the items are recorded as seen."
echo "watcher is at $(cd "$(dirname "$WATCHER_BIN")" && pwd)/$(basename "$WATCHER_BIN")."
echo "Next: make install PREFIX=~/.local, then 'watcher init' writes your own config (see the README)."
