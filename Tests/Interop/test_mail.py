"""Mail (docs/operators/mail.md) and email verification (docs/self-service.md), against a real SMTP
server: aiosmtpd on loopback with STARTTLS (a certificate of a CA made here) and AUTH, which UMFA must
use. Each test reads what arrived at the SMTP server with Python's own `email` parser.

- A hosted sign-up with an email gets a six-digit code by mail (once in the message, never in the
  subject); the code verifies the address (userinfo then says `email_verified: true`).
- Guessing: every wrong code spends one of five attempts; after the fifth even the right code is
  refused until a new one is asked for; asking again within a minute is 429.
- Without STARTTLS on a server that is required to offer it, or offered nowhere while a password is
  set, UMFA sends no password and no message; it retries, and the message goes once TLS is there.
- A message queued while the mail server is down survives a restart of UMFA and arrives later.
- Without UMFA_SMTP_URL the email routes answer 409 saying mail is off."""

import email
import email.policy
import re
import threading
import time
import uuid
from pathlib import Path

import pytest
import requests
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from requests_oauth2client import ClientSecretBasic, OAuth2Client

from support import ADMIN_TOKEN, Device, VirtualAuthenticator, free_port
from test_oauth_code_flow import Browser
from tls_support import make_pki

USER, PASSWORD = "umfa-mailer", "s3cret-mail-password"
SCOPE = "openid email offline_access umfa:account"
REDIRECT_URI = "https://rp.example/callback"
SENDER = "Shop <no-reply@shop.example>"


class MailServer:
    """aiosmtpd on loopback: STARTTLS (when given a certificate), AUTH required over TLS only;
    `messages` holds what it accepted, `logins` every AUTH it was offered."""

    def __init__(self, pki=None, port: int | None = None):
        self.port = port or free_port()
        self.messages: list[email.message.EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self.logins: list[tuple[bytes, bytes]] = []
        self.lock = threading.Lock()
        tls = None
        if pki is not None:
            import ssl
            tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            tls.load_cert_chain(str(pki.server_cert), str(pki.server_key))
        outer = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
                message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
                with outer.lock:
                    outer.messages.append(message)
                    outer.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
                return "250 OK"

        def authenticator(server, session, envelope, mechanism, auth_data):
            if isinstance(auth_data, LoginPassword):
                with outer.lock:
                    outer.logins.append((auth_data.login, auth_data.password))
                return AuthResult(success=auth_data.login == USER.encode() and auth_data.password == PASSWORD.encode())
            return AuthResult(success=False)

        self.controller = Controller(
            Handler(), hostname="127.0.0.1", port=self.port, tls_context=tls, require_starttls=tls is not None,
            authenticator=authenticator, auth_required=True, auth_require_tls=tls is not None,
            server_hostname="localhost", ready_timeout=10)
        self.controller.start()

    def stop(self):
        self.controller.stop()

    def wait(self, count: int, timeout: float = 30) -> list[email.message.EmailMessage]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.messages) >= count:
                    return list(self.messages)
            time.sleep(0.1)
        raise AssertionError(f"{count} message(s) did not arrive within {timeout} s: {len(self.messages)} did")


def mail_env(port: int, ca: Path | None, required: bool = True) -> dict:
    query = []
    if required:
        query.append("starttls=required")
    if ca is not None:
        query.append(f"ca_file={ca}")
    return {"UMFA_SMTP_URL": f"smtp://localhost:{port}" + ("?" + "&".join(query) if query else ""),
            "UMFA_SMTP_USERNAME": USER, "UMFA_SMTP_PASSWORD": PASSWORD, "UMFA_MAIL_FROM": SENDER}


def code_of(message) -> str:
    codes = re.findall(r"\b\d{6}\b", message.get_content())
    assert len(codes) == 1, message.get_content()
    return codes[0]


def metric(server, name: str) -> float:
    text = requests.get(server.base + "/metrics", timeout=10).text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name))


@pytest.fixture
def pki(tmp_path):
    return make_pki(tmp_path)


def oauth_client(server) -> OAuth2Client:
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Shop", "redirect_uris": [REDIRECT_URI],
                        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                        "token_endpoint_auth_method": "client_secret_basic", "scope": SCOPE, "first_party": True},
                       bearer=ADMIN_TOKEN, status=201)
    issuer = f"{server.origin}/oidc/{server.app_id}"
    return OAuth2Client.from_discovery_endpoint(
        issuer + "/.well-known/openid-configuration", issuer=issuer, testing=True,
        auth=ClientSecretBasic(client["client_id"], client["client_secret"]), redirect_uri=REDIRECT_URI)


def sign_up(server, authenticator, oauth: OAuth2Client, address: str):
    """A hosted sign-up with `address`: the token endpoint's answer."""
    request = oauth.authorization_request(scope=SCOPE, prompt="create")
    callback = Browser(server, authenticator).create_account(request.uri, address)
    return oauth.authorization_code(request.validate_callback(callback))


def me(server, route: str, token: str, body: dict | None = None) -> requests.Response:
    return requests.post(f"{server.base}/api/umfa/me/email/{route}", json=body or {},
                         headers={"Authorization": f"Bearer {token}"}, timeout=10)


def test_a_new_account_verifies_its_address_with_the_mailed_code(serve, authenticator, pki):
    smtp = MailServer(pki)
    try:
        server = serve(env=mail_env(smtp.port, pki.ca))
        oauth = oauth_client(server)
        address = f"ada-{uuid.uuid4().hex[:8]}@example.com"
        token = sign_up(server, authenticator, oauth, address)
        assert oauth.userinfo(token)["email_verified"] is False

        [message] = smtp.wait(1)
        assert smtp.envelopes == [("no-reply@shop.example", [address])]
        assert [a.addr_spec for a in message["To"].addresses] == [address]
        assert [a.addr_spec for a in message["From"].addresses] == ["no-reply@shop.example"]
        code = code_of(message)
        assert code not in message["Subject"], "the code appears once, in the body"
        assert message["Auto-Submitted"] == "auto-generated"
        assert smtp.logins == [(USER.encode(), PASSWORD.encode())], "AUTH over TLS with the configured account"
        assert PASSWORD not in server.logs() and code not in server.logs()

        verified = me(server, "verify", token.access_token, {"code": code})
        assert verified.status_code == 200, verified.text
        assert verified.json()["email_verified"] is True and verified.json()["email"] == address
        assert oauth.userinfo(token)["email_verified"] is True
        # Verified: asking again sends nothing.
        again = me(server, "verification", token.access_token)
        assert again.status_code == 200 and again.json()["email_verified"] is True
        time.sleep(2)
        assert len(smtp.messages) == 1
        events = server.ok("GET", f"/api/admin/audit-events?application_id={server.app_id}&action=email.verified",
                           bearer=ADMIN_TOKEN)["events"]
        assert len(events) == 1, events
        assert metric(server, 'umfa_mail_deliveries_total{outcome="sent"}') == 1
    finally:
        smtp.stop()


def test_the_hosted_sign_up_asks_for_the_mailed_code_and_a_wrong_one_changes_nothing(serve, authenticator, pki):
    smtp = MailServer(pki)
    try:
        server = serve(env=mail_env(smtp.port, pki.ca))
        oauth = oauth_client(server)
        address = f"kim-{uuid.uuid4().hex[:8]}@example.com"
        request = oauth.authorization_request(scope=SCOPE, prompt="create")
        browser = Browser(server, authenticator)
        issuer_path, interaction, _ = browser.open(request.uri)
        options = browser.post(issuer_path, "create-account/options", {"interaction": interaction, "email": address})
        credential = authenticator.register(options["publicKey"], origin=server.origin, uv=True)
        step = browser.post(issuer_path, "create-account/verify",
                            {"interaction": interaction, "credential": credential.data})
        assert step["next"] == "verify_email", step
        code = code_of(smtp.wait(1)[0])

        # A wrong code spends an attempt and the page stays on the step; the interaction goes on.
        wrong = "000000" if code != "000000" else "111111"
        refused = browser.http.post(f"{server.origin}{issuer_path}/interaction/verify-email",
                                    json={"interaction": interaction, "code": wrong}, timeout=10)
        assert refused.status_code == 400 and "4 attempts left" in refused.json()["message"], refused.text
        # Another browser's made-up interaction handle gets nowhere.
        stranger = requests.post(f"{server.origin}{issuer_path}/interaction/verify-email",
                                 json={"interaction": "x" * 43, "code": code}, timeout=10)
        assert stranger.status_code == 401, stranger.text

        step = browser.post(issuer_path, "verify-email", {"interaction": interaction, "code": code})
        if step["next"] == "consent":
            step = browser.post(issuer_path, "consent", {"interaction": interaction, "allow": True})
        token = oauth.authorization_code(request.validate_callback(step["redirect_to"]))
        claims = oauth.userinfo(token)
        assert claims["email"] == address and claims["email_verified"] is True, claims
        assert len(server.ok("GET", f"/api/admin/audit-events?application_id={server.app_id}&action=email.verified",
                             bearer=ADMIN_TOKEN)["events"]) == 1

        # Skipping the step leaves the address unverified; the sign-up stands.
        other = f"lee-{uuid.uuid4().hex[:8]}@example.com"
        skipped = sign_up(server, authenticator, oauth, other)
        assert oauth.userinfo(skipped)["email_verified"] is False
    finally:
        smtp.stop()


def test_guessing_a_code_locks_it_after_five_attempts(serve, authenticator, pki):
    smtp = MailServer(pki)
    try:
        server = serve(env=mail_env(smtp.port, pki.ca))
        oauth = oauth_client(server)
        token = sign_up(server, authenticator, oauth, f"bob-{uuid.uuid4().hex[:8]}@example.com")
        code = code_of(smtp.wait(1)[0])
        wrong = f"{(int(code) + 1) % 1_000_000:06d}"
        for left in [4, 3, 2, 1, 0]:
            refused = me(server, "verify", token.access_token, {"code": wrong})
            assert refused.status_code == 400, refused.text
            assert f"{left} attempt" in refused.json()["message"], refused.text
        # Spent: the right code is refused now, and the address stays unverified.
        locked = me(server, "verify", token.access_token, {"code": code})
        assert locked.status_code == 409, locked.text
        assert oauth.userinfo(token)["email_verified"] is False
        # A new code is sent only a minute after the last.
        soon = me(server, "verification", token.access_token)
        assert soon.status_code == 429 and int(soon.headers["Retry-After"]) > 0, soon.text
        # Not a code at all.
        assert me(server, "verify", token.access_token, {"code": "12ab56"}).status_code == 400
    finally:
        smtp.stop()


def test_no_password_and_no_message_without_tls_then_delivered_once_tls_is_there(serve, pki, authenticator, tmp_path):
    plain = MailServer(None)
    server = serve(env=mail_env(plain.port, None, required=False) | {"UMFA_LOG_LEVEL": "debug"},
                   data_dir=tmp_path / "mail-data")
    try:
        user_id = f"cy-{uuid.uuid4().hex[:8]}"
        phone = Device(server, authenticator, server.app_id)
        phone.register(user_id)
        set_email = server.request("PATCH", f"/api/umfa/users/{user_id}/profile",
                                   {"application_id": server.app_id, "email": f"{user_id}@example.com"},
                                   bearer=server.api_key)
        assert set_email.status_code == 200, set_email.text
        login = phone.login(user_id)["token"]
        sent = me(server, "verification", login)
        assert sent.status_code == 200 and sent.json()["email_verified"] is False, sent.text
        deadline = time.monotonic() + 30
        while metric(server, 'umfa_mail_deliveries_total{outcome="retried"}') < 1:
            assert time.monotonic() < deadline, "the delivery was not tried"
            time.sleep(0.2)
        assert plain.logins == [] and plain.messages == [], "no password and no message in plaintext"
    finally:
        plain.stop()
        server.stop()

    # The same port, now with STARTTLS: the queued message goes after a restart of UMFA.
    secure = MailServer(pki, port=plain.port)
    try:
        restarted = serve(env=mail_env(secure.port, pki.ca), data_dir=tmp_path / "mail-data")
        [message] = secure.wait(1, timeout=60)
        assert [a.addr_spec for a in message["To"].addresses] == [f"{user_id}@example.com"]
        assert re.search(r"\b\d{6}\b", message.get_content())
        assert restarted.running
    finally:
        secure.stop()


def test_without_a_mail_server_the_email_routes_say_mail_is_off(server, device):
    user_id = f"dee-{uuid.uuid4().hex[:8]}"
    device.register(user_id)
    login = device.login(user_id)["token"]
    for route, body in [("verification", None), ("verify", {"code": "123456"})]:
        answer = me(server, route, login, body)
        assert answer.status_code == 409, answer.text
        assert "UMFA_SMTP_URL" in answer.json()["message"]


def test_a_bad_mail_setting_stops_the_start_with_a_clear_error(serve):
    for env, words in [({"UMFA_SMTP_URL": "smtp://mail.example"}, "UMFA_MAIL_FROM"),
                       ({"UMFA_SMTP_URL": "http://mail.example", "UMFA_MAIL_FROM": SENDER}, "smtp://"),
                       ({"UMFA_SMTP_URL": "smtp://mail.example?starttls=maybe", "UMFA_MAIL_FROM": SENDER},
                        "starttls"),
                       ({"UMFA_SMTP_URL": "smtp://mail.example", "UMFA_MAIL_FROM": "not an address"},
                        "UMFA_MAIL_FROM")]:
        server = serve(env=env, start=False)
        assert server.wait_exit() != 0
        assert words in server.stderr, (env, server.stderr)
        assert "s3cret" not in server.stderr


def test_security_notices_reach_the_verified_address_only(serve, authenticator, umfa, write_json, tmp_path, pki):
    smtp = MailServer(pki)
    try:
        server = serve(env=mail_env(smtp.port, pki.ca))
        user_id = f"eve-{uuid.uuid4().hex[:8]}"
        old, new = f"{user_id}@example.com", f"{user_id}.new@example.com"
        laptop = Device(server, authenticator, server.app_id)
        phone = Device(server, VirtualAuthenticator(umfa, write_json, tmp_path / "phone"), server.app_id)
        laptop.register(user_id, uv=True)

        def profile(**fields):
            answer = server.request("PATCH", f"/api/umfa/users/{user_id}/profile",
                                    {"application_id": server.app_id, **fields}, bearer=server.api_key)
            assert answer.status_code == 200, answer.text

        # Unverified: nobody is told (the address may not be the user's).
        profile(email=old)
        server.ok("POST", "/api/umfa/me/recovery-codes", status=201, bearer=laptop.login(user_id)["token"])
        # Verified (the backend vouches for it): each security event is told, by mail.
        profile(email_verified=True)
        phone_id = phone.register(user_id, uv=True, token=laptop.login(user_id)["token"])["credential_id"]
        token = laptop.login(user_id)["token"]
        renamed = requests.patch(f"{server.base}/api/umfa/me/credentials/{phone_id}", json={"name": "Eve's phone"},
                                 headers={"Authorization": f"Bearer {token}"}, timeout=10)
        assert renamed.status_code == 200, renamed.text
        removed = requests.delete(f"{server.base}/api/umfa/me/credentials/{phone_id}",
                                  headers={"Authorization": f"Bearer {token}"}, timeout=10)
        assert removed.status_code == 200, removed.text
        server.ok("POST", "/api/umfa/me/recovery-codes", status=201, bearer=token)
        profile(email=new)

        messages = smtp.wait(4)
        time.sleep(2)
        assert len(smtp.messages) == 4, [m["Subject"] for m in smtp.messages]
        subjects = sorted(m["Subject"] for m in messages)
        assert any(s.startswith("A passkey was added") for s in subjects), subjects
        [removed_mail] = [m for m in messages if m["Subject"].startswith("A passkey was removed")]
        assert "Eve's phone" in removed_mail.get_content()
        assert any(s.startswith("New recovery codes") for s in subjects), subjects
        [changed] = [m for m in messages if "email address" in m["Subject"]]
        assert [a.addr_spec for a in changed["To"].addresses] == [old], "the old address is told"
        assert all([a.addr_spec for a in m["To"].addresses] == [old] for m in messages)
    finally:
        smtp.stop()


def test_recovery_by_email_registers_a_new_passkey_once_and_tells_nothing_about_addresses(
        serve, authenticator, umfa, write_json, tmp_path, pki):
    smtp = MailServer(pki)
    try:
        server = serve(env=mail_env(smtp.port, pki.ca))
        user_id, stranger = f"fay-{uuid.uuid4().hex[:8]}", f"gus-{uuid.uuid4().hex[:8]}"
        address = f"{user_id}@example.com"
        lost = Device(server, authenticator, server.app_id)
        lost.register(user_id, uv=True)
        Device(server, VirtualAuthenticator(umfa, write_json, tmp_path / "stranger"), server.app_id).register(stranger)
        for who, email_address, verified in [(user_id, address, True), (stranger, f"{stranger}@example.com", False)]:
            answer = server.request("PATCH", f"/api/umfa/users/{who}/profile",
                                    {"application_id": server.app_id, "email": email_address,
                                     "email_verified": verified}, bearer=server.api_key)
            assert answer.status_code == 200, answer.text
        issuer = f"{server.base}/oidc/{server.app_id}"

        def ask(email_address: str) -> requests.Response:
            return requests.post(f"{issuer}/recovery", json={"email": email_address}, timeout=10)

        # The same answer for the account, an unverified one, and nobody; only the account gets mail.
        answers = [ask(address), ask(f"{stranger}@example.com"), ask(f"nobody-{uuid.uuid4().hex[:6]}@example.com")]
        assert [a.status_code for a in answers] == [202, 202, 202], [a.text for a in answers]
        assert len({a.json()["message"] for a in answers}) == 1
        [mail] = smtp.wait(1)
        time.sleep(2)
        assert len(smtp.messages) == 1 and [a.addr_spec for a in mail["To"].addresses] == [address]
        [link] = re.findall(r"https?://\S+/recovery/umfa_rl_\S+", mail.get_content())

        # Opening the link (a mail scanner, then the person) spends nothing.
        for _ in range(2):
            opened = requests.get(link, timeout=10)
            assert opened.status_code == 200 and 'id="register_passkey"' in opened.text, opened.text[:300]
            assert "'unsafe-inline'" not in opened.headers["Content-Security-Policy"]
        token = link.rsplit("/", 1)[1]
        phone = VirtualAuthenticator(umfa, write_json, tmp_path / "new-phone")
        options = requests.post(f"{issuer}/recovery/options", json={"token": token}, timeout=10)
        assert options.status_code == 200, options.text
        credential = phone.register(options.json()["publicKey"], origin=server.origin, uv=True)
        done = requests.post(f"{issuer}/recovery/verify", json={"token": token, "credential": credential.data},
                             timeout=10)
        assert done.status_code == 200 and done.json()["user_id"] == user_id, done.text

        # Used once: the link's page, options and a second registration are refused.
        assert requests.get(link, timeout=10).status_code == 404
        again = requests.post(f"{issuer}/recovery/options", json={"token": token}, timeout=10)
        assert again.status_code == 401, again.text
        # The new passkey signs in; the old one stays until the person removes it.
        assert Device(server, phone, server.app_id).login(user_id, uv=True)["user_id"] == user_id
        assert lost.login(user_id)["user_id"] == user_id
        [event] = server.ok("GET", f"/api/admin/audit-events?application_id={server.app_id}&action=account.recovered",
                            bearer=ADMIN_TOKEN)["events"]
        assert event["user_id"] == user_id and event["credential_id"] == done.json()["credential_id"], event
        # The account's owner is told: a passkey was added, and the account was recovered by email.
        notices = smtp.wait(3)
        subjects = sorted(m["Subject"] for m in notices[1:])
        assert any(s.startswith("A passkey was added") for s in subjects), subjects
        assert any("recovered by email" in s for s in subjects), subjects

        # Asking again and again about one address is limited (the answer still says nothing else).
        limited = [ask(address).status_code for _ in range(3)]
        assert limited[-1] == 429, limited
    finally:
        smtp.stop()


def test_an_application_can_turn_recovery_by_email_off(serve, pki):
    smtp = MailServer(pki)
    try:
        server = serve(env=mail_env(smtp.port, pki.ca))
        off = server.ok("PATCH", f"/api/admin/applications/{server.app_id}", {"email_recovery": False},
                        bearer=ADMIN_TOKEN)
        assert off["email_recovery"] is False
        answer = requests.post(f"{server.base}/oidc/{server.app_id}/recovery", json={"email": "a@example.com"},
                               timeout=10)
        assert answer.status_code == 403, answer.text
        bad = requests.get(f"{server.base}/oidc/{server.app_id}/recovery/umfa_rl_made-up", timeout=10)
        assert bad.status_code == 404
    finally:
        smtp.stop()
