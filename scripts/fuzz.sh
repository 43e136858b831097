#!/usr/bin/env bash
# Runs one libFuzzer target of the Fuzz/ package for SECONDS (default 60):
#   scripts/fuzz.sh cbor 300        (or the module name: scripts/fuzz.sh FuzzCBOR 300)
# Targets: cbor attestation-object authenticator-data client-data cose-key attestation-formats response-json
# New inputs go to a scratch corpus (Fuzz/.build/corpus/<target>), never into the committed seeds
# (Fuzz/Corpus/<target>); a crash leaves its input in Fuzz/.build/artifacts and exits non-zero.
# UMFA_FUZZ_NO_BUILD=1 skips the build (scripts/fuzz-smoke.sh builds once for all targets).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET [SECONDS]}
seconds=${2:-60}
case "$target" in
    cbor) target=FuzzCBOR ;;
    attestation-object) target=FuzzAttestationObject ;;
    authenticator-data) target=FuzzAuthenticatorData ;;
    client-data) target=FuzzClientData ;;
    cose-key) target=FuzzCOSEKey ;;
    attestation-formats) target=FuzzAttestationFormats ;;
    response-json) target=FuzzResponseJSON ;;
esac
[ -d "Fuzz/Sources/$target" ] || { echo "unknown fuzz target: $1" >&2; exit 2; }
scratch=Fuzz/.build
flags=(-c release --package-path Fuzz --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld)
if [ "${UMFA_FUZZ_NO_BUILD:-0}" != 1 ]; then
    touch Fuzz/Package.swift  # SwiftPM can miss files added to the path dependency otherwise
    if ! log=$(swift build "${flags[@]}" --product "$target" 2>&1); then
        printf '%s\n' "$log" >&2
        exit 1
    fi
fi
bin="$(swift build "${flags[@]}" --show-bin-path)/$target"
mkdir -p "$scratch/corpus/$target" "$scratch/artifacts"
log="$scratch/$target.log"
extra=()
# FuzzResponseJSON runs the async registration ceremony in a Swift task per input; the task
# allocations make libFuzzer start a whole-heap LeakSanitizer scan after nearly every input
# (60 instead of thousands of executions per second). Memory stays bounded by -rss_limit_mb.
[ "$target" = FuzzResponseJSON ] && extra+=(-detect_leaks=0)
set +e
"$bin" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "${extra[@]}" \
    -artifact_prefix="$scratch/artifacts/$target-" "$scratch/corpus/$target" "Fuzz/Corpus/$target" > "$log" 2>&1
status=$?
set -e
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
if [ "$status" -ne 0 ]; then
    tail -60 "$log" >&2
    echo "$target: FAILED after ${runs:-?} executions (exit $status); input in $scratch/artifacts/" >&2
    exit 1
fi
echo "$target: ${runs:-0} executions in ${seconds} s, ${coverage:-cov: ?}, no crash"
