#!/usr/bin/env bash
# Builds the DocC catalogues of the SDK (Sources/UMFA/UMFA.docc: the landing page, the three
# journey articles and every public symbol's doc comment) and of the relying-party core
# (Sources/UMFAWebAuthn/UMFAWebAuthn.docc: the landing page and its article) with
# swift-docc-plugin, warnings treated as errors: a broken ``symbol`` link, a link to a symbol that
# was renamed, an undocumented parameter of a documented list, or an article that names a missing
# page fails the build.
#
#   scripts/docs-build.sh                  archives in .build/docc/UMFA.doccarchive and
#                                          .build/docc/UMFAWebAuthn.doccarchive
#   UMFA_DOCC_OUTPUT=DIR scripts/docs-build.sh
#
# The plugin builds each target in the package's own .build (debug), extracts its symbol graph
# and runs the toolchain's `docc convert`. After `swift build --build-tests` it compiles nothing:
# it re-emits the module interfaces of the target and its local dependencies (as does the next
# `swift build`, again without compiling), about 12 s a catalogue on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."

output="${UMFA_DOCC_OUTPUT:-.build/docc}"
mkdir -p "$output"

# Each catalogue with the pages its archive must hold (docc exits 0 on an empty catalogue too).
build() {
    local target=$1
    shift
    local archive="$output/$target.doccarchive"
    rm -rf "$archive"
    swift package --disable-sandbox --allow-writing-to-directory "$output" \
        generate-documentation --target "$target" --warnings-as-errors --output-path "$archive"
    for page in "$@"; do
        if [ ! -f "$archive/data/documentation/$page.json" ]; then
            echo "docs-build: $archive has no page documentation/$page" >&2
            exit 1
        fi
    done
    echo "docs-build: $archive"
}

build UMFA umfa umfa/enrollingadevice umfa/signinginfromanativeapp umfa/outofbandenrollmentandapprovals
build UMFAWebAuthn umfawebauthn umfawebauthn/verifyingceremonies
