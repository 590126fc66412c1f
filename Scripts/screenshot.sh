#!/usr/bin/env bash
# Produces docs/screenshot.png, the README's picture of real watcher notifications: a private X server
# (Xvfb) and session bus with dunst as the notification daemon, `watcher poll` on the bundled samples
# (as the quick start runs it), a capture of the screen (ImageMagick's import), cropped to the notifications.
#
# Usage: Scripts/screenshot.sh [OUT.png] [SERVER]   SERVER: dunst (default), xfce4-notifyd or
# notification-daemon; `Scripts/screenshot.sh all` makes docs/notifications-SERVER.png for each of the three
# (their buttons show: xfce4-notifyd and notification-daemon draw them on the bubble).
#
# Needs: xvfb dunst dbus libglib2.0-bin imagemagick (and xfce4-notifyd, notification-daemon for those).
# WATCHER_BIN picks the binary (default: release build).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${WATCHER_BIN:-.build/release/watcher}
[ -x "$bin" ] || swift build -c release --product watcher
for tool in Xvfb dunst dbus-run-session gdbus /usr/bin/import /usr/bin/convert; do
  command -v "$tool" >/dev/null || { echo "screenshot.sh: $tool is missing (apt-get install xvfb dunst dbus libglib2.0-bin imagemagick)" >&2; exit 1; }
done
if [ "${1:-}" = all ]; then
  for server in dunst xfce4-notifyd notification-daemon; do "$0" "docs/notifications-$server.png" "$server"; done
  exit 0
fi
out=${1:-docs/screenshot.png}
server=${2:-dunst}
T=$(mktemp -d)
Xvfb -displayfd 3 -screen 0 1024x600x24 -nolisten tcp 3>"$T/d" >"$T/xvfb.log" 2>&1 & XPID=$!
trap 'kill $XPID 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do [ -s "$T/d" ] && break; sleep 0.05; done
export DISPLAY=:$(cat "$T/d")

# A plain, readable dunst look (its defaults are tiny).
cat > "$T/dunstrc" <<'RC'
[global]
  width = 460
  origin = top-right
  offset = 16x16
  font = DejaVu Sans 11
  frame_width = 2
  frame_color = "#5e81ac"
  corner_radius = 6
  padding = 10
  horizontal_padding = 12
  gap_size = 8
  separator_height = 0
  markup = full
  format = "<b>%s</b>\n%b"
  icon_position = off
[urgency_low]
  background = "#2e3440"
  foreground = "#d8dee9"
[urgency_normal]
  background = "#2e3440"
  foreground = "#eceff4"
[urgency_critical]
  background = "#3b4252"
  foreground = "#eceff4"
  frame_color = "#bf616a"
RC
# The quick start's config: the example, acting on the samples' items.
sed -e 's|^\(  first_poll:\) silent |\1 all    |' -e 's|^\(  max_age:\) 7d  |\1 none|' \
    -e "s|url: samples/|url: file://$PWD/samples/|" rules.example.yaml > "$T/rules.yaml"
export T bin out server
dbus-run-session -- bash -c '
  set -e
  case $server in
    dunst) dunst -config "$T/dunstrc" >"$T/dunst.log" 2>&1 & DPID=$! ;;
    xfce4-notifyd) /usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd >"$T/server.log" 2>&1 & DPID=$! ;;
    notification-daemon) /usr/lib/notification-daemon/notification-daemon >"$T/server.log" 2>&1 & DPID=$! ;;
    *) echo "screenshot.sh: unknown server $server" >&2; exit 64 ;;
  esac
  timeout 10 gdbus wait --session org.freedesktop.Notifications
  "$bin" poll --config "$T/rules.yaml" --state-dir "$T/state"
  sleep 1.5
  /usr/bin/import -window root "$T/screen.png"
  kill $DPID' 2> >(grep -v -e "Failed to set fd limit" -e a11y -e SpiRegistry -e xfconf -e Xfconf -e "X connection" >&2)
# The root window is black but for the notifications: trim to them, with a margin.
/usr/bin/convert "$T/screen.png" -trim +repage -bordercolor black -border 12 "$out"
echo "wrote $out ($(/usr/bin/identify -format '%wx%h' "$out"))"
