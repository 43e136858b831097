#!/usr/bin/env bash
# The whole test suite: formatting, build, then every Swift test and the interoperability
# checks (py_webauthn, PyJWT, real umfa processes) against SQLite and a throwaway PostgreSQL
# cluster that scripts/with-postgres.sh starts (installing PostgreSQL from Debian if needed).
# Installs what it needs itself; each stage has a time limit so a hang fails instead of stalling.
set -euo pipefail
cd "$(dirname "$0")/.."
export SUITE_EPOCH=${SUITE_EPOCH:-$(date +%s)}

# SQLite's C API comes from the system library (Sources/CSQLite), RS256 signatures from OpenSSL's
# libcrypto (Sources/CLibcrypto), zlib's for compress-nio (the QR encoder's PNG); the Swift machine
# image has all three. SoftHSM2 and OpenSC's pkcs11-tool are the PKCS #11 token of the HSM tests.
missing=()
for package in libsqlite3-dev libssl-dev zlib1g-dev jq sqlite3 curl openssl softhsm2 opensc; do
    dpkg -s "$package" > /dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" > /dev/null
fi

# Each stage's start prints the seconds since the suite began, so a CI log shows where time went.
stage() { echo "== $* (at $(( $(date +%s) - SUITE_EPOCH )) s)"; }
export -f stage  # the stages inside `bash -c` below print the same way

stage "swift format lint"
swift format lint --strict -r Sources Tests

! git ls-files | awk -F/ '{p=""; for(i=1;i<=NF;i++){p=(i>1?p"/":"")$i; print p}}' | sort -u | awk '{print tolower($0)}' | sort | uniq -d | grep . || { echo "tracked paths above differ only in case: they collide on macOS"; exit 1; }

stage "every import declared in Package.swift (main and Fuzz packages)"
python3 scripts/check-imports.py

stage "the SDK product: declared platforms' APIs only, no server module (self-test, then check)"
python3 scripts/check-sdk-availability.py --self-test | grep "self-test"
python3 scripts/check-sdk-availability.py
python3 scripts/check-recipe-imports.py --self-test && python3 scripts/check-recipe-imports.py

stage "swift build"
swift build --build-tests

stage "the products' public API against api/baseline (scripts/api-check.sh --record records a break)"
scripts/api-check.sh

stage "the DocC catalogues of the SDK and the relying-party core (warnings are errors)"
scripts/docs-build.sh

stage "fuzzing smoke run (libFuzzer, every target from the seed corpus)"
timeout --kill-after=30 900 scripts/fuzz-smoke.sh

stage "swift test and interoperability (SQLite and a throwaway PostgreSQL)"
timeout --kill-after=30 2400 scripts/with-postgres.sh bash -c '
    set -euo pipefail
    scripts/swift-test.sh
    stage "interoperability (py_webauthn, PyJWT, live servers)"
    scripts/interop.sh
    stage "documentation: generated references current, every runnable example run (docs/)"
    scripts/gen-docs.sh --check
    .build/interop-venv/bin/python scripts/doc-examples.py --self-test
    .build/interop-venv/bin/python scripts/doc-examples.py
    stage "API fuzzing (schemathesis against /openapi.yaml of a live server)"
    scripts/apifuzz.sh
    stage "browser (Chromium, selenium)"
    scripts/browser.sh
    stage "all passed"
'
