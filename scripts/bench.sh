#!/usr/bin/env bash
# Builds UMFA and its benchmarks in release mode, runs every measurement and rewrites
# BENCHMARKS.md with the figures, the machine and the commands. Not part of the test command.
#   scripts/bench.sh            full run (about 15 minutes after the build)
#   scripts/bench.sh --smoke    seconds per figure and 1,000 users at most: checks it all works
# Installs wrk (Debian) and a venv with py_webauthn 3.0.1, psycopg and PyJWT (for the API-flow
# client of Tests/Interop/api_flow_client.py, which signs the refresh_token users in) itself.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
smoke=0
[ "${1:-}" = "--smoke" ] && smoke=1
if [ $smoke = 1 ]; then
    seconds=1; load_seconds=3; warmup=1; growth=(1000); wrk_seconds=3
else
    seconds=3; load_seconds=10; warmup=3; growth=(1000 100000 1000000); wrk_seconds=10
fi
concurrency=${UMFA_BENCH_CONCURRENCY:-16}
out=$root/.build/bench
rm -rf "$out" && mkdir -p "$out"

if ! command -v wrk >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi
venv=$root/.build/bench-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check webauthn==3.0.1 "psycopg[binary]" requests \
    "PyJWT[crypto]"

echo "== release build (umfa, umfa-bench)"
# SwiftPM can miss files added to a path dependency since the last build: touching the
# manifests makes it look again.
touch Package.swift Benchmarks/Package.swift
# One release tree for both: the benchmark package depends on UMFA, so it can build `umfa` too.
swift build -c release --package-path Benchmarks --scratch-path .build-bench --product umfa-bench
swift build -c release --package-path Benchmarks --scratch-path .build-bench --product umfa
bench=$root/.build-bench/release/umfa-bench
umfa=$root/.build-bench/release/umfa

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

report=BENCHMARKS.md
[ $smoke = 1 ] && report=$out/BENCHMARKS.smoke.md
"$venv/bin/python" scripts/bench/report.py "$out" "$report" "scripts/bench.sh${1:+ $1}"
echo "== wrote $report"
