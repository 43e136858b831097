#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL cluster on loopback, then stops it.
# Exports UMFA_TEST_POSTGRES_URL (a database that is dropped with the cluster) and
# UMFA_TEST_PGCTL / UMFA_TEST_PGDATA so fault tests can restart the server.
# Installs PostgreSQL from Debian when it is missing. UMFA_TEST_PG_LOG names a file to keep the
# server's log in.
set -euo pipefail

if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    echo "== installing PostgreSQL (Debian)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
bindir=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || command -v initdb)")

# Below the ephemeral port range (32768-60999), so no outgoing connection holds it.
port=${UMFA_TEST_POSTGRES_PORT:-25432}
work=$(mktemp -d /tmp/umfa-pg.XXXXXX)
chmod 755 "$work"
runas=()
if [ "$(id -u)" = "0" ]; then
    chown postgres "$work"
    runas=(runuser -u postgres --)
fi
# max_connections: the Swift suite runs its PostgreSQL tests at once, each with stores of their
# own (a pool of up to 5 connections each, 20 stores in the start-up race tests); past 200 it
# met "too many clients already" and its stores waited out their connect timeouts.
"${runas[@]}" "$bindir/initdb" -D "$work/data" -U postgres --auth=trust -E UTF8 >/dev/null
"${runas[@]}" "$bindir/pg_ctl" -D "$work/data" -l "$work/server.log" -w \
    -o "-p $port -k $work -c listen_addresses=127.0.0.1 -c max_connections=1000 -c fsync=on" start >/dev/null
stop() {
    status=$?
    "${runas[@]}" "$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
    # A failed command's diagnosis often lies in the server's own log (refused connections, a
    # crash): its FATAL and PANIC lines are printed, at most 60 lines, before it is removed.
    if [ "$status" -ne 0 ] && [ -f "$work/server.log" ]; then
        echo "== PostgreSQL server log (FATAL and PANIC lines; first 60):"
        grep -E 'FATAL|PANIC' "$work/server.log" | head -n 60 || true
    fi
    if [ -n "${UMFA_TEST_PG_LOG:-}" ] && [ -f "$work/server.log" ]; then cp "$work/server.log" "$UMFA_TEST_PG_LOG"; fi
    rm -rf "$work"
}
trap stop EXIT
"${runas[@]}" "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -qc "CREATE DATABASE umfa_test" >/dev/null

export UMFA_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/umfa_test"
export UMFA_TEST_PGCTL="${runas[*]} $bindir/pg_ctl -D $work/data -l $work/server.log -w -o '-p $port -k $work -c listen_addresses=127.0.0.1 -c max_connections=1000'"
export UMFA_TEST_PGDATA="$work/data"
export UMFA_TEST_PSQL="${runas[*]} $bindir/psql -h 127.0.0.1 -p $port -U postgres"
"$@"
