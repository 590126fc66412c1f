#!/bin/bash
# The Notify calls watcher makes, as the bus carries them (dbus-monitor), for NotificationClickTests.
# WATCHER is the binary, DIR holds rules.yaml and gets calls.txt.
dbus-monitor --session "type='method_call',interface='org.freedesktop.Notifications',member='Notify'" \
  > "$DIR/calls.txt" 2>/dev/null &
MONITOR=$!
sleep 0.5
"$WATCHER" poll --config "$DIR/rules.yaml" --state-dir "$DIR/state" 2>"$DIR/poll.log" || exit 10
"$WATCHER" notify-test > "$DIR/notify-test.txt" 2>&1
sleep 0.5
kill $MONITOR
