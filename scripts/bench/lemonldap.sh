#!/usr/bin/env bash
# The LemonLDAP::NG peer for scripts/bench.sh: sets up LemonLDAP::NG (Debian's lemonldap-ng) as an
# OpenID Connect provider on this machine, measures its OAuth token endpoint with the load
# generator UMFA's own OAuth figures use, prints one JSON object on stdout and stops everything
# it started. Progress and logs go to stderr.
#   scripts/bench/lemonldap.sh [SECONDS]     SECONDS per measurement, 10 by default
# What it does:
#   - installs lemonldap-ng, its FastCGI server, the Perl modules the portal, the manager's CLI
#     and the OIDC issuer load, nginx, wrk and python3-requests when missing (Debian, as root);
#   - configures a copy of the installed configuration with lemonldap-ng-cli in a temp dir: the
#     Demo authentication backend (dwho/dwho), the OIDC issuer with its RSA signing key (a new
#     2048-bit one from openssl when the installation has none), one confidential relying party allowed client_credentials, offline access and refresh
#     tokens, issuing JWT access tokens and ID tokens signed RS256 like UMFA's default;
#   - starts llng-fastcgi-server (as www-data: it refuses root) on a unix socket and nginx on
#     127.0.0.1 and a free port, both from the temp dir (no systemd needed);
#   - measures grant_type=client_credentials with HTTP Basic client authentication
#     (wrk -t2 -c32 --latency and scripts/bench/form-post.lua, as scripts/bench/server_bench.py
#     does for UMFA) and the server's CPU (FastCGI processes and nginx) during that run;
#   - gets offline refresh tokens through the authorization code flow as the Demo user and
#     measures grant_type=refresh_token the same way. LemonLDAP::NG 2.16 does not rotate refresh
#     tokens, so wrk replays them: one per connection, because concurrent refreshes of a single
#     token race on its session file ("Unable to find OIDC session").
# Environment: LLNG_BENCH_NPROC, the FastCGI worker count (7, the package's default);
# LLNG_BENCH_KEEP=1 keeps the temp dir (configuration, logs, wrk outputs) for a look afterwards.
set -euo pipefail

seconds=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
cli=/usr/share/lemonldap-ng/bin/lemonldap-ng-cli
nproc=${LLNG_BENCH_NPROC:-7}
wrk_threads=2
wrk_connections=32
client_id=bench
redirect_uri=http://127.0.0.1/cb
# The modules beyond the packages' Depends that this needs (they are Recommends): the manager's CLI
# loads Email::Sender and MIME::Entity, the portal always loads its captcha (GD::SecurityImage with
# Image::Magick), the OIDC issuer IO::String, Crypt::OpenSSL::Bignum and String::Random.
packages=(lemonldap-ng lemonldap-ng-fastcgi-server nginx wrk
    libemail-sender-perl libmime-tools-perl libgd-securityimage-perl libimage-magick-perl
    libio-string-perl libcrypt-openssl-bignum-perl libstring-random-perl
    libhttp-parser-xs-perl libcookie-baker-xs-perl)

tmp=""
fcgi_pid=""
nginx_pid=""

log() { echo "lemonldap: $*" >&2; }

die() {
    log "$*"
    if [ -n "$tmp" ] && [ -f "$tmp/fcgi.log" ]; then
        log "last lines of the FastCGI server's log:"
        grep -v -e 'Route "\*" redefined' -e '^FastCGI:' "$tmp/fcgi.log" | tail -n 15 >&2 || true
    fi
    exit 1
}

install_packages() {
    local missing=() package
    for package in "${packages[@]}"; do
        # shellcheck disable=SC2016  # dpkg-query's format, not a shell expansion
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
    done
    python3 -c 'import requests' 2>/dev/null || missing+=(python3-requests)
    [ ${#missing[@]} = 0 ] && return
    log "installing ${missing[*]}"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        > /tmp/lemonldap-bench-apt.log 2>&1 || { cat /tmp/lemonldap-bench-apt.log >&2; die "apt-get install failed"; }
    rm -f /tmp/lemonldap-bench-apt.log
}

# Kills what was started (nginx first: the FastCGI workers wait for their connections to end).
cleanup() {
    local pid
    if [ -n "$nginx_pid" ] && kill -0 "$nginx_pid" 2>/dev/null; then
        kill -TERM "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
    fi
    if [ -n "$fcgi_pid" ] && kill -0 "$fcgi_pid" 2>/dev/null; then
        local workers
        workers=$(pgrep -P "$fcgi_pid" || true)
        kill -TERM "$fcgi_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$fcgi_pid" 2>/dev/null || break; sleep 0.1; done
        for pid in $fcgi_pid $workers; do kill -KILL "$pid" 2>/dev/null || true; done
        wait "$fcgi_pid" 2>/dev/null || true
    fi
    if [ -n "$tmp" ]; then
        if [ -n "${LLNG_BENCH_KEEP:-}" ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A copy of the installed configuration (its newest lmConf-N.json) and an ini file pointing at it,
# with every storage (sessions, caches, notifications) inside the temp dir.
make_tree() {
    tmp=$(mktemp -d /tmp/lemonldap-bench.XXXXXX)
    chmod 755 "$tmp"
    mkdir -p "$tmp"/{conf,cache,sessions/lock,psessions/lock,notifications,run,nginx}
    local newest
    newest=$(find /var/lib/lemonldap-ng/conf -name 'lmConf-*.json' | sort -t- -k2 -n | tail -n 1)
    [ -n "$newest" ] || die "no configuration in /var/lib/lemonldap-ng/conf"
    cp "$newest" "$tmp/conf/"
    cat > "$tmp/lemonldap-ng.ini" <<EOF
[all]
logLevel = warn
checkTime = 1

[configuration]
type = File
dirName = $tmp/conf
prettyPrint = 1

[portal]
staticPrefix = /static
templateDir = /usr/share/lemonldap-ng/portal/templates
languages = en

[handler]
status = 0
useRedirectOnError = 1

[manager]
protection = manager
staticPrefix = /static
templateDir = /usr/share/lemonldap-ng/manager/htdocs/templates
languages = en
enabledModules = conf
EOF
    chown -R www-data:www-data "$tmp"/{conf,cache,sessions,psessions,notifications,run}
}

llng_cli() {
    LLNG_DEFAULTCONFFILE=$tmp/lemonldap-ng.ini "$cli" -iniFile "$tmp/lemonldap-ng.ini" -yes 1 -safe 1 "$@" \
        >> "$tmp/cli.log" 2>&1 || { cat "$tmp/cli.log" >&2; die "lemonldap-ng-cli $1 failed"; }
}

# The portal, the OIDC issuer and the relying party, merged into the configuration by the CLI.
configure() {
    local issuer=$1 key=""
    if ! grep -q '"oidcServicePrivateKeySig"' "$tmp"/conf/lmConf-*.json; then
        key=$tmp/oidc-key.pem
        openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$key" 2>/dev/null
    fi
    # The package's reloadUrls points at http://reload.example.com/reload: nothing to reload here.
    llng_cli del reloadUrls
    python3 - "$tmp" "$issuer" "$client_id" "$client_secret" "$redirect_uri" "$key" > "$tmp/merge.json" <<'PY'
import json, subprocess, sys
tmp, issuer, client_id, secret, redirect_uri, key = sys.argv[1:]
public = key and subprocess.run(["openssl", "pkey", "-in", key, "-pubout"], check=True, capture_output=True,
                                text=True).stdout
print(json.dumps({
    "portal": issuer + "/",
    # Not a cookie domain any client uses (python sends the SSO cookie itself), but the handler
    # needs one and the manager accepts no IP address.
    "domain": "localdomain",
    "authentication": "Demo", "userDB": "Same", "passwordDB": "Demo",
    "globalStorageOptions": {"Directory": f"{tmp}/sessions", "LockDirectory": f"{tmp}/sessions/lock",
                             "generateModule": "Lemonldap::NG::Common::Apache::Session::Generate::SHA256"},
    "persistentStorageOptions": {"Directory": f"{tmp}/psessions", "LockDirectory": f"{tmp}/psessions/lock"},
    "localSessionStorageOptions": {"cache_root": f"{tmp}/cache", "cache_depth": 3, "default_expires_in": 600,
                                   "directory_umask": "007", "namespace": "lemonldap-ng-sessions"},
    "notificationStorageOptions": {"dirName": f"{tmp}/notifications"},
    "issuerDBOpenIDConnectActivation": 1,
    "oidcServiceMetaDataIssuer": issuer,
    # The installation's signing key if it has one, else a new one.
    **({"oidcServicePrivateKeySig": open(key).read(), "oidcServicePublicKeySig": public,
        "oidcServiceKeyIdSig": "bench"} if key else {}),
    "oidcRPMetaDataOptions": {"bench": {
        "oidcRPMetaDataOptionsClientID": client_id,
        "oidcRPMetaDataOptionsClientSecret": secret,
        "oidcRPMetaDataOptionsRedirectUris": redirect_uri,
        "oidcRPMetaDataOptionsAllowClientCredentialsGrant": 1,
        "oidcRPMetaDataOptionsAllowOffline": 1,
        "oidcRPMetaDataOptionsRefreshToken": 1,
        # offline_access is only honoured with consent: bypassing it is the RP's setting for that.
        "oidcRPMetaDataOptionsBypassConsent": 1,
        # UMFA's access tokens are RS256 JWTs (RFC 9068); LemonLDAP's default is an opaque token.
        "oidcRPMetaDataOptionsAccessTokenJWT": 1,
        "oidcRPMetaDataOptionsAccessTokenSignAlg": "RS256",
        # LemonLDAP's default for ID tokens is HS512.
        "oidcRPMetaDataOptionsIDTokenSignAlg": "RS256"}},
    "oidcRPMetaDataExportedVars": {"bench": {"email": "mail", "name": "cn"}},
    # A client_credentials request without a scope gets none, which LemonLDAP refuses
    # (invalid_scope): this rule grants scope "bench" always, as UMFA grants a client its scopes.
    "oidcRPMetaDataScopeRules": {"bench": {"bench": "1"}},
}))
PY
    llng_cli -log "bench" merge "$tmp/merge.json"
}

start_servers() {
    local port=$1
    log "starting llng-fastcgi-server ($nproc workers) and nginx on 127.0.0.1:$port"
    LLNG_DEFAULTCONFFILE=$tmp/lemonldap-ng.ini LLNG_DEFAULTLOGGER=Lemonldap::NG::Common::Logger::Std \
        /usr/sbin/llng-fastcgi-server --foreground -u www-data -g www-data -n "$nproc" \
        -s "$tmp/run/fcgi.sock" -p "$tmp/run/fcgi.pid" > "$tmp/fcgi.log" 2>&1 &
    fcgi_pid=$!
    # As the package's /etc/lemonldap-ng/portal-nginx.conf, with the temp dir's paths.
    cat > "$tmp/nginx/nginx.conf" <<EOF
user www-data;
worker_processes auto;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log warn;
daemon off;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $tmp/nginx/body;
    fastcgi_temp_path $tmp/nginx/fastcgi;
    proxy_temp_path $tmp/nginx/proxy;
    uwsgi_temp_path $tmp/nginx/uwsgi;
    scgi_temp_path $tmp/nginx/scgi;
    include /etc/nginx/mime.types;
    server {
        listen 127.0.0.1:$port;
        root /usr/share/lemonldap-ng/portal/htdocs/;
        location /static/ { alias /usr/share/lemonldap-ng/portal/htdocs/static/; }
        location /javascript/ { alias /usr/share/javascript/; }
        location / {
            include /etc/nginx/fastcgi_params;
            fastcgi_pass unix:$tmp/run/fcgi.sock;
            # Without it, nginx closes the FastCGI connection when wrk closes its own at the end
            # of a run, and the worker writing the answer dies of SIGPIPE: the manager starts a
            # new one, which compiles the portal again on its first request.
            fastcgi_ignore_client_abort on;
            fastcgi_param HTTP_HOST \$host:\$server_port;
            fastcgi_param LLTYPE psgi;
            fastcgi_param SCRIPT_FILENAME /usr/share/lemonldap-ng/portal/htdocs/index.psgi;
            fastcgi_param SCRIPT_NAME "";
            fastcgi_param PATH_INFO \$uri;
        }
    }
}
EOF
    nginx -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" > "$tmp/nginx/stderr.log" 2>&1 &
    nginx_pid=$!
    local status=""
    for _ in $(seq 100); do
        status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/.well-known/openid-configuration" || true)
        [ "$status" = 200 ] && return
        kill -0 "$fcgi_pid" 2>/dev/null || die "llng-fastcgi-server exited"
        kill -0 "$nginx_pid" 2>/dev/null || die "nginx exited: $(cat "$tmp/nginx/stderr.log" "$tmp/nginx/error.log" 2>/dev/null)"
        sleep 0.3
    done
    die "the portal's /.well-known/openid-configuration answers $status"
}

# One request must answer 200 with an access token, or any rate would be meaningless. The answer
# is left in $tmp/check-<what>.json.
check_token() {
    local what=$1 body=$2 status
    status=$(curl -s -o "$tmp/check-$what.json" -w '%{http_code}' -u "$client_id:$client_secret" \
        --data "$body" "$token_url") || { echo "$what: curl to $token_url failed" >&2; return 1; }
    if [ "$status" != 200 ] || ! grep -q '"access_token"' "$tmp/check-$what.json"; then
        echo "$what: HTTP $status $(head -c 300 "$tmp/check-$what.json")" >&2
        return 1
    fi
}

# The CPU time, in clock ticks, of the FastCGI manager and workers and nginx's master and workers:
# utime + stime of each, plus cutime + cstime (the children they reaped: a worker that died).
server_pids() { echo "$fcgi_pid" "$(pgrep -P "$fcgi_pid")" "$nginx_pid" "$(pgrep -P "$nginx_pid")"; }

server_cpu_ticks() {
    local total=0 pid stat fields
    # shellcheck disable=SC2046  # one pid a word
    for pid in $(server_pids); do
        stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
        read -r -a fields <<< "${stat##*) }"
        total=$((total + fields[11] + fields[12] + fields[13] + fields[14]))
    done
    echo "$total"
}

# Runs wrk with a script and its environment; prints the figures as JSON, plus the server's CPU.
run_wrk() {
    local lua=$1 out=$2 before start end after
    before=$(server_cpu_ticks)
    start=$(date +%s.%N)
    wrk -t"$wrk_threads" -c"$wrk_connections" -d"${seconds}s" --latency -s "$lua" "$token_url" > "$out"
    end=$(date +%s.%N)
    after=$(server_cpu_ticks)
    python3 - "$out" "$before" "$after" "$start" "$end" "$(getconf CLK_TCK)" <<'PY'
import json, re, sys
path, before, after, start, end, hz = sys.argv[1:]
output = open(path).read()

def latency(text):
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return round(float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit], 3)

non_ok = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
print(json.dumps({
    "per_second": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
    "p50_ms": latency(re.search(r"^\s+50%\s+(\S+)", output, re.M).group(1)),
    "p99_ms": latency(re.search(r"^\s+99%\s+(\S+)", output, re.M).group(1)),
    "non_2xx": int(non_ok.group(1)) if non_ok else 0,
    "server_cpu_cores": round((int(after) - int(before)) / int(hz) / (float(end) - float(start)), 2),
}))
PY
}

measure_client_credentials() {
    check_token "client_credentials" "$UMFA_BENCH_BODY" || die "client_credentials does not answer 200 with an access token"
    # Each FastCGI worker compiles the portal on its first request: warm them all up first.
    log "warm-up (2 s)"
    wrk -t"$wrk_threads" -c"$wrk_connections" -d2s -s "$here/form-post.lua" "$token_url" > /dev/null
    log "client_credentials (${seconds} s)"
    run_wrk "$here/form-post.lua" "$tmp/wrk-client-credentials.txt"
}

# Offline refresh tokens for dwho: one login at the portal, then one authorization code flow
# (scope openid offline_access) per token, exchanged at the token endpoint.
obtain_refresh_tokens() {
    local count=$1
    python3 - "$base_url" "$client_id" "$client_secret" "$redirect_uri" "$count" > "$tmp/refresh-tokens" <<'PY'
import html, re, sys, urllib.parse
from concurrent.futures import ThreadPoolExecutor
import requests

base, client_id, secret, redirect_uri, count = sys.argv[1:]
authorize = base + "/oauth2/authorize?" + urllib.parse.urlencode({
    "response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
    "scope": "openid offline_access", "state": "bench"})

def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)

# The login form comes back on the authorize URL itself (action="#"), with hidden fields (a
# one-time token among them) to post back with user and password.
session = requests.Session()
page = session.get(authorize, allow_redirects=False, timeout=30)
form = {}
for tag in re.findall(r"<input[^>]*>", page.text):
    name, value = re.search(r'name="([^"]*)"', tag), re.search(r'value="([^"]*)"', tag)
    if name and 'type="checkbox"' not in tag:
        form[name.group(1)] = html.unescape(value.group(1)) if value else ""
if "user" not in form:
    fail(f"GET /oauth2/authorize: no login form (HTTP {page.status_code})")
form.update(user="dwho", password="dwho")
login = session.post(authorize, data=form, allow_redirects=False, timeout=30)
# The cookie's Domain (the configuration's "domain") is not 127.0.0.1: requests would drop it.
sso = re.search(r"(?:^|[\s,])lemonldap=([0-9a-f]+)", login.headers.get("set-cookie", ""))
if not sso:
    messages = re.findall(r'trmsg="(\d+)"', login.text)
    fail(f"login as dwho at /oauth2/authorize: no SSO cookie (HTTP {login.status_code}, portal messages {messages})")
cookie = {"lemonldap": sso.group(1)}

def refresh_token(_):
    answer = requests.get(authorize, cookies=cookie, allow_redirects=False, timeout=30)
    location = answer.headers.get("location", "")
    code = urllib.parse.parse_qs(urllib.parse.urlparse(location).query).get("code")
    if not location.startswith(redirect_uri) or not code:
        fail(f"GET /oauth2/authorize with the SSO cookie: HTTP {answer.status_code}, location {location!r}")
    token = requests.post(base + "/oauth2/token", auth=(client_id, secret), timeout=30, data={
        "grant_type": "authorization_code", "code": code[0], "redirect_uri": redirect_uri})
    if token.status_code != 200 or "refresh_token" not in token.json():
        fail(f"authorization_code exchange: HTTP {token.status_code} {token.text[:300]}")
    return token.json()["refresh_token"]

with ThreadPoolExecutor(8) as pool:
    print("\n".join(pool.map(refresh_token, range(int(count)))))
PY
}

# wrk replays the refresh tokens, each thread cycling through its share of them, so that (about)
# one request at a time uses a token.
write_refresh_lua() {
    cat > "$tmp/refresh.lua" <<'LUA'
local threads = 0
function setup(thread)
    thread:set("id", threads)
    threads = threads + 1
end
function init(args)
    headers = {["Content-Type"] = "application/x-www-form-urlencoded",
               ["Authorization"] = os.getenv("UMFA_BENCH_AUTHORIZATION")}
    tokens, next_token = {}, 1
    local count, i = tonumber(os.getenv("LLNG_BENCH_THREADS")), 0
    for token in string.gmatch(os.getenv("LLNG_BENCH_REFRESH_TOKENS"), "%S+") do
        if i % count == id then table.insert(tokens, token) end
        i = i + 1
    end
end
function request()
    local token = tokens[next_token]
    next_token = next_token % #tokens + 1
    return wrk.format("POST", nil, headers, "grant_type=refresh_token&refresh_token=" .. token)
end
LUA
}

# Prints the refresh_token figures as JSON, or fails with the reason on stderr.
measure_refresh() {
    obtain_refresh_tokens "$wrk_connections" 2> "$tmp/refresh-problem" || return 1
    local first
    first=$(head -n 1 "$tmp/refresh-tokens")
    check_token "refresh_token" "grant_type=refresh_token&refresh_token=$first" 2> "$tmp/refresh-problem" || return 1
    if grep -q '"refresh_token"' "$tmp/check-refresh_token.json"; then
        echo "this LemonLDAP::NG rotates refresh tokens: replaying them with wrk would measure errors" \
            "(the python-threads method is not written)" > "$tmp/refresh-problem"
        return 1
    fi
    write_refresh_lua
    log "refresh_token ($(wc -l < "$tmp/refresh-tokens") offline refresh tokens, ${seconds} s)"
    LLNG_BENCH_THREADS=$wrk_threads LLNG_BENCH_REFRESH_TOKENS=$(tr '\n' ' ' < "$tmp/refresh-tokens") \
        run_wrk "$tmp/refresh.lua" "$tmp/wrk-refresh.txt"
}

main() {
    [ "$(id -u)" = 0 ] || { echo "lemonldap: run as root (installs packages, starts www-data servers)" >&2; exit 1; }
    trap cleanup EXIT
    trap 'exit 1' INT TERM
    install_packages
    local port version cc refresh problem=""
    port=$(free_port)
    base_url=http://127.0.0.1:$port
    token_url=$base_url/oauth2/token
    client_secret=$(openssl rand -hex 16)
    # For scripts/bench/form-post.lua, as server_bench.py sets them for UMFA.
    export UMFA_BENCH_AUTHORIZATION UMFA_BENCH_BODY=grant_type=client_credentials
    UMFA_BENCH_AUTHORIZATION="Basic $(printf '%s:%s' "$client_id" "$client_secret" | base64 -w0)"
    # shellcheck disable=SC2016
    version=$(dpkg-query -W -f='${Version}' lemonldap-ng)
    make_tree
    log "configuring LemonLDAP::NG $version in $tmp"
    configure "$base_url"
    start_servers "$port"
    cc=$(measure_client_credentials)
    if ! refresh=$(measure_refresh); then
        refresh=null
        problem=$(tr '\n' ' ' < "$tmp/refresh-problem")
        [ -n "$problem" ] || problem="unknown (see the FastCGI server's log)"
        log "refresh_token: $problem"
    fi
    python3 - "$version" "$cc" "$refresh" "$problem" "$nproc" "$wrk_connections" <<'PY'
import json, sys
version, cc, refresh, problem, nproc, tokens = sys.argv[1:]
result = {"version": version, "fastcgi_workers": int(nproc), "access_token": "JWT RS256",
          "client_credentials": json.loads(cc), "refresh_token": json.loads(refresh)}
if result["refresh_token"]:
    # LemonLDAP::NG 2.16 answers a refresh without a new refresh token: wrk replays them.
    result["refresh_token"].update(method="wrk", rotates=False, refresh_tokens=int(tokens), offline=True)
if problem:
    result["refresh_token_problem"] = problem.strip()
print(json.dumps(result))
PY
}

main "$@"
