#!/usr/bin/env bash
# Installs Debian's chromium for the console's browser tests (test/ui) when it is missing.
# Playwright drives this system browser; no browser build is downloaded.
set -euo pipefail

CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ -x "$CHROMIUM" ]; then exit 0; fi

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

# Another apt run (unattended upgrades, a parallel install) holds the lock for a while: wait and retry.
apt_get() {
  for attempt in $(seq 1 30); do
    if $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=60 "$@"; then return 0; fi
    echo "[chromium] apt-get $1 failed (attempt $attempt); retrying in 10 s" >&2
    sleep 10
  done
  return 1
}

echo "[chromium] $CHROMIUM is missing; installing Debian's chromium package" >&2
apt_get update -qq
apt_get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
"$CHROMIUM" --version >&2
