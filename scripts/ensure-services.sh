#!/usr/bin/env bash
# Makes sure the test dependencies are present on this machine:
# PostgreSQL 15 with the pgvector extension, and Redis, both on 127.0.0.1.
# pgvector is not packaged for Debian 12, so it is built from Debian trixie's
# source package against PostgreSQL 15 (needs root and the apt repositories).
set -euo pipefail

PG_PORT="${PGPORT:-5432}"
REDIS_PORT="${REDIS_PORT:-6379}"
PG_MAJOR="${PG_MAJOR:-15}"

log() { printf '[ensure-services] %s\n' "$*" >&2; }

retry_apt() {
  local i
  for i in $(seq 1 30); do
    if "$@"; then return 0; fi
    log "apt busy or failed (attempt $i), retrying in 5s: $*"
    sleep 5
  done
  return 1
}

pg_running() { pg_isready -h 127.0.0.1 -p "$PG_PORT" -q 2>/dev/null; }

start_postgres() {
  if pg_running; then return 0; fi
  log "starting PostgreSQL"
  local ver
  ver=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n1)
  if [ -z "$ver" ]; then
    log "PostgreSQL is not installed; installing postgresql-$PG_MAJOR"
    retry_apt apt-get update -qq
    DEBIAN_FRONTEND=noninteractive retry_apt apt-get install -y -qq "postgresql-$PG_MAJOR"
    ver=$PG_MAJOR
  fi
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
  for _ in $(seq 1 30); do pg_running && return 0; sleep 1; done
  log "PostgreSQL did not become ready"; return 1
}

vector_installed() {
  local sharedir
  sharedir=$(pg_config --sharedir 2>/dev/null || echo "/usr/share/postgresql/$PG_MAJOR")
  [ -f "/usr/share/postgresql/$PG_MAJOR/extension/vector.control" ] || [ -f "$sharedir/extension/vector.control" ]
}

install_pgvector() {
  if vector_installed; then return 0; fi
  log "building pgvector from Debian trixie's source package"
  local list=/etc/apt/sources.list.d/zz-pgvector-trixie-src.list
  local work
  work=$(mktemp -d)
  trap 'rm -f "$list"; rm -rf "$work"' RETURN
  echo "deb-src http://deb.debian.org/debian trixie main" >"$list"
  retry_apt apt-get update -qq
  DEBIAN_FRONTEND=noninteractive retry_apt apt-get install -y -qq "postgresql-server-dev-$PG_MAJOR" dpkg-dev make gcc
  (cd "$work" && retry_apt apt-get source -qq pgvector)
  local src
  src=$(find "$work" -maxdepth 1 -type d -name 'pgvector-*' | head -n1)
  make -C "$src" with_llvm=no PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" >/dev/null
  make -C "$src" with_llvm=no PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" install >/dev/null
  rm -f "$list"
  retry_apt apt-get update -qq || true
  vector_installed
  log "pgvector installed"
}

start_redis() {
  if redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1; then return 0; fi
  if ! command -v redis-server >/dev/null; then
    retry_apt apt-get update -qq
    DEBIAN_FRONTEND=noninteractive retry_apt apt-get install -y -qq redis-server
  fi
  log "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1 && return 0; sleep 1; done
  log "Redis did not become ready"; return 1
}

start_postgres
install_pgvector
start_redis
log "PostgreSQL (with pgvector) and Redis are ready"
