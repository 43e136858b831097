"""Live server: `/api/umfa/me/credentials` with the OAuth access token an app holds (docs/self-service.md
"Self-service and recovery codes"): a token of the application's issuer granted `umfa:passkeys`
lists, renames and deletes the user's passkeys; DPoP-bound, only with a fresh proof of its key
(RFC 9449 §7, proofs made by requests-oauth2client and by PyJWT). The attacks: a token without
the scope (403 insufficient_scope, RFC 6750 §3.1), another application's token, a bound token
without a proof or as Bearer, a replayed proof, a forged token."""

import uuid

import jwt
import requests
from cryptography.hazmat.primitives.asymmetric import ec
from requests_oauth2client import DPoPToken, OAuth2Client, PublicApp

from api_flow_client import DPoPKey
from support import ADMIN_TOKEN
from test_oauth_code_flow import REDIRECT_URI, Browser

SCOPE = "openid email offline_access umfa:passkeys"


def public_client(server, app_id: str, scope: str = SCOPE) -> dict:
    return server.ok("POST", f"/api/admin/applications/{app_id}/oauth-clients",
                     {"client_name": "Phone app", "redirect_uris": [REDIRECT_URI],
                      "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                      "token_endpoint_auth_method": "none", "scope": scope, "first_party": True},
                     bearer=ADMIN_TOKEN, status=201)


def sign_up(server, authenticator, client: dict, scope: str = SCOPE, app_id: str | None = None) -> DPoPToken:
    """A new account of `app_id` (the server's application by default) through the hosted pages;
    the DPoP-bound tokens of its code."""
    issuer = f"{server.origin}/oidc/{app_id or server.app_id}"
    oauth = OAuth2Client.from_discovery_endpoint(
        issuer + "/.well-known/openid-configuration", issuer=issuer, testing=True,
        auth=PublicApp(client["client_id"]), redirect_uri=REDIRECT_URI, dpop_bound_access_tokens=True)
    request = oauth.authorization_request(scope=scope, prompt="create")
    callback = Browser(server, authenticator).create_account(request.uri, f"u-{uuid.uuid4().hex[:8]}@example.com")
    token = oauth.authorization_code(request.validate_callback(callback), validate=False)
    assert isinstance(token, DPoPToken) and token.token_type == "DPoP"
    return token


def once(method: str, url: str, token: DPoPToken) -> tuple[requests.PreparedRequest, requests.Response]:
    """One request with the library's proof, without its hook that reads every DPoP 401 as a
    nonce demand and sends again: the request (to send again) and the answer."""
    prepared = requests.Request(method, url, auth=token).prepare()
    prepared.hooks["response"] = []
    return prepared, requests.Session().send(prepared, timeout=10)


def test_a_bound_token_with_the_scope_manages_passkeys_only_with_a_fresh_proof(server, authenticator):
    token = sign_up(server, authenticator, public_client(server, server.app_id))
    claims = jwt.decode(token.access_token, options={"verify_signature": False})
    issuer = f"{server.origin}/oidc/{server.app_id}"
    assert "umfa:passkeys" in claims["scope"].split() and claims["aud"] == issuer and claims["cnf"]["jkt"]
    listing = f"{server.origin}/api/umfa/me/credentials"

    # requests-oauth2client signs a proof per request (htm, htu, ath).
    listed = requests.get(listing, auth=token, timeout=10)
    assert listed.status_code == 200, listed.text
    [passkey] = listed.json()["credentials"]
    one = f"{listing}/{passkey['credential_id']}"
    renamed = requests.patch(one, json={"name": "Grace's phone"}, auth=token, timeout=10)
    assert renamed.status_code == 200 and renamed.json()["name"] == "Grace's phone", renamed.text

    # A proof sent twice: the second is refused (RFC 9449 §11.1).
    prepared, first = once("GET", listing, token)
    assert first.status_code == 200, first.text
    replayed = requests.Session().send(prepared, timeout=10)
    assert replayed.status_code == 401 and 'error="invalid_dpop_proof"' in replayed.headers["WWW-Authenticate"]
    assert replayed.json()["status"] == 401 and replayed.json()["trace_id"], replayed.text

    # The bound token without a proof, and as a Bearer token.
    for authorization in (f"DPoP {token.access_token}", f"Bearer {token.access_token}"):
        refused = requests.get(listing, headers={"Authorization": authorization}, timeout=10)
        assert refused.status_code == 401, refused.text
        assert refused.headers["WWW-Authenticate"].startswith("DPoP realm=\"umfa\""), refused.headers

    # A proof of another key (PyJWT), and one for another URL.
    stranger = DPoPKey()
    for proof in (stranger.proof("GET", listing, token.access_token),
                  stranger.proof("GET", issuer + "/userinfo", token.access_token)):
        refused = requests.get(listing, headers={"Authorization": f"DPoP {token.access_token}", "DPoP": proof},
                               timeout=10)
        assert refused.status_code == 401 and "invalid_dpop_proof" in refused.headers["WWW-Authenticate"]

    # The last passkey goes only with confirm_last; then the token of its sign-in ends with it.
    assert requests.delete(one, auth=token, timeout=10).status_code == 409
    removed = requests.delete(one + "?confirm_last=true", auth=token, timeout=10)
    assert removed.status_code == 200 and removed.json()["removed"] is True, removed.text
    _, after = once("GET", listing, token)
    assert after.status_code == 401 and 'error="invalid_token"' in after.headers["WWW-Authenticate"]


def test_a_token_without_the_scope_is_403_insufficient_scope(server, authenticator):
    scope = "openid email offline_access"
    token = sign_up(server, authenticator, public_client(server, server.app_id, scope), scope)
    refused = requests.get(f"{server.origin}/api/umfa/me/credentials", auth=token, timeout=10)
    assert refused.status_code == 403, refused.text
    challenge = refused.headers["WWW-Authenticate"]
    assert challenge.startswith('DPoP realm="umfa", error="insufficient_scope", scope="umfa:passkeys"'), challenge
    body = refused.json()
    assert body["status"] == 403 and "umfa:passkeys" in body["message"] and body["trace_id"], body


def test_another_applications_token_and_a_forged_token_reach_nothing_of_this_user(server, authenticator):
    token = sign_up(server, authenticator, public_client(server, server.app_id))
    listing = f"{server.origin}/api/umfa/me/credentials"
    [mine] = requests.get(listing, auth=token, timeout=10).json()["credentials"]

    other = server.ok("POST", "/api/admin/applications",
                      {"name": "Other shop", "rp_id": "localhost", "origins": [server.origin],
                       "enrollment_policy": "open"}, status=201, bearer=ADMIN_TOKEN)
    foreign = sign_up(server, authenticator, public_client(server, other["application_id"]),
                      app_id=other["application_id"])
    theirs = requests.get(listing, auth=foreign, timeout=10)
    assert theirs.status_code == 200
    assert mine["credential_id"] not in [c["credential_id"] for c in theirs.json()["credentials"]]
    stolen = requests.delete(f"{listing}/{mine['credential_id']}?confirm_last=true", auth=foreign, timeout=10)
    assert stolen.status_code == 404, stolen.text

    # The token's claims signed with an attacker's key under the server's kid: refused.
    header = jwt.get_unverified_header(token.access_token)
    claims = jwt.decode(token.access_token, options={"verify_signature": False})
    forged = jwt.encode(claims, ec.generate_private_key(ec.SECP256R1()), algorithm="ES256",
                        headers={"typ": "at+jwt", "kid": header["kid"]})
    refused = requests.get(listing, headers={"Authorization": f"Bearer {forged}"}, timeout=10)
    assert refused.status_code == 401 and 'error="invalid_token"' in refused.headers["WWW-Authenticate"]
    assert requests.get(listing, auth=token, timeout=10).status_code == 200
