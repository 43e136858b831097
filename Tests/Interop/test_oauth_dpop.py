"""DPoP (RFC 9449, docs/contract.md §5) against a live server, driven by requests-oauth2client's own
DPoP support: key-bound tokens at the token endpoint, the nonce dance, and userinfo with the
DPoP scheme; the bound token as a plain Bearer token, and a proof replayed, are refused."""

import uuid

import jwt
import pytest
import requests
from requests_oauth2client import (ClientSecretBasic, DPoPKey, DPoPToken, OAuth2Client, PublicApp,
                                   EndpointError)

from support import ADMIN_TOKEN
from test_oauth_code_flow import REDIRECT_URI, SCOPE, Browser


def issuer(server) -> str:
    return f"{server.origin}/oidc/{server.app_id}"


def discover(server, auth, **kwargs) -> OAuth2Client:
    return OAuth2Client.from_discovery_endpoint(
        issuer(server) + "/.well-known/openid-configuration", issuer=issuer(server), testing=True, auth=auth,
        **kwargs)


def machine_client(server) -> dict:
    return server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                     {"client_name": "Billing", "grant_types": ["client_credentials"], "response_types": [],
                      "scope": "orders:read", "dpop_bound_access_tokens": True},
                     bearer=ADMIN_TOKEN, status=201)


def test_requests_oauth2client_gets_a_dpop_bound_token_and_handles_the_nonce(server):
    client = machine_client(server)
    auth = ClientSecretBasic(client["client_id"], client["client_secret"])
    oauth = discover(server, auth, dpop_bound_access_tokens=True)
    token = oauth.client_credentials(scope="orders:read")
    assert isinstance(token, DPoPToken) and token.token_type == "DPoP"
    claims = jwt.decode(token.access_token, options={"verify_signature": False})
    assert claims["cnf"] == {"jkt": token.dpop_key.dpop_jkt}, claims
    introspected = oauth.introspect_token(token.access_token)
    assert introspected["token_type"] == "DPoP" and introspected["cnf"]["jkt"] == token.dpop_key.dpop_jkt

    # The client requires DPoP: without a proof the server refuses.
    plain = discover(server, auth)
    with pytest.raises(EndpointError) as refused:
        plain.client_credentials(scope="orders:read")
    assert refused.value.error == "invalid_dpop_proof", refused.value

    # A proof sent twice is refused the second time.
    key = DPoPKey.generate()
    proof = str(key.proof(htm="POST", htu=oauth.token_endpoint))
    send = lambda: requests.post(oauth.token_endpoint, data={"grant_type": "client_credentials"},
                                 auth=(client["client_id"], client["client_secret"]), headers={"DPoP": proof},
                                 timeout=10)
    assert send().status_code == 200
    replay = send()
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_dpop_proof", replay.text

    # Nonces required: the library gets use_dpop_nonce, takes the DPoP-Nonce and retries by itself.
    server.ok("PATCH", f"/api/admin/applications/{server.app_id}", {"dpop_nonce": "required"}, bearer=ADMIN_TOKEN)
    first = requests.post(oauth.token_endpoint, data={"grant_type": "client_credentials"},
                          auth=(client["client_id"], client["client_secret"]),
                          headers={"DPoP": str(DPoPKey.generate().proof(htm="POST", htu=oauth.token_endpoint))},
                          timeout=10)
    assert first.status_code == 400 and first.json()["error"] == "use_dpop_nonce", first.text
    assert first.headers.get("DPoP-Nonce"), first.headers
    again = oauth.client_credentials(scope="orders:read")
    assert again.token_type == "DPoP"


def test_a_public_client_uses_dpop_through_the_code_flow_and_userinfo(server, authenticator):
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Phone app", "redirect_uris": [REDIRECT_URI],
                        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                        "token_endpoint_auth_method": "none", "scope": SCOPE, "first_party": True},
                       bearer=ADMIN_TOKEN, status=201)
    oauth = discover(server, PublicApp(client["client_id"]), redirect_uri=REDIRECT_URI,
                     dpop_bound_access_tokens=True)
    request = oauth.authorization_request(scope=SCOPE, prompt="create")
    email = f"kim-{uuid.uuid4().hex[:8]}@example.com"
    callback = Browser(server, authenticator).create_account(request.uri, email)
    # validate=False: requests-oauth2client 1.x loses the DPoP key when it rebuilds a DPoPToken
    # after checking the ID token (a TypeError in the library); the ID token is checked below.
    token = oauth.authorization_code(request.validate_callback(callback), validate=False)
    assert isinstance(token, DPoPToken) and token.token_type == "DPoP"
    id_token = jwt.decode(token.id_token.value, options={"verify_signature": False})
    assert id_token["email"] == email and id_token["nonce"] == request.nonce, id_token

    # The library sends `Authorization: DPoP` with a proof carrying ath.
    assert oauth.userinfo(token)["email"] == email
    userinfo = oauth.userinfo_endpoint
    as_bearer = requests.get(userinfo, headers={"Authorization": f"Bearer {token.access_token}"}, timeout=10)
    assert as_bearer.status_code == 401 and as_bearer.headers["WWW-Authenticate"].startswith("DPoP"), as_bearer.text

    # The refresh token is bound to the same key: it rotates with it, and not without it.
    rotated = oauth.refresh_token(token)
    assert isinstance(rotated, DPoPToken) and rotated.refresh_token != token.refresh_token
    stolen = requests.post(oauth.token_endpoint, data={"grant_type": "refresh_token",
                                                       "refresh_token": rotated.refresh_token,
                                                       "client_id": client["client_id"]}, timeout=10)
    assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_dpop_proof", stolen.text
    assert oauth.refresh_token(rotated).token_type == "DPoP", "the refused attempt did not spend it"
