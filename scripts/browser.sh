#!/usr/bin/env bash
# The browser suite (Tests/Browser): the demo page in a real headless Chromium, driven by
# selenium, with a virtual authenticator from the DevTools WebAuthn domain. Installs Chromium
# and chromedriver from Debian when missing and selenium into a venv, builds `umfa`, runs pytest.
# Extra arguments go to pytest, e.g. `scripts/browser.sh -k journey`. Screenshots of every step
# of a failed test stay in .build/browser-screenshots/<test>/; UMFA_UPDATE_DOCS_SCREENSHOT=1
# rewrites docs/demo-signed-in.png.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q chromium chromium-driver >/dev/null 2>&1; then
        apt-get update -q >/dev/null
        apt-get install -y -q chromium chromium-driver >/dev/null
    fi
fi

venv=.build/browser-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check "selenium>=4.20" pytest requests webauthn==3.0.1 authlib==1.9.9 \
    "PyJWT[crypto]" aiosmtpd==1.4.6

# Test the binary built from the current sources, never a stale one.
if ! build_log=$(swift build --product umfa 2>&1); then
    printf '%s\n' "$build_log" >&2
    exit 1
fi
UMFA_BIN="$(swift build --show-bin-path)/umfa" "$venv/bin/python" -m pytest -q -p no:cacheprovider Tests/Browser "$@"
