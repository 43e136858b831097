"""The OpenID Connect provider's hosted passkey pages in a real Chromium with a virtual
authenticator, driven by authlib as the relying party (a client nobody here wrote): account
creation with a profile, consent, the code with PKCE, tokens checked independently (the ID
token's signature, nonce, at_hash and claims by authlib's OpenID Connect rules), userinfo,
refresh rotation with reuse detection, the SSO session with prompt=none, logout (with the
session's id_token_hint at once; without one only after the person confirms), sign-in by
email, consent denial, and the error page for a redirect URI the client did not register."""

import json
import threading
import uuid
import warnings
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.common.security import generate_token
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from authlib.jose import JsonWebKey, jwt as authlib_jwt
    from authlib.oidc.core import CodeIDToken

from demo import WAIT_SECONDS
from support import ADMIN_TOKEN, Server

SCOPE = "openid profile email offline_access"


class Callback:
    """The client's redirect URI: a loopback HTTP server that keeps each query it receives."""

    def __init__(self):
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                if self.path.startswith("/callback"):  # not the browser's /favicon.ico
                    received.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"done")

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self.server.server_address[1]}/callback"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, count: int) -> str:
        WebDriverWait(None, WAIT_SECONDS, poll_frequency=0.05).until(lambda _: len(self.received) >= count)
        return "http://127.0.0.1" + self.received[count - 1]

    def close(self):
        self.server.shutdown()


def query(url: str) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def element(driver, name: str):
    """The visible element named `name` (the page conventions of docs/contract.md §5)."""
    return WebDriverWait(driver, WAIT_SECONDS, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: next((e for e in d.find_elements(By.NAME, name) if e.is_displayed()), None))


def test_hosted_pages_with_authlib(provider: Server, driver, authenticator, steps):
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    app = requests.post(provider.base + "/api/admin/applications", headers=admin, timeout=10, json={
        "name": "Shop", "rp_id": "localhost", "origins": [provider.origin], "enrollment_policy": "grant"}).json()
    issuer = f"{provider.origin}/oidc/{app['application_id']}"
    meta = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert meta["issuer"] == issuer and meta["authorization_endpoint"] == issuer + "/authorize", meta
    callback = Callback()
    try:
        registered = requests.post(
            f"{provider.base}/api/admin/applications/{app['application_id']}/oauth-clients", headers=admin,
            timeout=10, json={"client_name": "Shop", "redirect_uris": [callback.uri],
                              "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                              "token_endpoint_auth_method": "client_secret_basic", "scope": SCOPE,
                              "post_logout_redirect_uris": [callback.uri + "/bye"]})
        assert registered.status_code == 201, registered.text
        client_info = registered.json()

        def session() -> OAuth2Session:
            return OAuth2Session(client_info["client_id"], client_info["client_secret"], scope=SCOPE,
                                 redirect_uri=callback.uri, code_challenge_method="S256",
                                 token_endpoint_auth_method="client_secret_basic")

        authenticator()
        email = f"ada-{uuid.uuid4().hex[:8]}@example.com"

        # 1. Create an account on the hosted page, consent, and get the code.
        client, verifier, nonce = session(), generate_token(48), generate_token(16)
        url, state = client.create_authorization_url(
            meta["authorization_endpoint"], code_verifier=verifier, nonce=nonce, prompt="create")
        page = requests.get(url, timeout=10)
        csp = page.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, csp
        driver.get(url)
        element(driver, "email").send_keys(email)
        element(driver, "given_name").send_keys("Ada")
        element(driver, "family_name").send_keys("Lovelace")
        element(driver, "device_name").send_keys("Test Chromium")
        steps.shot("create-account")
        element(driver, "create_account").click()
        consent_list = WebDriverWait(driver, WAIT_SECONDS).until(
            lambda d: d.find_element(By.ID, "consent-scopes") if d.find_element(By.ID, "consent").is_displayed()
            else None)
        assert "Your email address" in consent_list.text, consent_list.text
        steps.shot("consent")
        element(driver, "consent_allow").click()
        answer = callback.wait(1)
        assert query(answer)["state"] == state and query(answer)["iss"] == issuer, answer

        # 2. Tokens through authlib; the ID token checked by authlib's OpenID Connect rules.
        token = client.fetch_token(meta["token_endpoint"], authorization_response=answer, code_verifier=verifier)
        assert token["token_type"] == "Bearer" and token["refresh_token"].startswith("umfa_rt_"), token
        keys = JsonWebKey.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            claims = authlib_jwt.decode(
                token["id_token"], keys, claims_cls=CodeIDToken,
                claims_options={"iss": {"essential": True, "value": issuer}},
                claims_params={"nonce": nonce, "client_id": client_info["client_id"],
                               "access_token": token["access_token"]})
            claims.validate()
        assert claims["email"] == email and claims["given_name"] == "Ada" and claims["family_name"] == "Lovelace"
        assert uuid.UUID(claims["sub"]) and "user" in claims["amr"], dict(claims)
        info = client.get(meta["userinfo_endpoint"]).json()
        assert info["sub"] == claims["sub"] and info["email"] == email and info["name"] == "Ada Lovelace", info

        # 3. Refresh rotates; the spent token presented again revokes the family.
        first = token["refresh_token"]
        rotated = client.refresh_token(meta["token_endpoint"], refresh_token=first)
        assert rotated["refresh_token"] != first
        reuse = requests.post(meta["token_endpoint"], auth=(client_info["client_id"], client_info["client_secret"]),
                              data={"grant_type": "refresh_token", "refresh_token": first}, timeout=10)
        assert reuse.status_code == 400 and reuse.json()["error"] == "invalid_grant", reuse.text
        again = requests.post(meta["token_endpoint"], auth=(client_info["client_id"], client_info["client_secret"]),
                              data={"grant_type": "refresh_token", "refresh_token": rotated["refresh_token"]},
                              timeout=10)
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant", again.text

        # 4. The SSO session: prompt=none comes straight back with a code.
        silent, silent_state = session().create_authorization_url(
            meta["authorization_endpoint"], code_verifier=generate_token(48), prompt="none")
        driver.get(silent)
        assert "code" in query(callback.wait(2)) and query(callback.wait(2))["state"] == silent_state

        # 5. Logout ends it; prompt=none is then login_required.
        driver.get(meta["end_session_endpoint"] + "?" + "&".join([
            "id_token_hint=" + token["id_token"], "post_logout_redirect_uri=" + callback.uri + "/bye",
            "state=bye"]))
        assert urlsplit(callback.wait(3)).path == "/callback/bye" and query(callback.wait(3))["state"] == "bye"
        driver.get(session().create_authorization_url(
            meta["authorization_endpoint"], code_verifier=generate_token(48), prompt="none")[0])
        assert query(callback.wait(4))["error"] == "login_required"

        # 6. Signed out, the sign-in page offers the passkey through autofill (conditional UI),
        #    which the virtual authenticator answers; consent was given, so back with a code.
        client, verifier = session(), generate_token(48)
        url, state = client.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier)
        driver.get(url)
        answer = callback.wait(5)
        assert query(answer)["state"] == state
        token = client.fetch_token(meta["token_endpoint"], authorization_response=answer, code_verifier=verifier)
        assert client.get(meta["userinfo_endpoint"]).json()["email"] == email

        # 6b. prompt=login asks again despite the session; with login_hint the page waits for the
        #     button, and signs in by that email.
        client, verifier = session(), generate_token(48)
        url, state = client.create_authorization_url(
            meta["authorization_endpoint"], code_verifier=verifier, login_hint=email.upper(), prompt="login")
        driver.get(url)
        assert element(driver, "username").get_attribute("value") == email.upper()
        steps.shot("sign-in")
        element(driver, "sign_in").click()
        answer = callback.wait(6)
        token = client.fetch_token(meta["token_endpoint"], authorization_response=answer, code_verifier=verifier)
        assert client.get(meta["userinfo_endpoint"]).json()["email"] == email

        # 7. More scopes than consented: consent again; denying is access_denied.
        client = session()
        client.scope = SCOPE + " phone"
        requests.patch(f"{provider.base}/api/admin/applications/{app['application_id']}/oauth-clients/"
                       f"{client_info['client_id']}", headers=admin, json={"scope": SCOPE + " phone"}, timeout=10)
        url, state = client.create_authorization_url(meta["authorization_endpoint"], code_verifier=generate_token(48))
        driver.get(url)
        element(driver, "consent_deny").click()
        denied = query(callback.wait(7))
        assert denied["error"] == "access_denied" and denied["state"] == state, denied

        # 7b. Authorization details (RFC 9396): the consent page shows their canonical text to a
        #     person signed in already, and asks although the scopes were consented to.
        requests.patch(f"{provider.base}/api/admin/applications/{app['application_id']}", headers=admin,
                       json={"authorization_details_types": ["payment_initiation"]}, timeout=10).raise_for_status()
        client = session()
        details = json.dumps([{"type": "payment_initiation",
                               "instructedAmount": {"currency": "EUR", "amount": "12.00"}}])
        url, state = client.create_authorization_url(meta["authorization_endpoint"], code_verifier=generate_token(48),
                                                     authorization_details=details)
        driver.get(url)
        shown = WebDriverWait(driver, WAIT_SECONDS).until(
            lambda d: d.find_element(By.ID, "consent-details")
            if d.find_element(By.ID, "consent-details").is_displayed() else None)
        assert shown.text.startswith('type: "payment_initiation"') and 'amount: "12.00"' in shown.text, shown.text
        steps.shot("consent-authorization-details")
        element(driver, "consent_deny").click()
        denied = query(callback.wait(8))
        assert denied["error"] == "access_denied" and denied["state"] == state, denied

        # 8. A redirect URI the client did not register: the error page, no redirect.
        bad = session()
        bad.redirect_uri = "http://127.0.0.1:9/evil"
        url, _ = bad.create_authorization_url(meta["authorization_endpoint"], code_verifier=generate_token(48))
        page = requests.get(url, allow_redirects=False, timeout=10)
        assert page.status_code == 400 and "Location" not in page.headers and "redirect_uri" in page.text
        driver.get(url)
        assert "not valid" in driver.find_element(By.TAG_NAME, "h1").text
        assert len(callback.received) == 8

        # 9. A logout link without id_token_hint (what any page can send) asks first and ends
        #    nothing (RP-Initiated Logout §2); the person's click signs out and goes back to the
        #    registered URI (the page's CSP form-action allows that origin for the redirect).
        logout = meta["end_session_endpoint"] + "?" + "&".join([
            "client_id=" + client_info["client_id"], "post_logout_redirect_uri=" + callback.uri + "/bye",
            "state=asked"])
        silent = session().create_authorization_url(
            meta["authorization_endpoint"], code_verifier=generate_token(48), prompt="none")[0]
        driver.get(logout)
        assert "Sign out" in driver.find_element(By.TAG_NAME, "h1").text
        steps.shot("logout-confirmation")
        driver.get(silent)
        assert "code" in query(callback.wait(9))
        driver.get(logout)
        element(driver, "logout_confirm").click()
        bye = callback.wait(10)
        assert urlsplit(bye).path == "/callback/bye" and query(bye)["state"] == "asked", bye
        driver.get(silent)
        assert query(callback.wait(11))["error"] == "login_required"
    finally:
        callback.close()


class Attacker:
    """The attacker's site: a loopback HTTP server that records every request it gets."""

    def __init__(self):
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                received.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"phished")

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def test_login_hint_with_combining_mark_cannot_add_a_meta_refresh(provider: Server, driver, steps):
    """Text meets HTML by byte (docs/contract.md §4): `"` + U+0301 is one Swift Character, and an
    escaper walking Characters wrote it raw, so this login_hint gave the sign-in page's meta tag
    `http-equiv=refresh` and sent the browser of anyone who opened a genuine authorize link to the
    attacker's site."""
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    app = requests.post(provider.base + "/api/admin/applications", headers=admin, timeout=10, json={
        "name": "Shop", "rp_id": "localhost", "origins": [provider.origin], "enrollment_policy": "grant"}).json()
    issuer = f"{provider.origin}/oidc/{app['application_id']}"
    callback, attacker = Callback(), Attacker()
    try:
        registered = requests.post(
            f"{provider.base}/api/admin/applications/{app['application_id']}/oauth-clients", headers=admin,
            timeout=10, json={"client_name": "Shop", "redirect_uris": [callback.uri],
                              "grant_types": ["authorization_code"], "response_types": ["code"],
                              "token_endpoint_auth_method": "client_secret_basic", "scope": "openid"})
        assert registered.status_code == 201, registered.text
        client = OAuth2Session(registered.json()["client_id"], scope="openid", redirect_uri=callback.uri,
                               code_challenge_method="S256")
        hint = f'0;url={attacker.origin}/phished"\u0301 http-equiv=refresh x'
        url, _ = client.create_authorization_url(
            issuer + "/authorize", code_verifier=generate_token(48), nonce=generate_token(16), login_hint=hint)
        driver.get(url)
        # The hosted page has loaded and its script has shown the sign-in view.
        element(driver, "sign_in")
        steps.shot("sign-in page")
        # What the browser parsed: no meta tag with http-equiv, so nothing for it to refresh to.
        assert driver.execute_script("return document.querySelectorAll('meta[http-equiv]').length") == 0
        hint_meta = driver.execute_script(
            "return document.querySelector('meta[name=umfa-login-hint]').getAttributeNames()")
        assert hint_meta == ["name", "content"], hint_meta
        # Still on the UMFA page, and the attacker's site saw no request.
        here, asked = urlsplit(driver.current_url), urlsplit(url)
        assert (here.netloc, here.path) == (asked.netloc, asked.path), driver.current_url
        assert query(driver.current_url) == query(url), driver.current_url
        assert attacker.received == [], attacker.received
    finally:
        callback.close()
        attacker.close()
