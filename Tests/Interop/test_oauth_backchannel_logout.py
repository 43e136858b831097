"""OpenID Connect Back-Channel Logout 1.0 (docs/contract.md §5, docs/web-app.md): clients that
registered a backchannel_logout_uri get a logout token when a session they took part in ends.
The sign-in runs through the API-driven flow with the Python client written from the docs
(api_flow_client.py); the receivers are HTTP servers of this test; PyJWT checks each logout
token against the issuer's JWKS as a relying party must (§2.6): typ logout+jwt, iss, aud, iat,
exp, jti, the back-channel logout event, sub and sid, and never a nonce. A client that fails or
hangs delays neither the person nor the other clients, and is tried again. Nothing here
depends on the machine's speed: waits are generous and only bound how long a failure takes."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
import requests

from api_flow_client import (FLOW_SCOPE, REDIRECT_URI, SIGN_IN_SCOPE, FlowClient, SoftwareAuthenticator,
                             expect_step, new_email, profile)
from support import ADMIN_TOKEN

EVENT = "http://schemas.openid.net/event/backchannel-logout"


class Receivers:
    """One HTTP server with the clients' endpoints: /ok answers 200, /fail 500, /slow and /slow2
    hold the request until the test releases it. Every POST is recorded with its path, query and
    logout_token."""

    def __init__(self):
        self.calls: list[dict] = []
        self.release = threading.Event()
        receivers = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                form = parse_qs(self.rfile.read(length).decode())
                url = urlsplit(self.path)
                receivers.calls.append({"path": url.path, "query": url.query, "at": time.monotonic(),
                                        "content_type": self.headers.get("Content-Type"),
                                        "token": form.get("logout_token", [""])[0]})
                if url.path.startswith("/slow"):
                    receivers.release.wait(60)
                self.send_response(500 if url.path == "/fail" else 200)
                self.send_header("Cache-Control", "no-store")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.http.server_address[1]}"

    def wait(self, path: str, count: int = 1, seconds: float = 60) -> list[dict]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            seen = [c for c in self.calls if c["path"] == path]
            if len(seen) >= count:
                return seen
            time.sleep(0.1)
        raise AssertionError(f"{path}: {len(seen)} of {count} logout tokens in {seconds} s: {self.calls}")


@pytest.fixture
def receivers():
    receivers = Receivers()
    yield receivers
    receivers.release.set()
    receivers.http.shutdown()


def client_for(server, name: str, logout_uri: str | None) -> dict:
    body = {"client_name": name, "redirect_uris": [REDIRECT_URI],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": "none", "scope": f"{SIGN_IN_SCOPE} {FLOW_SCOPE}", "first_party": True}
    if logout_uri is not None:
        body["backchannel_logout_uri"] = logout_uri
        body["backchannel_logout_session_required"] = True
    return server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients", body,
                     bearer=ADMIN_TOKEN, status=201)


def sign_in(server, client: dict, passkey: SoftwareAuthenticator, email: str, new: bool = False) -> dict:
    """A sign-up (`new`) or a sign-in with the passkey through the API-driven flow: the ID token's claims."""
    flow = FlowClient(server, client, passkey)
    answer = {"create-account": profile(email)} if new else {"passkey-sign-in": {"username": email}}
    return flow.redeem(flow.drive(expect_step(flow.start()), answer))


def logout_claims(server, token: str, client: dict) -> dict:
    """The logout token validated as an RP does (Back-Channel Logout 1.0 §2.6)."""
    issuer = f"{server.origin}/oidc/{server.app_id}"
    header = jwt.get_unverified_header(token)
    assert header["typ"] == "logout+jwt", header
    key = jwt.PyJWKClient(issuer + "/jwks").get_signing_key_from_jwt(token)
    claims = jwt.decode(token, key.key, algorithms=["RS256", "ES256", "EdDSA"], audience=client["client_id"],
                        issuer=issuer, options={"require": ["iss", "aud", "iat", "exp", "jti", "events"]})
    assert claims["events"] == {EVENT: {}} and "nonce" not in claims, claims
    assert claims["exp"] - claims["iat"] <= 120, claims
    return claims


def test_deleting_the_passkey_sends_each_participating_client_a_logout_token(server, receivers):
    ok = client_for(server, "Shop", receivers.base + "/ok?logout=backchannel")
    failing = client_for(server, "Broken RP", receivers.base + "/fail")
    slow = client_for(server, "Hanging RP", receivers.base + "/slow")
    slower = client_for(server, "Another hanging RP", receivers.base + "/slow2")
    silent = client_for(server, "No logout URI", None)
    passkey = SoftwareAuthenticator(server.origin)
    email = new_email("bcl")
    signed_up = sign_in(server, ok, passkey, email, new=True)
    user_id = signed_up["sub"]
    sessions = {"ok": signed_up["sid"]}
    for name, client in (("fail", failing), ("slow", slow), ("slow2", slower), ("silent", silent)):
        claims = sign_in(server, client, passkey, email)
        assert claims["sub"] == user_id
        sessions[name] = claims["sid"]
    assert not receivers.calls, receivers.calls

    credentials = server.ok("GET", f"/api/umfa/users/{user_id}/credentials?application_id={server.app_id}",
                            bearer=server.api_key)["credentials"]
    removed = server.request(
        "DELETE", f"/api/umfa/users/{user_id}/credentials/{credentials[0]['credential_id']}"
                  f"?application_id={server.app_id}&confirm_last=true", bearer=server.api_key)
    assert removed.status_code == 200, removed.text

    # Each client is called beside the others, never after another's delivery ended: the two
    # hanging clients both get their token before either one's 5 s deadline could have passed
    # (one after the other, the second would come 5 s after the first at the earliest).
    [call] = receivers.wait("/ok")
    [held], [held2] = receivers.wait("/slow"), receivers.wait("/slow2")
    assert abs(held["at"] - held2["at"]) < 5, (held["at"], held2["at"])
    assert call["query"] == "logout=backchannel" and call["content_type"] == "application/x-www-form-urlencoded"
    claims = logout_claims(server, call["token"], ok)
    assert claims["sub"] == user_id and claims["sid"] == sessions["ok"]
    assert logout_claims(server, held["token"], slow)["sid"] == sessions["slow"]
    assert logout_claims(server, held2["token"], slower)["sid"] == sessions["slow2"]

    # The failing client is tried again with the same jti; the one without a URI gets nothing,
    # and nothing is sent twice to the one that answered.
    attempts = receivers.wait("/fail", count=2)
    first, second = (logout_claims(server, a["token"], failing) for a in attempts[:2])
    assert first["jti"] == second["jti"] and first["sid"] == sessions["fail"]
    assert len([c for c in receivers.calls if c["path"] == "/ok"]) == 1

    # The operator sees the outbox: the delivered tokens and the failing client's retry.
    text = requests.get(server.base + "/metrics", timeout=10).text

    def deliveries(outcome: str) -> float:
        name = f'umfa_logout_token_deliveries_total{{outcome="{outcome}"}}'
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name))

    assert deliveries("delivered") >= 1 and deliveries("retried") >= 1, text[-2000:]


def test_a_replayed_or_misaddressed_logout_token_is_what_an_rp_must_refuse(server, receivers):
    """The checks an RP makes (docs/web-app.md): a token for another client fails PyJWT's audience
    check, and one seen before carries the same jti."""
    ok = client_for(server, "Shop", receivers.base + "/ok")
    other = client_for(server, "Other", None)
    passkey = SoftwareAuthenticator(server.origin)
    user_id = sign_in(server, ok, passkey, new_email("bcl-replay"), new=True)["sub"]
    deleted = server.request("DELETE", f"/api/umfa/users/{user_id}?application_id={server.app_id}",
                             bearer=server.api_key)
    assert deleted.status_code == 204, deleted.text
    [call] = receivers.wait("/ok")
    claims = logout_claims(server, call["token"], ok)
    assert claims["sub"] == user_id
    with pytest.raises(jwt.InvalidAudienceError):
        logout_claims(server, call["token"], other)
