"""The mutual-TLS endpoint alias (RFC 8705 §5): `umfa serve --mtls-port` listens a second time,
asks for a client certificate there (and only there, so browsers on the main port never see a
certificate prompt), accepts any certificate at the TLS layer — CA-issued or self-signed
(§2.2) — and hands it to the OAuth layer; only the token, PAR, introspection, revocation and
UserInfo endpoints answer on it; discovery names them in `mtls_endpoint_aliases`. Clients:
`openssl s_client`, `curl --cert` and Python `requests`."""

from __future__ import annotations

import subprocess

from support import ADMIN_TOKEN
from tls_support import CLIENT_DN, handshake, pki, tls_serve  # noqa: F401 (pki, tls_serve: fixtures)

ALIASED = ("token", "par", "introspect", "revoke", "userinfo", "device_authorization", "bc-authorize")


def tls_client(server, dn: str = CLIENT_DN) -> str:
    created = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                        {"client_name": "Meter", "grant_types": ["client_credentials"], "response_types": [],
                         "token_endpoint_auth_method": "tls_client_auth", "tls_client_auth_subject_dn": dn,
                         "scope": "orders:read"}, bearer=ADMIN_TOKEN, status=201)
    return created["client_id"]


def test_only_the_alias_asks_for_a_client_certificate_and_any_certificate_is_accepted_there(tls_serve, pki):
    server = tls_serve(mtls=True)
    established, main = handshake(server.port, "-tls1_2", ca=pki.ca)
    assert established and "Client Certificate Types" not in main, main
    established, alias = handshake(server.mtls_port, "-tls1_2", ca=pki.ca)
    assert established and "Client Certificate Types" in alias, alias
    # No certificate, a CA-issued one, a self-signed one: every handshake completes (TLS 1.2 and 1.3).
    for version in ("-tls1_2", "-tls1_3"):
        for cert, key in ((pki.client_cert, pki.client_key), (pki.self_signed_cert, pki.self_signed_key)):
            established, out = handshake(server.mtls_port, version, "-cert", str(cert), "-key", str(key), ca=pki.ca)
            assert established, out
    established, out = handshake(server.mtls_port, "-alpn", "h2", ca=pki.ca)
    assert established and "ALPN protocol: h2" in out, out


def test_only_the_oauth_client_endpoints_answer_on_the_alias(tls_serve, pki):
    server = tls_serve(mtls=True)
    app = server.app_id
    for path in ("/health", f"/oidc/{app}/.well-known/openid-configuration", f"/oidc/{app}/authorize",
                 f"/oidc/{app}/jwks", "/api/admin/applications", "/"):
        response = server.mtls_request("GET", path, cert=pki.client)
        assert response.status_code == 404, (path, response.status_code, response.text)
    # The token endpoint answers there, in its OAuth error shape, for a request without a client.
    response = server.mtls_request("POST", f"/oidc/{app}/token", cert=pki.client,
                                   data={"grant_type": "client_credentials"})
    assert response.status_code in (400, 401) and "error" in response.json(), response.text
    # The main listener still serves everything.
    assert server.get("/health").status_code == 200


def test_the_alias_hands_the_presented_certificate_to_tls_client_auth(tls_serve, pki):
    server = tls_serve(mtls=True, env={"UMFA_MTLS_TRUST_ANCHORS": str(pki.ca)})
    app = server.app_id
    client_id = tls_client(server)
    form = {"grant_type": "client_credentials", "client_id": client_id, "scope": "orders:read"}

    token = server.mtls_request("POST", f"/oidc/{app}/token", cert=pki.client, data=form)
    assert token.status_code == 200, token.text
    assert token.json()["access_token"]
    # curl --cert, an independent client, too, over HTTP/2 and HTTP/1.1.
    for flag, version in (("--http2", "2"), ("--http1.1", "1.1")):
        result = subprocess.run(
            ["curl", "-sS", flag, "--cacert", str(pki.ca), "--cert", str(pki.client_cert), "--key",
             str(pki.client_key), "-d", f"grant_type=client_credentials&client_id={client_id}", "-o", "/dev/null",
             "-w", "%{http_version} %{http_code}", f"{server.mtls_base}/oidc/{app}/token"],
            capture_output=True, text=True, timeout=15)
        assert result.stdout == f"{version} 200", (result.stdout, result.stderr)

    # Attacks: no certificate on the alias, another client's certificate, a self-signed one,
    # and the main listener, which never has a handshake certificate.
    for cert in (None, pki.client2, pki.self_signed):
        refused = server.mtls_request("POST", f"/oidc/{app}/token", cert=cert, data=form)
        assert refused.status_code == 401 and refused.json()["error"] == "invalid_client", refused.text
    refused = server.post(f"/oidc/{app}/token", data=form, headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client", refused.text


def test_discovery_lists_the_alias_endpoints(tls_serve, pki):
    server = tls_serve(mtls=True)
    app = server.app_id
    document = server.get(f"/oidc/{app}/.well-known/openid-configuration").json()
    aliases = document["mtls_endpoint_aliases"]
    base = f"https://localhost:{server.mtls_port}/oidc/{app}"
    assert aliases == {"token_endpoint": f"{base}/token", "pushed_authorization_request_endpoint": f"{base}/par",
                       "introspection_endpoint": f"{base}/introspect", "revocation_endpoint": f"{base}/revoke",
                       "userinfo_endpoint": f"{base}/userinfo",
                       "device_authorization_endpoint": f"{base}/device_authorization",
                       "backchannel_authentication_endpoint": f"{base}/bc-authorize"}, aliases
    # Every alias answers on the alias listener (a POST without a client: an OAuth error, not 404).
    for name in ALIASED:
        url = f"{base}/{name}".replace("localhost", "127.0.0.1")
        response = server.mtls_request("POST", url.removeprefix(server.mtls_base), cert=pki.client, data={})
        assert response.status_code != 404, (name, response.status_code, response.text)


def test_the_alias_base_url_setting_is_what_discovery_advertises(tls_serve, pki):
    server = tls_serve(mtls=True, env={"UMFA_MTLS_BASE_URL": "https://mtls.umfa.example"})
    document = server.get(f"/oidc/{server.app_id}/.well-known/openid-configuration").json()
    assert document["mtls_endpoint_aliases"]["token_endpoint"] == \
        f"https://mtls.umfa.example/oidc/{server.app_id}/token", document
