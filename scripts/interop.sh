#!/usr/bin/env bash
# Cross-checks UMFA against py_webauthn, an independent WebAuthn implementation.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/interop-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check webauthn==3.0.1 pytest
UMFA_BIN="$(swift build --show-bin-path)/umfa" "$venv/bin/python" -m pytest -q Tests/Interop
