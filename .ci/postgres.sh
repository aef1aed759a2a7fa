#!/usr/bin/env bash
# Starts (or stops) a real PostgreSQL 16 with pgvector on 127.0.0.1 for the tests.
# Debian 12 has no pgvector, so the server comes from PyPI's `pgserver` (0.1.4), which
# bundles PostgreSQL 16 and pgvector 0.6.2. Postgres refuses to run as root, so as root
# the server runs as the user `lucidpg`.
#   bash .ci/postgres.sh start DIR PORT   -> prints the connection URL
#   bash .ci/postgres.sh stop DIR
set -euo pipefail
cmd="$1"; dir="$2"; port="${3:-54329}"
venv="$dir/venv"
data="$dir/data"
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u lucidpg -- "$@"; else "$@"; fi
}
bin() { echo "$venv/lib/python3.11/site-packages/pgserver/pginstall/bin/$1"; }
case "$cmd" in
  start)
    mkdir -p "$dir"
    if [ ! -x "$(bin postgres)" ]; then
      python3 -m venv "$venv" >&2
      "$venv/bin/pip" install -q "pgserver==0.1.4" >&2
    fi
    if [ "$(id -u)" = 0 ] && ! id lucidpg >/dev/null 2>&1; then
      useradd --system --no-create-home --shell /usr/sbin/nologin lucidpg
    fi
    chmod 755 "$dir"
    # A server still running on this folder (a run that did not stop it, or another user
    # of the same cache) is stopped first: its data is never made afresh under it.
    if [ -f "$data/postmaster.pid" ]; then
      as_pg "$(bin pg_ctl)" -D "$data" -m fast -w stop >&2 || true
    fi
    rm -rf "$data"
    mkdir -p "$data"
    [ "$(id -u)" = 0 ] && chown lucidpg "$data"
    as_pg "$(bin initdb)" -D "$data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1
    as_pg "$(bin pg_ctl)" -D "$data" -l "$data/server.log" -w \
      -o "-p $port -c listen_addresses=127.0.0.1 -k $data" start >&2
    "$(bin psql)" -h 127.0.0.1 -p "$port" -U postgres -q -c "CREATE DATABASE lucid_test" >&2
    "$(bin psql)" -h 127.0.0.1 -p "$port" -U postgres -d lucid_test -q -c "CREATE EXTENSION IF NOT EXISTS vector" >&2
    echo "postgres://postgres@127.0.0.1:$port/lucid_test"
    ;;
  stop)
    [ -d "$data" ] && as_pg "$(bin pg_ctl)" -D "$data" -m fast -w stop >&2 || true
    ;;
esac
