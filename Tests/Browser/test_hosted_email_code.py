"""The hosted sign-up's email step in a real Chromium, with a real SMTP server (aiosmtpd on
loopback): after the passkey is created the page asks for the six-digit code mailed to the new
address; a wrong code is refused on the page with the attempts left, the right one verifies the
address (userinfo says email_verified) and the page goes on to the client. The hosted sign-in page
also tells the device to forget a passkey the application no longer holds (WebAuthn Signal API)."""

import email
import email.policy
import re
import threading
import time
import uuid

import pytest
import requests
from aiosmtpd.controller import Controller
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from demo import WAIT_SECONDS
from support import ADMIN_TOKEN, Server, free_port
from test_hosted_pages import Callback, element, query

SCOPE = "openid email"


class Inbox:
    """aiosmtpd on loopback without TLS or AUTH (UMFA sends no password without TLS): the
    messages it accepted."""

    def __init__(self):
        self.port = free_port()
        self.messages: list[email.message.EmailMessage] = []
        self.lock = threading.Lock()
        outer = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
                with outer.lock:
                    outer.messages.append(email.message_from_bytes(envelope.original_content,
                                                                   policy=email.policy.default))
                return "250 OK"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port, ready_timeout=10)
        self.controller.start()

    def code(self, count: int = 1) -> str:
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.messages) >= count:
                    [code] = re.findall(r"\b\d{6}\b", self.messages[count - 1].get_content())
                    return code
            time.sleep(0.1)
        raise AssertionError(f"no mail arrived within {WAIT_SECONDS} s")


@pytest.fixture
def inbox():
    inbox = Inbox()
    yield inbox
    inbox.controller.stop()


@pytest.fixture
def provider(umfa_bin, tmp_path, inbox: Inbox):
    server = Server(umfa_bin, tmp_path, tmp_path / "data", {"UMFA_ADMIN_TOKEN": ADMIN_TOKEN})
    server.env["UMFA_PUBLIC_URL"] = server.origin
    server.env["UMFA_SMTP_URL"] = f"smtp://localhost:{inbox.port}"
    server.env["UMFA_MAIL_FROM"] = "Shop <no-reply@shop.example>"
    server.start()
    yield server
    server.stop()


def client_of(provider: Server, callback: Callback) -> tuple[dict, dict]:
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    registered = requests.post(
        f"{provider.base}/api/admin/applications/{provider.app_id}/oauth-clients", headers=admin, timeout=10,
        json={"client_name": "Shop", "redirect_uris": [callback.uri], "grant_types": ["authorization_code"],
              "response_types": ["code"], "token_endpoint_auth_method": "client_secret_basic", "scope": SCOPE,
              "first_party": True})
    assert registered.status_code == 201, registered.text
    issuer = f"{provider.origin}/oidc/{provider.app_id}"
    meta = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    return registered.json(), meta


def test_the_hosted_sign_up_asks_for_the_mailed_code(provider: Server, inbox: Inbox, driver, authenticator, steps):
    callback = Callback()
    try:
        info, meta = client_of(provider, callback)
        client = OAuth2Session(info["client_id"], info["client_secret"], scope=SCOPE, redirect_uri=callback.uri,
                               code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
        verifier = generate_token(48)
        url, state = client.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier,
                                                     prompt="create")
        authenticator()
        address = f"ada-{uuid.uuid4().hex[:8]}@example.com"
        driver.get(url)
        element(driver, "email").send_keys(address)
        element(driver, "create_account").click()

        # The code step names the address; a wrong code is refused there.
        code_field = element(driver, "email_code")
        assert driver.find_element(By.ID, "verify-email-address").text == address
        code = inbox.code()
        code_field.send_keys("000000" if code != "000000" else "111111")
        element(driver, "verify_email").click()
        alert = WebDriverWait(driver, WAIT_SECONDS).until(
            lambda d: (a := d.find_element(By.ID, "alert")).is_displayed() and a.text)
        assert "4 attempts left" in alert, alert
        steps.shot("wrong-code")

        code_field.clear()
        code_field.send_keys(code)
        element(driver, "verify_email").click()
        answer = callback.wait(1)
        assert query(answer)["state"] == state, answer
        token = client.fetch_token(meta["token_endpoint"], authorization_response=answer, code_verifier=verifier)
        claims = client.get(meta["userinfo_endpoint"]).json()
        assert claims["email"] == address and claims["email_verified"] is True, claims
        assert token["access_token"]
    finally:
        callback.close()


def test_the_hosted_sign_in_page_makes_the_device_forget_an_unknown_passkey(provider: Server, driver, authenticator,
                                                                           steps):
    callback = Callback()
    try:
        info, meta = client_of(provider, callback)
        client = OAuth2Session(info["client_id"], info["client_secret"], scope=SCOPE, redirect_uri=callback.uri,
                               code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
        device = authenticator()
        driver.get(client.create_authorization_url(meta["authorization_endpoint"], code_verifier=generate_token(48),
                                                   prompt="create")[0])
        element(driver, "email").send_keys(f"bo-{uuid.uuid4().hex[:8]}@example.com")
        element(driver, "create_account").click()
        element(driver, "skip_email_verification").click()
        sub = query(callback.wait(1))
        assert "code" in sub and len(device.credentials()) == 1
        # The account goes (the admin deletes it); its passkey stays on the device until the page tells it.
        users = requests.get(f"{provider.base}/api/admin/applications/{provider.app_id}/users",
                             headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10).json()["users"]
        for user in users:
            deleted = requests.delete(
                f"{provider.base}/api/admin/applications/{provider.app_id}/users/{user['user_id']}",
                headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10)
            assert deleted.status_code == 204, deleted.text
        assert len(device.credentials()) == 1

        driver.get(client.create_authorization_url(meta["authorization_endpoint"], code_verifier=generate_token(48),
                                                   prompt="login")[0])
        # The page's passkey autofill (conditional mediation) presents the passkey at once (the
        # virtual authenticator answers it); the server says it is unknown, and the page tells the device.
        WebDriverWait(driver, WAIT_SECONDS).until(
            lambda d: (a := d.find_element(By.ID, "alert")).is_displayed() and "Authentication failed" in a.text)
        WebDriverWait(driver, WAIT_SECONDS).until(lambda _: device.credentials() == [])
    finally:
        callback.close()
