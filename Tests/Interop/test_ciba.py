"""OpenID CIBA Core 1.0 with signed decisions (docs/ciba.md), driven by clients nobody here wrote:
requests-oauth2client sends the backchannel authentication request and polls the token endpoint,
in poll mode and in ping mode (a notification receiver the test runs); `umfa approvals` answers as
the phone; PyJWT checks the tokens against the issuer's JWKS. A relay between the phone and the
server that flips a denial into an approval, or changes the typed number, gets the transaction
failed, never approved."""

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
import pytest
import requests
from requests_oauth2client import (AccessDenied, BackChannelAuthenticationPollingJob, ClientSecretBasic,
                                   OAuth2Client)

from support import ADMIN_TOKEN, free_port

PIN = "482916"
GRANT = "urn:openid:params:grant-type:ciba"
PAYMENT = [{"type": "payment_initiation", "creditorName": "Shop",
            "instructedAmount": {"currency": "EUR", "amount": "42.00"}}]


class PingReceiver:
    """The client's notification endpoint on loopback: records each ping and answers 204."""

    def __init__(self):
        self.port = free_port()
        self.lock = threading.Lock()
        self.pings: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (the http.server name)
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                with receiver.lock:
                    receiver.pings.append({"authorization": self.headers["Authorization"], "body": body,
                                           "content_type": self.headers["Content-Type"], "path": self.path})
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/ciba/notify"

    def wait_for(self, count: int, timeout: float = 30) -> list[dict]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.pings) >= count:
                    return list(self.pings)
            time.sleep(0.1)
        raise AssertionError(f"{count} pings within {timeout} s: {self.pings}")

    def close(self):
        self.http.shutdown()


class Relay:
    """A man in the middle between the phone and the server: forwards every request, rewrites the
    body of dispatch/complete with `tamper` (a decision flipped, a number changed) and the answer
    of dispatch/redeem with `tamper_answer`."""

    def __init__(self, upstream: str, tamper=lambda body: body, tamper_answer=lambda body: body):
        self.port = free_port()
        self.tampered: list[dict] = []
        relay = self

        class Handler(BaseHTTPRequestHandler):
            def forward(self, method: str):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if self.path.endswith("/dispatch/complete"):
                    sent = json.loads(body)
                    changed = tamper(dict(sent))
                    relay.tampered.append({"sent": sent, "forwarded": changed})
                    body = json.dumps(changed).encode()
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                answer = requests.request(method, upstream + self.path, data=body or None, headers=headers,
                                          timeout=30)
                content = answer.content
                if self.path.endswith("/dispatch/redeem") and answer.status_code == 200:
                    content = json.dumps(tamper_answer(answer.json())).encode()
                self.send_response(answer.status_code)
                for name, value in answer.headers.items():
                    if name.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            def do_POST(self):  # noqa: N802
                self.forward("POST")

            def do_GET(self):  # noqa: N802
                self.forward("GET")

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def link(self, app_link: str) -> str:
        """The app link, pointed at the relay instead of the server."""
        prefix, value = app_link.split("dispatchTokenResponse=", 1)
        payload = json.loads(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
        payload["server"] = f"http://127.0.0.1:{self.port}"
        encoded = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")
        return f"http://127.0.0.1:{self.port}/open?dispatchTokenResponse={encoded}"

    def close(self):
        self.http.shutdown()


def bank(server, umfa, tmp_path) -> tuple[dict, list]:
    """An application that declares payment_initiation, with erin enrolled on a phone (a device
    key included); the application and the phone's arguments for `umfa approvals`."""
    app = server.ok("POST", "/api/admin/applications",
                    {"name": "Bank", "rp_id": "localhost", "origins": [server.origin], "enrollment_policy": "grant"},
                    status=201, bearer=ADMIN_TOKEN)
    server.ok("PATCH", f"/api/admin/applications/{app['application_id']}",
              {"authorization_details_types": ["payment_initiation"]}, bearer=ADMIN_TOKEN)
    phone = tmp_path / "phone"
    started = server.ok("POST", "/api/umfa/users/enroll", {"application_id": app["application_id"], "user_id": "erin"},
                        bearer=app["api_key"])
    enrolled = umfa.run_env({}, "enroll", "--app-link", started["enrollment"]["appLinkUri"], "--device-dir", phone,
                            "--pin-stdin", "--device-name", "Phone", input=PIN + "\n")
    assert enrolled.code == 0, enrolled
    public = server.base.replace("127.0.0.1", "localhost")
    return app, ["--server", public, "--app", app["application_id"], "--user", "erin", "--device-dir", phone]


def ciba_client(server, app_id: str, mode: str, endpoint: str | None = None) -> dict:
    body = {"client_name": "Bank back office", "grant_types": [GRANT], "response_types": [],
            "token_endpoint_auth_method": "client_secret_basic", "scope": "openid profile",
            "backchannel_token_delivery_mode": mode}
    if endpoint:
        body["backchannel_client_notification_endpoint"] = endpoint
    return server.ok("POST", f"/api/admin/applications/{app_id}/oauth-clients", body, bearer=ADMIN_TOKEN, status=201)


def oauth_client(server, app_id: str, client: dict) -> tuple[OAuth2Client, str]:
    issuer = f"{server.origin}/oidc/{app_id}"
    document = requests.get(issuer + "/.well-known/openid-configuration", timeout=15).json()
    assert document["backchannel_authentication_endpoint"] == issuer + "/bc-authorize"
    assert document["backchannel_token_delivery_modes_supported"] == ["poll", "ping"]
    assert document["authorization_details_types_supported"] == ["payment_initiation"]
    assert GRANT in document["grant_types_supported"]
    # Its discovery reader (1.8) does not take backchannel_authentication_endpoint itself: handed on.
    oauth = OAuth2Client.from_discovery_document(
        document, issuer=issuer, testing=True, auth=ClientSecretBasic(client["client_id"], client["client_secret"]),
        backchannel_authentication_endpoint=document["backchannel_authentication_endpoint"])
    assert oauth.backchannel_authentication_endpoint == issuer + "/bc-authorize"
    return oauth, issuer


def phone_answers(umfa, device_args: list, verb: str) -> dict:
    """The phone lists its pending approval and answers it; the entry it listed."""
    listed = umfa.run_env({}, "approvals", "list", *device_args)
    assert listed.code == 0, listed
    [entry] = listed.json()["approvals"]
    answered = umfa.run_env({}, "approvals", verb, "--app-link", entry["app_link"], "--device-dir", device_args[-1],
                            "--pin-stdin", input=PIN + "\n")
    assert answered.code == 0, answered
    assert answered.json()["status"] == ("succeeded" if verb == "approve" else "denied"), answered
    return entry


def verified(token: str, issuer: str, audience: str | None = None) -> dict:
    key = jwt.PyJWKClient(issuer + "/jwks").get_signing_key_from_jwt(token)
    return jwt.decode(token, key.key, algorithms=["RS256", "ES256", "EdDSA"], issuer=issuer, audience=audience,
                      options={"verify_aud": audience is not None})


@pytest.mark.parametrize("mode", ["poll", "ping"])
def test_ciba_tokens_after_approval_and_access_denied_after_denial(server, umfa, tmp_path, mode):
    app, device_args = bank(server, umfa, tmp_path)
    receiver = PingReceiver() if mode == "ping" else None
    try:
        client = ciba_client(server, app["application_id"], mode, receiver.url if receiver else None)
        oauth, issuer = oauth_client(server, app["application_id"], client)
        extra = {"client_notification_token": "notify-" + "x" * 40} if receiver else {}

        # Approved: the phone shows the binding message and the payment's canonical text.
        asked = oauth.backchannel_authentication_request(
            scope="openid profile", login_hint="erin", binding_message="Pay 42 EUR to Shop",
            authorization_details=json.dumps(PAYMENT), **extra)
        assert asked.expires_in == 300 and asked.interval == 5
        entry = phone_answers(umfa, device_args, "approve")
        # Who asks and for what (written by the server), the binding message, the details' text.
        assert entry["message"].startswith("Bank back office asks for: openid, profile\nPay 42 EUR to Shop\n\n"
                                           'type: "payment_initiation"\n'), entry
        assert 'instructedAmount.amount: "42.00"' in entry["message"], entry
        if receiver:
            [ping] = receiver.wait_for(1)
            assert ping["authorization"] == "Bearer " + extra["client_notification_token"], ping
            assert json.loads(ping["body"]) == {"auth_req_id": asked.auth_req_id}, ping
            assert ping["content_type"] == "application/json" and ping["path"] == "/ciba/notify"
        token = BackChannelAuthenticationPollingJob(oauth, asked)()
        assert token is not None
        assert token.kwargs["authorization_details"] == PAYMENT, token
        claims = verified(token.id_token.value, issuer, audience=client["client_id"])
        assert claims["sub"] == "erin" and claims["acr"].startswith("urn:umfa:acr:"), claims
        access = verified(token.access_token, issuer)
        assert access["authorization_details"] == PAYMENT and access["client_id"] == client["client_id"], access
        introspected = requests.post(issuer + "/introspect", data={"token": token.access_token},
                                     auth=(client["client_id"], client["client_secret"]), timeout=15).json()
        assert introspected["active"] and introspected["authorization_details"] == PAYMENT, introspected

        # Denied: access_denied.
        asked = oauth.backchannel_authentication_request(scope="openid", login_hint="erin", **extra)
        phone_answers(umfa, device_args, "deny")
        if receiver:
            pings = receiver.wait_for(2)
            assert json.loads(pings[1]["body"]) == {"auth_req_id": asked.auth_req_id}
        with pytest.raises(AccessDenied):
            BackChannelAuthenticationPollingJob(oauth, asked)()
    finally:
        if receiver:
            receiver.close()


def test_a_relay_that_flips_the_decision_or_the_number_gets_the_transaction_failed(server, umfa, tmp_path):
    app, device_args = bank(server, umfa, tmp_path)
    app_id, api_key = app["application_id"], app["api_key"]
    phone = device_args[-1]

    def flip(body: dict) -> dict:
        body["decision"] = "approve"
        return body

    def renumber(body: dict) -> dict:
        body["matching_number"] = "10" if body.get("matching_number") != "10" else "11"
        return body

    for tamper, verb, number_matching in ((flip, "deny", False), (renumber, "approve", True)):
        relay = Relay(server.base, tamper)
        try:
            asked = server.ok("POST", "/api/umfa/approvals",
                              {"application_id": app_id, "user_id": "erin", "message": "Pay 900 EUR",
                               "number_matching": number_matching}, status=201, bearer=api_key)
            extra = ["--number", asked["matchingNumber"]] if number_matching else []
            answered = umfa.run_env({}, "approvals", verb, "--app-link", relay.link(asked["appLinkUri"]),
                                    "--device-dir", phone, "--origin", server.origin, "--pin-stdin", *extra,
                                    input=PIN + "\n")
            assert relay.tampered, "the relay saw the phone's answer"
            assert answered.code != 0 and "signed" in answered.stderr, answered
            status = server.ok("POST", "/api/umfa/status", {"statusToken": asked["statusToken"]})
            assert status["status"] == "failed" and "token" not in status, status
            # What the passkey signed is kept: the phone's own decision.
            assert status["evidence"]["decision"] == verb, status
        finally:
            relay.close()

    events = server.ok("GET", f"/api/umfa/audit-events?application_id={app_id}&limit=1000", bearer=api_key)["events"]
    failed = [e for e in events if e["action"].startswith("approval.")]
    assert [e["action"] for e in failed] == ["approval.failed", "approval.failed"], failed
    assert {e["details"]["reason"] for e in failed} == {"decision_mismatch"}, failed


def test_the_phone_refuses_authorization_details_that_are_not_the_ones_its_message_shows(server, umfa, tmp_path):
    """A relay that changes the structured details an app may draw, but not the signed text: the
    SDK compares the two before anything is signed."""
    app, device_args = bank(server, umfa, tmp_path)

    def inflate(answer: dict) -> dict:
        answer["authorization_details"][0]["instructedAmount"]["amount"] = "4200.00"
        return answer

    relay = Relay(server.base, tamper_answer=inflate)
    try:
        asked = server.ok("POST", "/api/umfa/approvals",
                          {"application_id": app["application_id"], "user_id": "erin", "message": "Pay Shop",
                           "authorization_details": PAYMENT}, status=201, bearer=app["api_key"])
        answered = umfa.run_env({}, "approvals", "approve", "--app-link", relay.link(asked["appLinkUri"]),
                                "--device-dir", device_args[-1], "--origin", server.origin, "--pin-stdin",
                                input=PIN + "\n")
        assert answered.code != 0 and "not the ones its message shows" in answered.stderr, answered
        assert not relay.tampered, "nothing was signed or sent"
        status = server.ok("POST", "/api/umfa/status", {"statusToken": asked["statusToken"]})
        assert status["status"] == "pending", status
    finally:
        relay.close()
