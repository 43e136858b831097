#!/usr/bin/env bash
# Builds the SDK's DocC catalogue (Sources/UMFA/UMFA.docc: the landing page, the three journey
# articles and every public symbol's doc comment) with swift-docc-plugin, warnings treated as
# errors: a broken ``symbol`` link, a link to a symbol that was renamed, an undocumented parameter
# of a documented list, or an article that names a missing page fails the build.
#
#   scripts/docs-build.sh                  archive in .build/docc/UMFA.doccarchive
#   UMFA_DOCC_OUTPUT=DIR scripts/docs-build.sh
#
# The plugin builds the UMFA target in the package's own .build (debug), extracts its symbol
# graph and runs the toolchain's `docc convert`. After `swift build --build-tests` it compiles
# nothing: it re-emits the module interfaces of UMFA and its local dependencies (as does the next
# `swift build`, again without compiling), about 12 s in all on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."

output="${UMFA_DOCC_OUTPUT:-.build/docc/UMFA.doccarchive}"
mkdir -p "$(dirname "$output")"
rm -rf "$output"

swift package --disable-sandbox --allow-writing-to-directory "$(dirname "$output")" \
    generate-documentation --target UMFA --warnings-as-errors --output-path "$output"

# The archive holds the module page and each article (docc exits 0 on an empty catalogue too).
for page in umfa umfa/enrollingadevice umfa/signinginfromanativeapp umfa/outofbandenrollmentandapprovals; do
    if [ ! -f "$output/data/documentation/$page.json" ]; then
        echo "docs-build: $output has no page documentation/$page" >&2
        exit 1
    fi
done
echo "docs-build: $output"
