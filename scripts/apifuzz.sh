#!/usr/bin/env bash
# API fuzzing: schemathesis (PyPI) generates requests for every operation of GET /openapi.yaml of a
# live `umfa serve` (temporary SQLite data dir, known admin token and master key) and checks that no
# answer is a 5xx and every answer matches the document (status codes, schemas, content types).
# Four passes: the admin routes with the admin token, the API-key routes with the development
# application's key, the rest without credentials, and the admin and API-key routes with a wrong
# token (401, then 429 once the address has guessed too often). UMFA_APIFUZZ_EXAMPLES bounds the
# examples per operation (default 25); UMFA_BIN names an already built `umfa` (else the script
# builds it). Extra arguments go to every `schemathesis run`.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/apifuzz-venv
if [ ! -x "$venv/bin/schemathesis" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check schemathesis==4.32.5
if [ -n "${UMFA_BIN:-}" ]; then
    umfa=$UMFA_BIN
else
    if ! build_log=$(swift build --product umfa 2>&1); then
        printf '%s\n' "$build_log" >&2
        exit 1
    fi
    umfa="$(swift build --show-bin-path)/umfa"
fi
work=$(mktemp -d)
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
admin="umfa_admin_apifuzz_$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')"
UMFA_ADMIN_TOKEN="$admin" UMFA_MASTER_KEY="$(python3 -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())')" \
    UMFA_LOG_LEVEL=warning "$umfa" serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" \
    > "$work/stdout" 2> "$work/stderr" &
server_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 200); do
    curl -fs "$base/health" > /dev/null 2>&1 && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/stdout" "$work/stderr" >&2; exit 1; }
    sleep 0.1
done
api_key=$(sed -n 's/.*api_key (shown once, stored hashed): //p' "$work/stdout")
[ -n "$api_key" ] || { echo "no development API key on stdout" >&2; exit 1; }
examples=${UMFA_APIFUZZ_EXAMPLES:-25}
run() {
    "$venv/bin/schemathesis" run "$base/openapi.yaml" --url "$base" \
        --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
        --max-examples "$examples" --seed 20261121 --workers 1 --request-timeout 20 --no-color \
        --suppress-health-check all --generation-database none --warnings off "$@"
}
status=0
echo "== admin routes (admin token)"
run --include-path-regex '^/api/admin/' -H "Authorization: Bearer $admin" "${@}" || status=1
echo "== API-key routes (application API key)"
run --include-path-regex '^/api/umfa/(validate-token|enrollment-tokens|users/)' -H "Authorization: Bearer $api_key" \
    "${@}" || status=1
echo "== device-facing and public routes (no credentials)"
run --exclude-path-regex '^/api/admin/|^/api/umfa/(validate-token|enrollment-tokens|users/)' "${@}" || status=1
# Last, as it blocks this address for credential guesses: wrong admin tokens and API keys get 401
# until the address has guessed too often, then 429, and the document must list both.
echo "== admin and API-key routes (wrong credentials: 401, then 429)"
run --include-path-regex '^/api/admin/|^/api/umfa/(validate-token|enrollment-tokens|users/)' \
    -H "Authorization: Bearer umfa_admin_wrong_$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')" \
    "${@}" || status=1
if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "umfa serve died during API fuzzing" >&2
    cat "$work/stderr" >&2
    exit 1
fi
if grep -E "Fatal error|Stack dump|Segmentation fault" "$work/stderr"; then
    echo "umfa serve crashed during API fuzzing" >&2
    exit 1
fi
exit $status
