#!/usr/bin/env bash
# Builds UMFA and its benchmarks in release mode, runs every measurement and writes the figures,
# the machine and the command into docs/performance/results/, then renders the tables of
# docs/performance/README.md from them (scripts/bench/render.py). Not part of the test command.
#   scripts/bench.sh            full run (about 15 minutes after the build): results/full.json
#   scripts/bench.sh --smoke    seconds per figure and 1,000 users at most: checks it all works;
#                               writes .build/bench/results/full.json and .build/bench/README.smoke.md
#   scripts/bench.sh --cpu      server CPU per operation on SQLite and PostgreSQL beside the crypto
#                               floor (openssl speed, swift-crypto), about 12 minutes after the build;
#                               UMFA_BENCH_BEFORE=<another release umfa> runs it beside this one,
#                               interleaved, for before/after figures. Writes results/cpu.json.
#                               Then PostgreSQL round trips per operation: results/roundtrips.json.
# UMFA_BENCH_RESULTS=<directory> writes the results files there instead (and renders nothing).
# Installs wrk (Debian) and a venv with py_webauthn 3.0.1, psycopg and PyJWT (for the API-flow
# client of Tests/Interop/api_flow_client.py, which signs the refresh_token users in) itself.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
smoke=0
[ "${1:-}" = "--smoke" ] && smoke=1
cpu=0
[ "${1:-}" = "--cpu" ] && cpu=1
if [ $smoke = 1 ]; then
    seconds=1; load_seconds=3; warmup=1; growth=(1000); wrk_seconds=3
else
    seconds=3; load_seconds=10; warmup=3; growth=(1000 100000 1000000); wrk_seconds=10
fi
concurrency=${UMFA_BENCH_CONCURRENCY:-16}
results=${UMFA_BENCH_RESULTS:-$root/docs/performance/results}
out=$root/.build/bench
[ $cpu = 1 ] || { rm -rf "$out" && mkdir -p "$out"; }

if ! command -v wrk >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi
venv=$root/.build/bench-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check webauthn==3.0.1 "psycopg[binary]" requests \
    "PyJWT[crypto]"

echo "== release build (umfa, umfa-bench)"
# One release tree for both, apart from the debug .build: `umfa-bench` is an executable target
# of the main package (Package.swift), which reaches the modules shared with `package` access.
swift build -c release --scratch-path .build-bench --product umfa-bench
swift build -c release --scratch-path .build-bench --product umfa
bench=$root/.build-bench/release/umfa-bench
umfa=$root/.build-bench/release/umfa

if [ $cpu = 1 ]; then
    out=$root/.build/bench-cpu
    rm -rf "$out" && mkdir -p "$out"
    rounds=${UMFA_BENCH_ROUNDS:-3} cpu_seconds=${UMFA_BENCH_SECONDS:-3}
    targets=(--umfa "$umfa" --name after)
    [ -n "${UMFA_BENCH_BEFORE:-}" ] && targets+=(--umfa "$UMFA_BENCH_BEFORE" --name before)
    echo "== crypto floor: openssl speed, swift-crypto and UMFA's JWS signer in process"
    "$venv/bin/python" scripts/bench/openssl_speed.py 2 > "$out/openssl.json"
    "$bench" floor --seconds 1 --rounds 2 > "$out/floor.json"
    "$bench" library --seconds 2 --rounds 9 > "$out/library.json"
    echo "== server CPU per operation, SQLite"
    "$venv/bin/python" scripts/bench/cpu_bench.py --engine sqlite --database sqlite --bench "$bench" \
        --out "$out" --rounds "$rounds" --seconds "$cpu_seconds" "${targets[@]}"
    echo "== server CPU per operation, PostgreSQL"
    export BENCH_PY="$venv/bin/python" BENCH_BIN="$bench" BENCH_OUT="$out" BENCH_ROUNDS="$rounds" \
        BENCH_SECONDS="$cpu_seconds"
    export BENCH_TARGETS="${targets[*]}"
    # shellcheck disable=SC2016
    UMFA_TEST_POSTGRES_PORT=${UMFA_BENCH_POSTGRES_PORT:-25499} scripts/with-postgres.sh bash -c '
        "$BENCH_PY" scripts/bench/cpu_bench.py --engine postgres --database "$UMFA_TEST_POSTGRES_URL" \
            --bench "$BENCH_BIN" --out "$BENCH_OUT" --rounds "$BENCH_ROUNDS" --seconds "$BENCH_SECONDS" \
            $BENCH_TARGETS'
    "$venv/bin/python" scripts/bench/cpu_results.py "$out" "scripts/bench.sh --cpu" --results "$results"
    [ -n "${UMFA_BENCH_RESULTS:-}" ] || "$venv/bin/python" scripts/bench/render.py

    # -- PostgreSQL round trips per operation (performance round four), after the CPU figures are
    # written. scripts/bench/roundtrips.py counts them on the wire with scripts/bench/pg_proxy.py,
    # beside GET /health, and measures sign-in and refresh p50s straight to PostgreSQL, through the
    # proxy, and with 0.5 ms each way added by it (about two minutes). It prints its table and the
    # statements of each round trip, and writes results/roundtrips.json, which render.py then puts
    # into docs/performance/README.md's round-four section. Tests/Interop/support.py, whose
    # ceremonies it uses, imports pytest.
    echo "== PostgreSQL round trips per operation, and a 1 ms round trip's cost"
    "$venv/bin/pip" install --quiet --disable-pip-version-check pytest
    UMFA_TEST_POSTGRES_PORT=${UMFA_BENCH_POSTGRES_PORT:-25499} scripts/with-postgres.sh \
        "$venv/bin/python" scripts/bench/roundtrips.py --umfa "$umfa" --bench "$bench" --build release \
        --out "$out/roundtrips.json" --results "$results" --command "scripts/bench.sh --cpu"
    [ -n "${UMFA_BENCH_RESULTS:-}" ] || "$venv/bin/python" scripts/bench/render.py
    exit 0
fi

echo "== library: UMFAWebAuthn vs raw P-256 vs py_webauthn"
"$bench" library --seconds $seconds --vectors "$out/vectors.json" > "$out/library.json"
"$venv/bin/python" scripts/bench/pywebauthn_bench.py "$out/vectors.json" $seconds > "$out/pywebauthn.json"
"$bench" ceiling --seconds $seconds > "$out/ceiling.json"

export BENCH_PY="$venv/bin/python"
export BENCH_ARGS="--umfa $umfa --bench $bench --out $out --concurrency $concurrency --load-seconds $load_seconds \
--warmup $warmup --wrk-seconds $wrk_seconds --growth ${growth[*]}"
echo "== server on SQLite"
# shellcheck disable=SC2086
"$BENCH_PY" scripts/bench/server_bench.py --engine sqlite --database "sqlite://$out/sqlite/umfa.sqlite" $BENCH_ARGS
echo "== server on PostgreSQL"
# Then again with synchronous_commit=off in a schema of its own (fresh keys), at 1,000 users:
# PostgreSQL's default flushes every commit, which SQLite's default (synchronous=NORMAL) does not.
UMFA_TEST_POSTGRES_PORT=${UMFA_BENCH_POSTGRES_PORT:-25499} scripts/with-postgres.sh bash -c '
    "$BENCH_PY" scripts/bench/server_bench.py --engine postgres --database "$UMFA_TEST_POSTGRES_URL" $BENCH_ARGS &&
    "$BENCH_PY" -c "import psycopg, sys; psycopg.connect(sys.argv[1], autocommit=True).execute(\"CREATE SCHEMA async\")" \
        "$UMFA_TEST_POSTGRES_URL" &&
    "$BENCH_PY" scripts/bench/server_bench.py --engine postgres-async \
        --database "$UMFA_TEST_POSTGRES_URL?search_path=async&synchronous_commit=off" $BENCH_ARGS --growth 1000'

echo "== peer: LemonLDAP::NG (Debian lemonldap-ng, installed by the script)"
if ! bash scripts/bench/lemonldap.sh "$wrk_seconds" > "$out/lemonldap.json" 2> "$out/lemonldap.log"; then
    # The figures of UMFA stand on their own; the report says why the peer is missing.
    "$venv/bin/python" -c 'import json, sys; print(json.dumps({"error": sys.argv[1]}))' \
        "$(tail -n 5 "$out/lemonldap.log" | tr '\n' ' ')" > "$out/lemonldap.json"
fi

if [ $smoke = 1 ]; then
    # A smoke run's figures are no record: they and a page made from them stay under .build.
    "$venv/bin/python" scripts/bench/full_results.py "$out" "scripts/bench.sh --smoke" --results "$out/results"
    cp docs/performance/README.md "$out/README.smoke.md"
    "$venv/bin/python" scripts/bench/render.py --results "$out/results" --page "$out/README.smoke.md"
    echo "== wrote $out/results/full.json and $out/README.smoke.md"
    exit 0
fi
"$venv/bin/python" scripts/bench/full_results.py "$out" "scripts/bench.sh" --results "$results"
[ -n "${UMFA_BENCH_RESULTS:-}" ] || "$venv/bin/python" scripts/bench/render.py
echo "== wrote $results/full.json"
