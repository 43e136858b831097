#!/usr/bin/env bash
# Cross-checks UMFA against py_webauthn, an independent WebAuthn implementation
# (Tests/Interop). Extra arguments go to pytest, e.g. `scripts/interop.sh -k tampering`.
set -euo pipefail
cd "$(dirname "$0")/.."
# SoftHSM2 and OpenSC's pkcs11-tool: the PKCS #11 token of test_hsm_signing_keys.py.
if ! command -v softhsm2-util >/dev/null || ! command -v pkcs11-tool >/dev/null; then
    echo "== installing softhsm2 opensc (Debian)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq softhsm2 opensc >/dev/null
fi
venv=.build/interop-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check webauthn==3.0.1 fido2==2.2.1 pytest "PyJWT[crypto]" requests \
    authlib==1.9.9 requests-oauth2client==1.8.0 oic==1.7.0 zxing-cpp==3.1.1 segno==1.6.6 pillow==13.0.0 qrcode==8.2 \
    pyyaml aiosmtpd==1.4.6 opentelemetry-proto==1.39.1
# Test the binary built from the current sources, never a stale one.
if ! build_log=$(swift build --product umfa 2>&1); then
    printf '%s\n' "$build_log" >&2
    exit 1
fi
UMFA_BIN="$(swift build --show-bin-path)/umfa" "$venv/bin/python" -m pytest -q -p no:cacheprovider --durations=15 Tests/Interop "$@"
