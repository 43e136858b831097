#!/usr/bin/env bash
# Holds the public API of the library products (UMFA, UMFATLSTransport, UMFAWebAuthn) to the
# baseline recorded in api/baseline/: one swift-api-digester JSON file per module the products
# list. A change that removes or changes a public declaration fails here; keeping it is then a
# decision: record the new baseline and say so in CHANGELOG.md (CONTRIBUTING.md, "Products and
# the public API"). Record on Linux, where CI checks: a dump holds the platform's view of the API.
#
#   scripts/api-check.sh            compare the tree with api/baseline (after `swift build`)
#   scripts/api-check.sh --record   rewrite api/baseline from the tree
#
# `swift package diagnose-api-breaking-changes <treeish>` reads a module's baseline from
# <baseline-dir>/<commit of the treeish>/<module>.json and only checks out and builds a second
# copy of the package when that file is missing. This script puts the recorded files there under
# HEAD's commit, so the command compares the tree with them after building nothing more than
# `swift build` has (it builds the tree's products, a no-op after `swift build --build-tests`).
# --record runs the same command with this script in place of swift-api-digester
# (SWIFT_API_DIGESTER): each comparison SwiftPM asks for first dumps the module's API, with the
# arguments SwiftPM gives the digester, and the dumps become api/baseline.
set -euo pipefail

# As swift-api-digester, for --record: `-diagnose-sdk -baseline-path B -module M <args>` dumps
# M's API into $UMFA_API_RECORD/M.json, then compares M with that dump, so that SwiftPM reads a
# comparison without breaks.
if [ "${1:-}" = "-diagnose-sdk" ]; then
    args=("$@") common=() module=""
    set -- "${@:2}"
    while [ $# -gt 0 ]; do
        case "$1" in
            -baseline-path | -serialize-diagnostics-path | -breakage-allowlist-path) shift 2 ;;
            -module) module=$2; common+=("$1" "$2"); shift 2 ;;
            *) common+=("$1"); shift ;;
        esac
    done
    dump="$UMFA_API_RECORD/$module.json"
    "$UMFA_API_DIGESTER" -dump-sdk -compiler-style-diags "${common[@]}" -o "$dump"
    for index in "${!args[@]}"; do
        [ "${args[$index]}" = "-baseline-path" ] && args[index + 1]=$dump
    done
    exec "$UMFA_API_DIGESTER" "${args[@]}"
fi

cd "$(dirname "$0")/.."
products=(UMFA UMFATLSTransport UMFAWebAuthn)
baseline=api/baseline
work=.build/api-check
record=0
[ "${1:-}" = "--record" ] && record=1

# The modules the products list, as the manifest says.
filter='[.products[] | select(.name as $n | $ARGS.positional | index($n)) | .targets[]] | unique | .[]'
mapfile -t modules < <(swift package dump-package | jq -r "$filter" --args "${products[@]}")

commit=$(git rev-parse HEAD)
rm -rf "$work"
mkdir -p "$work/$commit"
for module in "${modules[@]}"; do
    if [ -f "$baseline/$module.json" ]; then
        cp "$baseline/$module.json" "$work/$commit/"
    elif [ $record = 1 ]; then
        echo '{}' > "$work/$commit/$module.json"
    else
        echo "api-check: no baseline for $module, which a product lists: record it (scripts/api-check.sh --record)" >&2
        exit 1
    fi
done

if [ $record = 1 ]; then
    mkdir -p "$work/record"
    UMFA_API_DIGESTER="$(dirname "$(readlink -f "$(command -v swift)")")/swift-api-digester" \
        UMFA_API_RECORD="$PWD/$work/record" SWIFT_API_DIGESTER="$PWD/scripts/api-check.sh" \
        swift package diagnose-api-breaking-changes HEAD --products "${products[@]}" --baseline-dir "$work" > /dev/null
    rm -rf "$baseline"
    mkdir -p "$baseline"
    for module in "${modules[@]}"; do
        cp "$work/record/$module.json" "$baseline/"
    done
    echo "api-check: recorded ${#modules[@]} modules in $baseline ($(du -sh "$baseline" | cut -f1))"
    exit 0
fi

swift package diagnose-api-breaking-changes HEAD --products "${products[@]}" --baseline-dir "$work"
