"""The SDK's TLS transport (`UMFATLSTransport`, docs/sdk-tls.md) against a real `umfa serve` with
HTTPS and the mutual-TLS alias (RFC 8705 §5), through `umfa oauth … --cert --key --pin-sha256
--cacert`: the server key's pin (made by openssl) lets the requests through, a pin of another
key stops them in the handshake with a clear error, and the client certificate authenticates a
`tls_client_auth` client (RFC 8705 §2) at the alias's revocation endpoint (RFC 7009 §2.1), where
another certificate is refused."""

from __future__ import annotations

import base64
import json
import hashlib
import subprocess

from support import ADMIN_TOKEN
from tls_support import CLIENT_DN, pki, tls_serve  # noqa: F401 (pki, tls_serve: fixtures)

PIN = "4719\n"
SCOPE = "openid profile email offline_access"


def spki_pin(cert) -> str:
    """RFC 7469 §2.4: base64 SHA-256 of the DER SubjectPublicKeyInfo, by openssl."""
    public = subprocess.run(["openssl", "x509", "-in", str(cert), "-pubkey", "-noout"], capture_output=True,
                            check=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=public, capture_output=True,
                         check=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def mtls_client(server) -> str:
    created = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                        {"client_name": "Kiosk", "redirect_uris": ["http://127.0.0.1/callback"],
                         "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                         "token_endpoint_auth_method": "tls_client_auth", "tls_client_auth_subject_dn": CLIENT_DN,
                         "scope": f"{SCOPE} urn:umfa:api-flow", "first_party": True},
                        bearer=ADMIN_TOKEN, status=201)
    return created["client_id"]


def oauth(umfa, server, client_id: str, command: str, device, *extra: str):
    issuer = server.http.get(f"{server.base}/oidc/{server.app_id}/.well-known/openid-configuration",
                             timeout=10).json()["issuer"]
    args = ["oauth", command, "--issuer", issuer, "--client-id", client_id, "--device-dir", str(device), *extra]
    pin = None
    if command in ("signup", "login"):
        args += ["--pin-stdin", "--origin", server.origin]
        pin = PIN
    return umfa.run(*args, input=pin)


def test_the_server_key_pin_and_the_client_certificate_from_the_shell(umfa, tls_serve, pki, tmp_path):
    server = tls_serve(mtls=True, env={"UMFA_MTLS_TRUST_ANCHORS": str(pki.ca)})
    client_id = mtls_client(server)
    server_pin, ca_pin = spki_pin(pki.server_cert), spki_pin(pki.ca)
    identity = ("--cert", str(pki.client_cert), "--key", str(pki.client_key))
    trusted = ("--cacert", str(pki.ca))

    # A pin of another key (the CA's own is in the chain, the client's is not): refused in the
    # handshake, with the pin named in the error, exit 1, no token printed.
    refused = oauth(umfa, server, client_id, "revoke", tmp_path / "d1", "--token", "x", *identity, *trusted,
                    "--pin-sha256", spki_pin(pki.client_cert))
    assert refused.code == 1, refused
    assert "matches none of the pinned keys" in refused.stderr, refused.stderr

    # Revocation (RFC 7009 §2.1) authenticates the client: tls_client_auth at the alias with the
    # certificate; the pins are the next key and the current one (rotation).
    revoked = oauth(umfa, server, client_id, "revoke", tmp_path / "d2", "--token", "not-a-token", *identity,
                    *trusted, "--pin-sha256", spki_pin(pki.client2_cert), "--pin-sha256", server_pin)
    assert revoked.code == 0, revoked
    # Another certificate (client-2's subject DN) is not this client's: invalid_client.
    other = oauth(umfa, server, client_id, "revoke", tmp_path / "d3", "--token", "not-a-token",
                  "--cert", str(pki.client2_cert), "--key", str(pki.client2_key), *trusted, "--pin-sha256", ca_pin)
    assert other.code == 1 and "invalid_client" in (other.stderr + other.stdout), other



def test_tokens_at_the_alias_with_the_client_certificate_and_a_dpop_proof_naming_it(umfa, tls_serve, pki, tmp_path):
    """Sign-up through the API-driven flow with a `tls_client_auth` client: the SDK sends the
    token requests to the alias (RFC 8705 §5) with the certificate, and its DPoP proofs name the
    alias URL it sent them to (RFC 9449 §4.3), which the server accepts there. The tokens are
    bound to the DPoP key; the refresh at the alias works with the same certificate."""
    server = tls_serve(mtls=True, env={"UMFA_MTLS_TRUST_ANCHORS": str(pki.ca)})
    client_id = mtls_client(server)
    identity = ("--cert", str(pki.client_cert), "--key", str(pki.client_key), "--cacert", str(pki.ca))
    device = tmp_path / "device"
    signed_up = oauth(umfa, server, client_id, "signup", device, "--email", "kiosk@example.com", "--allow-consent",
                      *identity)
    assert signed_up.code == 0, signed_up
    tokens = json.loads(signed_up.stdout)
    assert tokens["token_type"] == "DPoP" and tokens["refresh_token"], tokens
    refreshed = oauth(umfa, server, client_id, "refresh", device, "--token", tokens["refresh_token"],
                      *identity)
    assert refreshed.code == 0, refreshed
    assert json.loads(refreshed.stdout)["access_token"] != tokens["access_token"]
