#!/bin/bash
# The 👍 and 👎 clicks of NotificationClickTests, inside notify-click.sh's session: a poll shows three items
# (one, two, three) with settings.notify.learn, exits, and its helper takes the clicks.
export PATH="$DIR/bin:$PATH"
"$WATCHER" poll --config "$DIR/rules.yaml" --state-dir "$DIR/state" 2>"$DIR/poll.log" || exit 10
sleep 1
click "t: Hello one" "👍" || echo "no click: 👍" >> "$DIR/result"
click "t: Hello two" "👎" || echo "no click: 👎" >> "$DIR/result"
for _ in $(seq 100); do
  grep -q '"up": true' "$DIR/state/labels.json" 2>/dev/null && grep -q '"up": false' "$DIR/state/labels.json" && break
  sleep 0.1
done
exit 0
