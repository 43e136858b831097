"""`umfa oauth signup / login / refresh / revoke` (docs/contract.md §9) end to end: the command-line
tool runs the SDK's passkey account client through the API-driven flow (§6) against a live
server, from a fresh device directory; PyJWT validates the ID token it prints with the issuer's
JWKS, and the refresh token works only with the device directory's DPoP key."""

import uuid

import jwt
import pytest

from support import ADMIN_TOKEN

PIN = "4719\n"
SCOPE = "openid profile email offline_access"


@pytest.fixture
def client(server) -> dict:
    return server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                     {"client_name": "Shell", "redirect_uris": ["http://127.0.0.1/callback"],
                      "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                      "token_endpoint_auth_method": "none", "scope": f"{SCOPE} urn:umfa:api-flow",
                      "first_party": True},
                     bearer=ADMIN_TOKEN, status=201)


def oauth(umfa, command: str, server, client: dict, device, *extra, pin: str | None = PIN):
    issuer = f"{server.origin}/oidc/{server.app_id}"
    args = ["oauth", command, "--issuer", issuer, "--client-id", client["client_id"], "--device-dir", device, *extra]
    if pin is not None and command in ("signup", "login"):
        args.append("--pin-stdin")
    return umfa.run(*args, input=pin)


def validated(server, client: dict, printed: dict) -> dict:
    """The ID token's claims as PyJWT validates them with the issuer's published keys."""
    issuer = f"{server.origin}/oidc/{server.app_id}"
    metadata = server.get(f"/oidc/{server.app_id}/.well-known/openid-configuration").json()
    key = jwt.PyJWKClient(metadata["jwks_uri"]).get_signing_key_from_jwt(printed["id_token"])
    return jwt.decode(printed["id_token"], key.key, algorithms=["RS256", "ES256", "EdDSA"],
                      audience=client["client_id"], issuer=issuer)


def test_signup_then_login_refresh_and_revoke_from_the_shell(umfa, server, client, tmp_path):
    device = tmp_path / "fresh-device"
    email = f"ada.{uuid.uuid4().hex[:8]}@example.com"
    signed_up = oauth(umfa, "signup", server, client, device, "--email", email, "--given-name", "Ada",
                      "--family-name", "Lovelace")
    assert signed_up.code == 0, signed_up
    printed = signed_up.json()
    assert {"access_token", "id_token", "refresh_token", "token_type", "expires_in", "scope", "claims"} <= set(printed)
    assert printed["token_type"] == "DPoP"
    claims = validated(server, client, printed)
    assert claims == {**printed["claims"], **claims} and claims["email"] == email and claims["given_name"] == "Ada"
    assert PIN.strip() not in signed_up.stderr

    logged_in = oauth(umfa, "login", server, client, device, "--email", email)
    assert logged_in.code == 0, logged_in
    assert validated(server, client, logged_in.json())["sub"] == claims["sub"]
    discoverable = oauth(umfa, "login", server, client, device)
    assert discoverable.code == 0, discoverable
    assert discoverable.json()["claims"]["sub"] == claims["sub"]

    # The wrong PIN, and a device without the passkey, are refused with a message and exit 1.
    wrong = oauth(umfa, "login", server, client, device, "--email", email, pin="0000\n")
    assert wrong.code == 1 and wrong.stderr.strip(), wrong
    elsewhere = oauth(umfa, "login", server, client, tmp_path / "other-device", "--email", email)
    assert elsewhere.code == 1 and elsewhere.stderr.strip(), elsewhere

    # Refresh with the device's DPoP key (the token from standard input); another device's key is refused.
    refresh_token = logged_in.json()["refresh_token"]
    stolen = umfa.run("oauth", "refresh", "--issuer", f"{server.origin}/oidc/{server.app_id}", "--client-id",
                      client["client_id"], "--device-dir", tmp_path / "other-device", "--token", "-",
                      input=refresh_token + "\n")
    assert stolen.code == 1, stolen
    refreshed = oauth(umfa, "refresh", server, client, device, "--token", refresh_token)
    assert refreshed.code == 0, refreshed
    new_refresh = refreshed.json()["refresh_token"]
    assert new_refresh != refresh_token and refreshed.json()["token_type"] == "DPoP"

    revoked = oauth(umfa, "revoke", server, client, device, "--token", new_refresh)
    assert revoked.code == 0 and revoked.json() == {"revoked": True}, revoked
    after = oauth(umfa, "refresh", server, client, device, "--token", new_refresh)
    assert after.code == 1 and "invalid_grant" in after.stderr, after


def test_signup_needs_an_email_and_a_valid_issuer(umfa, server, client, tmp_path):
    missing = oauth(umfa, "signup", server, client, tmp_path / "d")
    assert missing.code != 0 and "--email" in missing.stderr, missing
    bad = umfa.run("oauth", "login", "--issuer", "http://127.0.0.1:9/not-an-issuer", "--client-id", "x",
                   "--device-dir", tmp_path / "d")
    assert bad.code != 0 and "--issuer" in bad.stderr, bad
    unreachable = umfa.run("oauth", "login", "--issuer", f"http://127.0.0.1:9/oidc/{uuid.uuid4()}", "--client-id",
                           "x", "--device-dir", tmp_path / "d")
    assert unreachable.code == 1 and unreachable.stderr.strip(), unreachable
