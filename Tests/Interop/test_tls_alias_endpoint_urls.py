"""On the mutual-TLS endpoint alias (RFC 8705 §5) a client addresses the alias's own URLs, as
discovery's `mtls_endpoint_aliases` names them: a `private_key_jwt` assertion (RFC 7523 §3) may
name the alias's token endpoint as its audience, and a DPoP proof (RFC 9449 §4.3) sent to the
alias's introspection endpoint names that URL as `htu`. The same values aimed at another URL are
refused. Clients: authlib's PrivateKeyJWT and requests-oauth2client's DPoP keys."""

from __future__ import annotations

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from requests_oauth2client import DPoPKey

from support import ADMIN_TOKEN
from tls_support import pki, tls_serve  # noqa: F401 (fixtures)


def aliases(server) -> dict:
    document = server.get(f"/oidc/{server.app_id}/.well-known/openid-configuration").json()
    return document["mtls_endpoint_aliases"]


def on_alias(server, url: str) -> str:
    """The alias URL as this test reaches it: discovery says localhost, the listener is 127.0.0.1."""
    return url.replace("https://localhost:", "https://127.0.0.1:")


def signed_client(server) -> tuple[dict, bytes]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    public_jwk = JsonWebKey.import_key(pem, {"kty": "RSA"}).as_dict(is_private=False)
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Signed", "grant_types": ["client_credentials"], "response_types": [],
                        "token_endpoint_auth_method": "private_key_jwt", "scope": "orders:read",
                        "jwks": {"keys": [public_jwk]}},
                       bearer=ADMIN_TOKEN, status=201)
    return client, pem


def test_a_private_key_jwt_assertion_may_name_the_alias_token_endpoint(tls_serve, pki):
    server = tls_serve(mtls=True)
    client, pem = signed_client(server)
    alias_token = aliases(server)["token_endpoint"]

    session = OAuth2Session(client["client_id"], pem.decode(), scope="orders:read",
                            token_endpoint_auth_method=PrivateKeyJWT(alias_token, alg="RS256"))
    session.verify, session.trust_env = str(pki.ca), False
    token = session.fetch_token(on_alias(server, alias_token), grant_type="client_credentials")
    assert token["access_token"] and token["scope"] == "orders:read", token

    # The attack: an assertion made for another server's token endpoint, replayed here.
    elsewhere = OAuth2Session(client["client_id"], pem.decode(),
                              token_endpoint_auth_method=PrivateKeyJWT("https://rp.example/token", alg="RS256"))
    elsewhere.verify, elsewhere.trust_env = str(pki.ca), False
    with pytest.raises(Exception) as refused:
        elsewhere.fetch_token(on_alias(server, alias_token), grant_type="client_credentials")
    assert "invalid_client" in str(refused.value), refused.value


def test_a_dpop_proof_to_the_alias_introspection_endpoint_names_the_alias_url(tls_serve, pki):
    server = tls_serve(mtls=True)
    app = server.app_id
    client = server.ok("POST", f"/api/admin/applications/{app}/oauth-clients",
                       {"client_name": "Meter", "grant_types": ["client_credentials"], "response_types": [],
                        "token_endpoint_auth_method": "client_secret_basic", "scope": "orders:read"},
                       bearer=ADMIN_TOKEN, status=201)
    auth = (client["client_id"], client["client_secret"])
    issued = server.http.post(f"{server.base}/oidc/{app}/token", auth=auth, timeout=15,
                              data={"grant_type": "client_credentials", "scope": "orders:read"})
    assert issued.status_code == 200, issued.text
    access_token = issued.json()["access_token"]
    alias_introspect = aliases(server)["introspection_endpoint"]
    key = DPoPKey.generate(alg="ES256")

    def introspect(htu: str) -> requests.Response:
        proof = str(key.proof(htm="POST", htu=htu))
        return server.mtls_request("POST", f"/oidc/{app}/introspect", cert=None, auth=auth,
                                   headers={"DPoP": proof}, data={"token": access_token})

    answered = introspect(alias_introspect)
    assert answered.status_code == 200 and answered.json()["active"] is True, answered.text
    # The attack: a proof made for the main listener's URL, sent to the alias.
    refused = introspect(f"{server.origin}/oidc/{app}/introspect")
    assert refused.status_code in (400, 401) and refused.json()["error"] == "invalid_dpop_proof", refused.text
