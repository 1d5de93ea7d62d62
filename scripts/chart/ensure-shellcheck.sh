#!/usr/bin/env bash
# Prints the path of shellcheck, installing Debian's package first when it is missing (needs root
# and apt; retries while another apt run holds the lock). Exits 1 with the reason when it cannot,
# so callers can skip the lint and say why.
set -euo pipefail

if command -v shellcheck >/dev/null 2>&1; then
  command -v shellcheck
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "shellcheck is not installed and cannot be installed here (needs root and apt-get)" >&2
  exit 1
fi

install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends shellcheck >/dev/null 2>&1; }
for attempt in $(seq 1 24); do
  if install || { apt-get update -qq >/dev/null 2>&1 && install; }; then
    command -v shellcheck
    exit 0
  fi
  echo "apt busy or failed (attempt $attempt); retrying in 5 s" >&2
  sleep 5
done
echo "could not install shellcheck with apt-get" >&2
exit 1
