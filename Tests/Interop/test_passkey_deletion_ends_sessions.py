"""Live server: passkey deletion (docs/security-reviews.md, "Deleting a passkey ended nothing it
had signed in"), checked over HTTP from outside against a running `umfa serve`: deleting a passkey
ends what it signed in on the hosted pages.

Before the fix, after the only passkey of a user was deleted, the refresh token still answered
200 at the token endpoint, the access token 200 at userinfo, and the SSO cookie gave a new code
to `prompt=none`. Now each of the four routes that delete a passkey (self-service, unenroll, the
backend's API key, the admin) ends the session, the refresh-token family and the access tokens,
and the audit log says what it ended; a second passkey's session is left alone.

The browser is a `requests.Session` keeping the SSO cookie, doing what the hosted page's script
does, with `umfa authenticator` as the passkey (as in test_oauth_code_flow.py)."""

import base64
import hashlib
import re
import secrets
import urllib.parse
import uuid

import pytest
import requests

from support import ADMIN_TOKEN, Device, VirtualAuthenticator

SCOPE = "openid profile email offline_access"
REDIRECT_URI = "https://rp.example/callback"
DELETIONS = ["self_service", "unenroll", "api_key", "admin"]


class Browser:
    """One browser: its cookie jar holds the SSO session of the issuer."""

    def __init__(self, server, client: dict, device: Device):
        self.server, self.client, self.device = server, client, device
        self.issuer = f"{server.origin}/oidc/{server.app_id}"
        self.http = requests.Session()

    def authorize(self, prompt: str | None = None) -> tuple[requests.Response, str]:
        """GET /authorize with PKCE (and `prompt`); the answer, not followed, and the verifier."""
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        query = {"response_type": "code", "client_id": self.client["client_id"], "redirect_uri": REDIRECT_URI,
                 "scope": SCOPE, "state": secrets.token_urlsafe(8), "nonce": secrets.token_urlsafe(8),
                 "code_challenge": challenge, "code_challenge_method": "S256"}
        if prompt:
            query["prompt"] = prompt
        answer = self.http.get(self.issuer + "/authorize?" + urllib.parse.urlencode(query), allow_redirects=False,
                               timeout=10)
        return answer, verifier

    def sign_in(self, user_id: str) -> tuple[str, str]:
        """The hosted page's passkey sign-in as `user_id`: the code and its verifier."""
        page, verifier = self.authorize()
        assert page.status_code == 200, (page.status_code, page.text[:300])
        interaction = re.search(r'name="umfa-interaction" content="([^"]*)"', page.text).group(1)
        options = self.post("sign-in/options", {"interaction": interaction, "login": user_id})
        credential = self.device.authenticator.get(options["publicKey"], origin=self.server.origin, uv=True)
        step = self.post("sign-in/verify", {"interaction": interaction, "credential": credential.data})
        assert step["next"] == "redirect", step
        assert "umfa_sso" in self.http.cookies.get_dict(), "the sign-in set the SSO cookie"
        return code_of(step["redirect_to"]), verifier

    def post(self, route: str, body: dict) -> dict:
        answer = self.http.post(f"{self.issuer}/interaction/{route}", json=body, timeout=10)
        assert answer.status_code == 200, (route, answer.status_code, answer.text)
        return answer.json()

    def silent(self) -> dict:
        """`prompt=none` with the SSO cookie: the parameters of the redirect back to the client."""
        answer, _ = self.authorize(prompt="none")
        assert answer.status_code == 303, (answer.status_code, answer.text[:300])
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer.headers["Location"]).query))


def code_of(location: str) -> str:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))["code"]


class Client:
    """The confidential, first-party code client at the token, userinfo and introspection endpoints."""

    def __init__(self, server, registered: dict):
        self.issuer = f"{server.origin}/oidc/{server.app_id}"
        self.auth = (registered["client_id"], registered["client_secret"])

    def token(self, form: dict) -> requests.Response:
        return requests.post(self.issuer + "/token", data=form, auth=self.auth, timeout=10)

    def redeem(self, code: str, verifier: str) -> dict:
        answer = self.token({"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI,
                             "code_verifier": verifier})
        assert answer.status_code == 200, answer.text
        return answer.json()

    def refresh(self, refresh_token: str) -> requests.Response:
        return self.token({"grant_type": "refresh_token", "refresh_token": refresh_token})

    def userinfo(self, access_token: str) -> requests.Response:
        return requests.get(self.issuer + "/userinfo", headers={"Authorization": f"Bearer {access_token}"},
                            timeout=10)

    def active(self, token: str) -> bool:
        answer = requests.post(self.issuer + "/introspect", data={"token": token}, auth=self.auth, timeout=10)
        assert answer.status_code == 200, answer.text
        return answer.json()["active"]


@pytest.fixture
def registered_client(server) -> dict:
    return server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                     {"client_name": "Shop", "redirect_uris": [REDIRECT_URI],
                      "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                      "token_endpoint_auth_method": "client_secret_basic", "scope": SCOPE, "first_party": True},
                     bearer=ADMIN_TOKEN, status=201)


def signed_in(client: Client, browser: Browser, user_id: str) -> dict:
    code, verifier = browser.sign_in(user_id)
    tokens = client.redeem(code, verifier)
    assert tokens["refresh_token"].startswith("umfa_rt_")
    return tokens


def delete(server, how: str, device: Device, user_id: str, credential_id: str) -> None:
    if how == "self_service":
        token = device.login(user_id)["token"]
        answer = server.request("DELETE", f"/api/umfa/me/credentials/{credential_id}?confirm_last=true", bearer=token)
    elif how == "unenroll":
        proof = device.assertion(user_id)
        answer = server.post("/api/umfa/unenroll",
                             {"application_id": server.app_id, "user_id": user_id, "credential": proof.data})
    elif how == "api_key":
        answer = server.request(
            "DELETE", f"/api/umfa/users/{user_id}/credentials/{credential_id}?application_id={server.app_id}",
            bearer=server.api_key)
    else:
        answer = server.request(
            "DELETE", f"/api/admin/applications/{server.app_id}/users/{user_id}/credentials/{credential_id}",
            bearer=ADMIN_TOKEN)
    assert answer.status_code == 200, (how, answer.status_code, answer.text)


def assert_alive(client: Client, browser: Browser, tokens: dict) -> None:
    assert client.userinfo(tokens["access_token"]).status_code == 200
    assert client.active(tokens["access_token"]) and client.active(tokens["refresh_token"])
    assert "code" in browser.silent(), "the SSO session answers prompt=none with a code"


def assert_ended(client: Client, browser: Browser, tokens: dict) -> None:
    refreshed = client.refresh(tokens["refresh_token"])
    assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant", refreshed.text
    info = client.userinfo(tokens["access_token"])
    assert info.status_code == 401, info.text
    assert 'error="invalid_token"' in info.headers["WWW-Authenticate"]
    assert not client.active(tokens["access_token"]) and not client.active(tokens["refresh_token"])
    silent = browser.silent()
    assert silent.get("error") == "login_required" and "code" not in silent, silent


def revocations(server) -> list[dict]:
    return server.ok("GET", f"/api/admin/audit-events?application_id={server.app_id}&action=sessions.revoked",
                     bearer=ADMIN_TOKEN)["events"]


@pytest.mark.parametrize("how", DELETIONS)
def test_deleting_the_only_passkey_ends_refresh_userinfo_and_the_sso_session(server, device, registered_client, how):
    client = Client(server, registered_client)
    user_id = f"alice-{uuid.uuid4().hex[:8]}"
    credential_id = device.register(user_id, uv=True)["credential_id"]
    browser = Browser(server, registered_client, device)
    tokens = signed_in(client, browser, user_id)
    assert_alive(client, browser, tokens)

    delete(server, how, device, user_id, credential_id)

    assert_ended(client, browser, tokens)
    [event] = revocations(server)
    assert event["credential_id"] == credential_id and event["user_id"] == user_id, event
    assert event["details"]["via"] == how and event["details"]["reason"] == "credential_deleted", event
    assert event["details"]["sessions"] == 1 and event["details"]["refresh_families"] == 1, event


def test_another_passkeys_session_and_tokens_keep_working(server, authenticator, registered_client, umfa,
                                                         write_json, tmp_path):
    client = Client(server, registered_client)
    user_id = f"bob-{uuid.uuid4().hex[:8]}"
    laptop = Device(server, authenticator, server.app_id)
    phone = Device(server, VirtualAuthenticator(umfa, write_json, tmp_path / "phone"), server.app_id)
    lost = laptop.register(user_id, uv=True)["credential_id"]
    # A second passkey needs a fresh login token of the user (enrollment policy `open`, docs/contract.md §2).
    phone.register(user_id, uv=True, token=laptop.login(user_id)["token"])
    laptop_browser, phone_browser = Browser(server, registered_client, laptop), Browser(server, registered_client, phone)
    ending = signed_in(client, laptop_browser, user_id)
    staying = signed_in(client, phone_browser, user_id)

    delete(server, "api_key", laptop, user_id, lost)

    assert_ended(client, laptop_browser, ending)
    assert_alive(client, phone_browser, staying)
    rotated = client.refresh(staying["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    [event] = revocations(server)
    assert event["details"]["sessions"] == 1 and event["details"]["refresh_families"] == 1, event
