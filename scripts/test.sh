#!/usr/bin/env bash
# The whole test suite: formatting, build, Swift tests, then the interoperability checks
# against independent implementations (py_webauthn). Installs what it needs itself.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== swift format lint"
swift format lint --strict -r Sources Tests

echo "== swift build"
swift build --build-tests

echo "== swift test (SQLite and a throwaway PostgreSQL)"
scripts/with-postgres.sh swift test --skip-build

echo "== interoperability (py_webauthn)"
scripts/interop.sh
