#!/usr/bin/env bash
# Runs the Swift tests of the build scripts/test.sh made. When a test fails, the issues it
# recorded are printed again at the end, so the last lines of a CI log name the failure.
set -euo pipefail
cd "$(dirname "$0")/.."
log="$(mktemp -t umfa-swift-test.XXXXXX)"
# SoftHSM2 reads its configuration from SOFTHSM2_CONF when the PKCS #11 tests load it: set
# here, before the tests start, so no test changes the environment while others read it.
hsm="$(mktemp -d -t umfa-softhsm.XXXXXX)"
export UMFA_TEST_SOFTHSM2_CONF="$hsm/softhsm2.conf" SOFTHSM2_CONF="$hsm/softhsm2.conf"
status=0
swift test --skip-build "$@" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
    echo "== Swift tests failed (exit $status); the issues they recorded:"
    grep -A 6 -E '✘ Test .*(recorded an issue|failed)|error:|Fatal error' "$log" | grep -v '^✔' | head -120 || true
fi
rm -f "$log"
rm -rf "$hsm"
exit "$status"
