#!/usr/bin/env bash
# The Debian packages watcher needs, in two lists, and a function that installs the missing ones (through
# sudo when not root). Sourced by Scripts/quickstart.sh (build and run), Scripts/test.sh and .ci/run
# (build, run and test).

# Building watcher and running its main job (notifications, fetching): what the quick start installs.
WATCHER_BUILD_PACKAGES=(
  pkg-config
  libxml2-dev zlib1g-dev   # the feed parser (libxml2 SAX2), gzip-compressed feed files
  libyaml-dev              # the config file
  libcurl4-openssl-dev     # fetching (curl's headers; libcurl4 is loaded when watcher first fetches)
  libnotify4               # desktop notifications (loaded at the first notification)
)

# The tests and benchmarks only: what the test command installs, never the quick start. The notification
# servers among them register D-Bus activation for org.freedesktop.Notifications, which a desktop does not want.
WATCHER_TEST_PACKAGES=(
  binutils                 # nm: the test that the shipped binary exports no symbol
  libxml2-utils sfeed      # the parse-speed benchmark's peers (xmllint, sfeed)
  dunst xvfb dbus libglib2.0-bin   # the notification tests: a real server on a private bus and display
  xfce4-notifyd notification-daemon   # ... and two more servers, whose buttons are clicked
  xdotool python3-pyatspi gir1.2-atspi-2.0 at-spi2-core   # the clicks: a button found by name, clicked on screen
  systemd groff-base       # the contrib tests: systemd-analyze verify of the units, groff lint of the man pages
  make                     # make install (and the test that walks the README's install steps)
  desktop-file-utils       # the contrib tests: desktop-file-validate of watcher.desktop
  dpkg-dev lintian         # make deb (dpkg-shlibdeps derives Depends) and its lint in CI
  apprise                  # the apprise: action's tests (json://, ntfy:// and mailto:// to loopback servers)
  python3-venv             # the MCP test's reference client (the `mcp` package from PyPI, in a venv)
)

# install_mcp_client: the reference MCP client (PyPI's `mcp`) in .build/mcp-venv, for the test that drives
# `watcher mcp` with it; prints the venv's python, or nothing (with a warning) when PyPI cannot be reached.
install_mcp_client() {
  local venv=.build/mcp-venv
  if ! "$venv/bin/python" -c "import mcp" 2>/dev/null; then
    { python3 -m venv "$venv" && "$venv/bin/pip" install -q mcp; } >&2 2>&1 || {
      echo "warning: cannot install the MCP reference client from PyPI; its test is skipped" >&2
      return 0
    }
  fi
  echo "$PWD/$venv/bin/python"
}

# install_watcher_packages build|test [--always]: the build list, or the build and test lists; only the
# missing ones unless --always (CI refreshes the package lists and installs every one).
install_watcher_packages() {
  local wanted=("${WATCHER_BUILD_PACKAGES[@]}") missing=() pkg
  [ "${1:-}" = test ] && wanted+=("${WATCHER_TEST_PACKAGES[@]}")
  for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ] && [ "${2:-}" != "--always" ]; then return 0; fi
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "installing: ${missing[*]:-${wanted[*]}}" >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null
}
