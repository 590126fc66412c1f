#!/bin/bash
# Runs a command against a real notification server and saves what the server received.
# Usage: notify-e2e.sh HISTORY_JSON -- CMD...
# Xvfb (a free display via -displayfd), a private session bus (dbus-run-session) and dunst; waits until
# dunst owns org.freedesktop.Notifications, runs CMD, closes every notification (so it enters the
# history), and writes `dunstctl history` to HISTORY_JSON. CMD's exit status is saved in HISTORY_JSON.status
# (124 when it did not end within a minute: a hang fails the test instead of stopping the suite).
# The recipe is in docs/design.md, "Platform notes".
set -euo pipefail
OUT=$1; shift 2
T=$(mktemp -d)
Xvfb -displayfd 3 -screen 0 320x240x24 -nolisten tcp 3>"$T/d" >"$T/xvfb.log" 2>&1 & XPID=$!
# A server the bus started may still write its settings while the scratch home goes: try again, and keep
# the command's own status.
trap 'status=$?; kill $XPID 2>/dev/null; rm -rf "$T" 2>/dev/null || { sleep 0.5; rm -rf "$T" 2>/dev/null; }; exit $status' EXIT
for _ in $(seq 200); do [ -s "$T/d" ] && break; sleep 0.05; done
# The servers (and the accessibility bus) keep their settings, caches and sockets in a scratch home, never
# in the user's: xfce4-notifyd writes ~/.config/xfce4, GLib ~/.cache/dconf, AT-SPI sockets in the runtime dir.
mkdir -m 700 "$T/home" "$T/run"
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_CACHE_HOME="$T/home/.cache" \
  XDG_DATA_HOME="$T/home/.local/share" XDG_RUNTIME_DIR="$T/run"
# dunst's history has no urgency field, so each urgency gets its own format, which shows in "message".
# MARKUP=full makes dunst read markup (it then has the body-markup capability); by default it shows plain text.
printf '[global]\n    markup = %s\n' "${MARKUP:-no}" > "$T/dunstrc"
cat >> "$T/dunstrc" <<'RC'
[urgency_low]
    format = "LOW|%s|%b"
[urgency_normal]
    format = "NORMAL|%s|%b"
[urgency_critical]
    format = "CRITICAL|%s|%b"
RC
export DISPLAY=:$(cat "$T/d") OUT T
dbus-run-session -- bash -c '
  dunst -config "$T/dunstrc" >"$T/dunst.log" 2>&1 & DPID=$!
  timeout 10 gdbus wait --session org.freedesktop.Notifications
  set +e
  timeout 60 "$@"
  echo $? > "$OUT.status"
  sleep 0.3
  dunstctl close-all
  sleep 0.2
  dunstctl history > "$OUT"
  kill $DPID' bash "$@" 2> >(grep -v "Failed to set fd limit" >&2)
