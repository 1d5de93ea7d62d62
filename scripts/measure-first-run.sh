#!/usr/bin/env bash
# What a new user meets, measured from a fresh clone: `npm install` wall time, the size of
# node_modules, `npm start` (embedded mode) to the first healthy answer, the service's idle memory
# (RSS of the process tree after 30 s idle), and the npm warnings printed on the way.
#
#   bash scripts/measure-first-run.sh [REPO]   # REPO: what to clone (default: this checkout)
#   npm_config_cache=$(mktemp -d) bash scripts/measure-first-run.sh   # as a machine that never ran npm
#
# Needs the npm registry (or a warm npm cache); runs in a temporary directory it removes afterwards.
set -euo pipefail
repo="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
work="$(mktemp -d)"
port="${MEASURE_PORT:-18080}"
cleanup() {
  if [ -n "${pid:-}" ]; then kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

git clone -q "$repo" "$work/app"
cd "$work/app"

start=$(date +%s.%N)
if ! npm install --no-audit --no-fund > "$work/install.log" 2>&1; then
  echo "npm install failed; its output:" >&2
  tail -30 "$work/install.log" >&2
  exit 1
fi
install_s=$(echo "$(date +%s.%N) - $start" | bc)
modules_mb=$(du -sm node_modules | cut -f1)
install_warnings=$(grep -c '^npm warn' "$work/install.log" || true)

start=$(date +%s.%N)
setsid env PORT="$port" HOST=127.0.0.1 DATA_DIR="$work/data" npm start > "$work/start.log" 2>&1 &
pid=$!
until curl -fsS "http://127.0.0.1:$port/health/ready" > /dev/null 2>&1; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "npm start exited before answering; its output:" >&2
    tail -20 "$work/start.log" >&2
    exit 1
  fi
  sleep 0.2
done
healthy_s=$(echo "$(date +%s.%N) - $start" | bc)
start_warnings=$(grep -c '^npm warn' "$work/start.log" || true)

sleep 30
# Every process of the session npm start made (npm, node): resident memory in MiB.
rss_mb=$(ps -o rss= -s "$pid" | awk '{ s += $1 } END { printf "%.0f", s / 1024 }')
# The service itself: the node process running the API (not npm, not the shell npm starts it with).
node_rss_mb=$(ps -o rss=,args= -s "$pid" | awk '$2 ~ /node$/ && /dist\/apps\/api\/src\/main.js/ { s += $1 } END { printf "%.0f", s / 1024 }')

printf 'npm install            %6.1f s\n' "$install_s"
printf 'node_modules           %6d MB\n' "$modules_mb"
printf 'npm start → healthy    %6.1f s\n' "$healthy_s"
printf 'idle RSS, service      %6s MB (node; with npm and its shell: %s MB)\n' "${node_rss_mb:-?}" "$rss_mb"
printf 'npm warnings           %6d on install, %d on start\n' "$install_warnings" "$start_warnings"
if [ "$install_warnings" -gt 0 ] || [ "$start_warnings" -gt 0 ]; then
  grep -h '^npm warn' "$work/install.log" "$work/start.log" | sort | uniq -c | sort -rn | head -10
fi
