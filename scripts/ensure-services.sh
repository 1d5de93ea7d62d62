#!/usr/bin/env bash
# Makes sure the test dependencies are present on this machine:
# PostgreSQL 15 with the pgvector extension, and Redis, both on 127.0.0.1.
# pgvector is not packaged for Debian 12, so it is built from Debian trixie's
# source package against PostgreSQL 15 (needs root and the apt repositories).
# It also lets 127.0.0.1 open replication connections, for the streaming replica
# the read-replica tests start (libs/testing/src/streaming-replica.ts).
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

pg_setting() { psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -XAtc "show $1"; }

# pg_basebackup and the replica's walreceiver connect over TCP as `postgres`: they need a
# `replication` line (an `all` database line does not match replication connections).
allow_local_replication() {
  local hba line='host replication all 127.0.0.1/32 trust'
  hba=$(pg_setting hba_file)
  if awk '!/^[[:space:]]*#/ { $1 = $1; print }' "$hba" | grep -qxF "$line"; then return 0; fi
  log "allowing replication connections from 127.0.0.1 in $hba"
  # Before the first rule, since the first matching line wins; rewritten in place to keep owner and mode.
  local updated
  updated=$(awk -v line="$line" '!done && /^[[:space:]]*[^#[:space:]]/ { print line; done = 1 } { print } END { if (!done) print line }' "$hba")
  printf '%s\n' "$updated" >"$hba"
  psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -XAtqc 'select pg_reload_conf()' >/dev/null
}

# Both need a restart to change, so they are only reported; the defaults are fine.
check_replication_settings() {
  local wal_level senders
  wal_level=$(pg_setting wal_level)
  senders=$(pg_setting max_wal_senders)
  if [ "$wal_level" = minimal ]; then
    log "warning: wal_level is minimal; streaming replicas need replica or logical (restart required)"
  fi
  if [ "$senders" -le 0 ]; then
    log "warning: max_wal_senders is $senders; streaming replicas need at least 1 (restart required)"
  fi
  log "replication: wal_level=$wal_level max_wal_senders=$senders"
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
allow_local_replication
check_replication_settings
install_pgvector
start_redis
log "PostgreSQL (with pgvector) and Redis are ready"
