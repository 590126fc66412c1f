#!/bin/bash
# Runs a scenario against one real notification server, with real clicks on its notifications' buttons.
# Usage: notify-click.sh SERVER SCENARIO   (SERVER: dunst | xfce4-notifyd | notification-daemon)
# Xvfb (a free display), a private session bus, the server; then SCENARIO (a bash script) runs with
# `click SUMMARY BUTTON` defined (it waits for the notification to be shown): on dunst through its context menu (`dunstctl context`, whose dmenu is a
# script that picks BUTTON of the notification SUMMARY); on the others the button is found by name through
# the accessibility bus (AT-SPI) and clicked where it is on screen with xdotool. Exits with SCENARIO's status.
set -euo pipefail
SERVER=$1 SCENARIO=$2
T=$(mktemp -d)
Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>"$T/d" >"$T/xvfb.log" 2>&1 & XPID=$!
# A server the bus started may still write its settings while the scratch home goes: try again, and keep
# the command's own status.
trap 'status=$?; kill $XPID 2>/dev/null; rm -rf "$T" 2>/dev/null || { sleep 0.5; rm -rf "$T" 2>/dev/null; }; exit $status' EXIT
for _ in $(seq 200); do [ -s "$T/d" ] && break; sleep 0.05; done
# The servers (and the accessibility bus) keep their settings, caches and sockets in a scratch home, never
# in the user's: xfce4-notifyd writes ~/.config/xfce4, GLib ~/.cache/dconf, AT-SPI sockets in the runtime dir.
mkdir -m 700 "$T/home" "$T/run"
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_CACHE_HOME="$T/home/.cache" \
  XDG_DATA_HOME="$T/home/.local/share" XDG_RUNTIME_DIR="$T/run"
HERE=$(cd "$(dirname "$0")" && pwd)
cat > "$T/pick.sh" <<'PICK'
#!/bin/sh
# dunst's menu: one line per action, "#LABEL (SUMMARY) [ID,ACTION]"; pick the one asked for.
grep -m1 -F -- "$(cat "$T/want")"
PICK
chmod +x "$T/pick.sh"
printf '[global]\n    markup = full\n    dmenu = %s\n    mouse_left_click = do_action, close_current\n' "$T/pick.sh" > "$T/dunstrc"
export DISPLAY=:$(cat "$T/d") T SERVER SCENARIO HERE
dbus-run-session -- bash -c '
  case $SERVER in
    dunst) dunst -config "$T/dunstrc" >"$T/server.log" 2>&1 & ;;
    xfce4-notifyd) /usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd >"$T/server.log" 2>&1 & ;;
    notification-daemon) /usr/lib/notification-daemon/notification-daemon >"$T/server.log" 2>&1 & ;;
  esac
  SPID=$!
  timeout 10 gdbus wait --session org.freedesktop.Notifications
  click() {
    if [ "$SERVER" = dunst ]; then
      # Until dunst shows it (the daemon may still be starting), then its menu; one menu at a time.
      for _ in $(seq 50); do [ "$(dunstctl count displayed)" -ge 1 ] && break; sleep 0.1; done
      printf "#%s (%s)" "$2" "$1" > "$T/want"
      dunstctl context
      sleep 0.5
    else
      local at
      at=$(/usr/bin/python3 "$HERE/atspi-button.py" "$1" "$2") || { echo "no button $2 on $1" >&2; return 1; }
      xdotool mousemove $at click 1
    fi
  }
  export -f click
  set +e
  bash "$SCENARIO"; rc=$?
  kill $SPID 2>/dev/null
  exit $rc' 2> >(grep -v -e "Failed to set fd limit" -e a11y -e SpiRegistry -e xfconf -e Xfconf -e "X connection" >&2)
