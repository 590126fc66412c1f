#!/usr/bin/env bash
# Parser conformance against the feedparser oracle. Usage:
#   Scripts/conformance/conformance.sh .build/release/watcher [FEED_FILE_OR_DIR ...] [--show N] [--json OUT]
# First run creates a private venv with feedparser 6.0.14 (from PyPI) and caches oracle output.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
venv=${ORACLE_VENV:-$HOME/.cache/watcher-oracle/venv}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import feedparser' 2>/dev/null; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q 'feedparser==6.0.14' >&2
fi
exec "$venv/bin/python" "$here/conformance.py" "$@"
