#!/usr/bin/env bash
# /health and validate-token over TLS against plain HTTP (keep-alive, wrk): writes
# docs/performance/results/tls.json and renders its table in docs/performance/README.md. Uses the
# release `umfa` of scripts/bench.sh when built (.build-bench/release/umfa), else the one given as
# UMFA_BIN. About 1 minute; run it alone, holding the build lock so no build runs meanwhile:
#   flock /tmp/umfa-build.lock scripts/bench-tls.sh [seconds-per-run] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
umfa=${UMFA_BIN:-.build-bench/release/umfa}
[ -x "$umfa" ] || { echo "no umfa at $umfa: run scripts/bench.sh once, or set UMFA_BIN" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is needed (apt-get install wrk)" >&2; exit 2; }
python=python3
[ -x .build/bench-venv/bin/python ] && python=.build/bench-venv/bin/python
mkdir -p .build/bench
echo "== TLS vs plain HTTP ($umfa, $(nproc) cores)" >&2
"$python" scripts/bench/tls_bench.py --umfa "$umfa" --seconds "${1:-5}" --rounds "${2:-3}" | tee .build/bench/tls.json
"$python" scripts/bench/tls_results.py .build/bench/tls.json "scripts/bench-tls.sh ${1:-5} ${2:-3}"
"$python" scripts/bench/render.py
