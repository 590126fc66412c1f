#!/bin/bash
# A digest that replaces its own bubble, from one poll to the next, and its "Open all" (NotificationClickTests).
# WATCHER is the binary; DIR holds rules.yaml, feed.xml and bin/xdg-open, and gets count1, count2.
export PATH="$DIR/bin:$PATH"
item() { printf '<item><title>%s</title><guid>%s</guid><link>http://example.org/%s</link></item>' "$1" "$1" "$1"; }
feed() { printf '<rss version="2.0"><channel><title>t</title>%s</channel></rss>' "$*" > "$DIR/feed.xml"; }
poll() { "$WATCHER" poll --feed t --config "$DIR/rules.yaml" --state-dir "$DIR/state" 2>>"$DIR/poll.log"; }
feed "$(item one)"
poll; sleep 1.2; poll
sleep 0.5
dunstctl count displayed > "$DIR/count1"
feed "$(item one)" "$(item two)"
poll; sleep 1.2; poll
sleep 0.5
dunstctl count displayed > "$DIR/count2"
click "Digest 'd': 1 item" "Open all"
for _ in $(seq 50); do [ -s "$DIR/opened" ] && break; sleep 0.1; done
exit 0
