#!/bin/bash
# The clicks of NotificationClickTests, inside notify-click.sh's session. WATCHER is the binary, DIR holds
# rules.yaml (three items: one, two, three), bin/xdg-open (records what it opens) and gets the results;
# MODE is poll (the poll exits before the clicks) or run (the daemon receives them).
export PATH="$DIR/bin:$PATH"
if [ "$MODE" = run ]; then
  "$WATCHER" run --config "$DIR/rules.yaml" --state-dir "$DIR/state" 2>"$DIR/daemon.log" &
  DAEMON=$!
else
  "$WATCHER" poll --config "$DIR/rules.yaml" --state-dir "$DIR/state" 2>"$DIR/poll.log" || exit 10
  pgrep -f __notify-helper >/dev/null && echo helper >> "$DIR/result"
fi
sleep 1
click "t: Hello one" "Open" || echo "no click: Open" >> "$DIR/result"
click "t: Hello two" "Archive" || echo "no click: Archive" >> "$DIR/result"
click "t: Hello three" "Snooze feed" || echo "no click: Snooze" >> "$DIR/result"
for _ in $(seq 100); do
  [ -s "$DIR/opened" ] && [ -s "$DIR/archived" ] && [ -s "$DIR/state/snoozed.json" ] && break
  sleep 0.1
done
if [ -n "${DAEMON:-}" ]; then kill -TERM "$DAEMON"; wait "$DAEMON"; fi
exit 0
