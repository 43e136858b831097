#!/usr/bin/env bash
# Builds every libFuzzer target of Fuzz/ once (release, fuzzer + address sanitizer) and runs each
# for UMFA_FUZZ_SECONDS (default 10) from the committed seed corpus. Fails on any crash, leak,
# timeout or out-of-memory; prints the executions per target.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${UMFA_FUZZ_SECONDS:-10}
start=$(date +%s)
# SwiftPM can miss files added to the UMFA path dependency since the last build of Fuzz/:
# touching the manifest makes it look again.
touch Fuzz/Package.swift
if ! log=$(swift build -c release --package-path Fuzz --scratch-path Fuzz/.build \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld 2>&1); then
    printf '%s\n' "$log" >&2
    exit 1
fi
echo "fuzz targets built in $(( $(date +%s) - start )) s"
for target in FuzzCBOR FuzzAttestationObject FuzzAuthenticatorData FuzzClientData FuzzCOSEKey \
    FuzzAttestationFormats FuzzResponseJSON; do
    UMFA_FUZZ_NO_BUILD=1 scripts/fuzz.sh "$target" "$seconds"
done
echo "fuzz smoke: $(( $(date +%s) - start )) s in all"
