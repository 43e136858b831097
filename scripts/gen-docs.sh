#!/bin/sh
# Regenerates the documentation made from the code (the CLI reference from `umfa … --help`, the
# settings table from ServerSetting.swift, the HTTP API document Sources/UMFAContract/OpenAPI/
# openapi.yaml from `umfa openapi`, which generates it from the contract, and the operation table
# of docs/reference/http-api.md from that document) and the
# documentation's Swift snippets target (Examples/DocSnippets). With --check, changes nothing and
# exits 1 when any of them is stale. Needs a built `umfa` (.build/debug/umfa, or UMFA_BIN).
#
#   scripts/gen-docs.sh            rewrite
#   scripts/gen-docs.sh --check    fail when stale
set -e
cd "$(dirname "$0")/.."
status=0
# PyYAML (for openapi.yaml) is in the interoperability venv scripts/interop.sh installs.
python=python3
[ -x .build/interop-venv/bin/python ] && python=.build/interop-venv/bin/python
"$python" scripts/gen-docs.py "$@" || status=1
"$python" scripts/doc-examples.py --swift "$@" || status=1
python3 scripts/bench/render.py "$@" || status=1  # docs/performance/README.md's tables from results/
exit $status
