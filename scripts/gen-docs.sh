#!/bin/sh
# Regenerates the documentation made from the code (the CLI reference from `umfa … --help`, the
# settings table from ServerSetting.swift, the HTTP operation table from openapi.yaml) and the
# documentation's Swift snippets target (Examples/DocSnippets). With --check, changes nothing and
# exits 1 when any of them is stale. Needs a built `umfa` (.build/debug/umfa, or UMFA_BIN).
#
#   scripts/gen-docs.sh            rewrite
#   scripts/gen-docs.sh --check    fail when stale
set -e
cd "$(dirname "$0")/.."
status=0
python3 scripts/gen-docs.py "$@" || status=1
python3 scripts/doc-examples.py --swift "$@" || status=1
exit $status
