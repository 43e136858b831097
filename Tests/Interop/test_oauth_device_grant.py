"""The device authorization grant (RFC 8628, docs/device-grant.md) with clients nobody here wrote:
requests-oauth2client discovers the device endpoint, asks for codes and polls; the person's side
runs as the hosted device page runs it (the virtual authenticator signs in, /device/decision
answers); PyJWT validates the ID token with the issuer's JWKS. `umfa oauth device` is driven the
same way from the shell, reading the code from its standard error."""

import json
import re
import subprocess

import jwt
import requests
from requests_oauth2client import AccessDenied, DeviceAuthorizationPollingJob, OAuth2Client, PublicApp

from support import ADMIN_TOKEN

GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def device_client(server) -> dict:
    return server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                     {"client_name": "Living-room TV", "grant_types": [GRANT, "refresh_token"],
                      "response_types": [], "token_endpoint_auth_method": "none",
                      "scope": "openid profile offline_access"},
                     bearer=ADMIN_TOKEN, status=201)


def client_of(server, client: dict) -> OAuth2Client:
    """requests-oauth2client from the issuer's discovery document. Its discovery reader (1.8) does not
    take device_authorization_endpoint itself, so the document's value is handed on."""
    issuer = f"{server.origin}/oidc/{server.app_id}"
    document = requests.get(issuer + "/.well-known/openid-configuration", timeout=15).json()
    assert document["device_authorization_endpoint"] == issuer + "/device_authorization"
    assert GRANT in document["grant_types_supported"]
    return OAuth2Client.from_discovery_document(
        document, issuer=issuer, testing=True, auth=PublicApp(client["client_id"]),
        device_authorization_endpoint=document["device_authorization_endpoint"])


def answer(server, device, user_code: str, allow: bool, user: str = "tv.owner") -> dict:
    """What the hosted device page does: look the code up, sign in with a passkey, decide."""
    base = f"/oidc/{server.app_id}/device"
    shown = server.ok("POST", base + "/code", {"user_code": user_code.lower().replace("-", "")})
    assert shown["client_name"] == "Living-room TV", shown
    token = device.login(user)["token"]
    return server.ok("POST", base + "/decision", {"user_code": user_code, "allow": allow}, bearer=token)


def test_requests_oauth2client_polls_until_the_person_approves(server, device):
    client = device_client(server)
    issuer = f"{server.origin}/oidc/{server.app_id}"
    oauth = client_of(server, client)
    assert oauth.device_authorization_endpoint == issuer + "/device_authorization"
    started = oauth.authorize_device(scope="openid profile")
    assert re.fullmatch(r"[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}", started.user_code)
    assert started.verification_uri_complete == f"{started.verification_uri}?user_code={started.user_code}"

    device.register("tv.owner")
    assert answer(server, device, started.user_code, allow=True)["decision"] == "approved"
    token = DeviceAuthorizationPollingJob(oauth, started)()
    assert token is not None and token.scope == "openid profile"
    key = jwt.PyJWKClient(issuer + "/jwks").get_signing_key_from_jwt(token.id_token.value)
    claims = jwt.decode(token.id_token.value, key.key, algorithms=["RS256", "ES256", "EdDSA"],
                        audience=client["client_id"], issuer=issuer)
    assert claims["sub"] == "tv.owner" and "nonce" not in claims
    # The refresh token works like any other.
    assert oauth.refresh_token(token.refresh_token).access_token


def test_a_denial_reaches_the_client_as_access_denied(server, device):
    client = device_client(server)
    issuer = f"{server.origin}/oidc/{server.app_id}"
    oauth = client_of(server, client)
    started = oauth.authorize_device()
    device.register("tv.owner")
    assert answer(server, device, started.user_code, allow=False)["decision"] == "denied"
    try:
        DeviceAuthorizationPollingJob(oauth, started)()
        raise AssertionError("the poll after a denial must fail")
    except AccessDenied:
        pass


def test_umfa_oauth_device_prints_the_code_and_then_the_tokens(umfa, server, device):
    client = device_client(server)
    issuer = f"{server.origin}/oidc/{server.app_id}"
    process = subprocess.Popen(
        [str(umfa.binary), "oauth", "device", "--issuer", issuer, "--client-id", client["client_id"],
         "--scope", "openid profile"],
        cwd=umfa.cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = process.stderr.readline()
        match = re.search(r"enter the code ([A-Z]{4}-[A-Z]{4})", first)
        assert match, first
        assert f"{issuer}/device?user_code={match.group(1)}" in process.stderr.readline()
        device.register("tv.owner")
        answer(server, device, match.group(1), allow=True)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err
    printed = json.loads(out)
    assert printed["token_type"] == "Bearer" and printed["scope"] == "openid profile"
    key = jwt.PyJWKClient(issuer + "/jwks").get_signing_key_from_jwt(printed["id_token"])
    assert jwt.decode(printed["id_token"], key.key, algorithms=["RS256", "ES256", "EdDSA"],
                      audience=client["client_id"], issuer=issuer)["sub"] == "tv.owner"
