"""Live server: logout (docs/security-reviews.md, "RP-initiated logout by any page"),
checked over HTTP from outside against a running `umfa serve`.

OpenID Connect RP-Initiated Logout 1.0 §2: a top-level GET of the end_session_endpoint without
an id_token_hint (what any third-party page can make a browser do) no longer ends the SSO
session. The person gets a confirmation page (a POST form with a `logout_confirm` button and a
CSRF token bound to the session, strict CSP, no script); only that form's POST ends the session.
A relying party's id_token_hint for the current session still signs out at once."""

import base64
import hashlib
import re
import secrets
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import requests

from api_flow_client import SoftwareAuthenticator
from support import ADMIN_TOKEN

REDIRECT_URI = "https://rp.example/callback"
BYE = "https://rp.example/bye"
SCOPE = "openid email"


class Forms(HTMLParser):
    """The forms of a page: action, method, inputs (name -> value) and button names."""

    def __init__(self, html: str):
        super().__init__()
        self.forms: list[dict] = []
        self.scripts = 0
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script":
            self.scripts += 1
        elif tag == "form":
            self.forms.append({"action": attributes.get("action"), "method": (attributes.get("method") or "get").lower(),
                               "inputs": {}, "buttons": []})
        elif tag == "input" and self.forms:
            self.forms[-1]["inputs"][attributes.get("name")] = attributes.get("value") or ""
        elif tag == "button" and self.forms:
            self.forms[-1]["buttons"].append(attributes.get("name"))


class Browser:
    """A browser session on the hosted pages (cookies kept), with a Python passkey."""

    def __init__(self, server, client: dict):
        self.server, self.client = server, client
        self.issuer = f"{server.origin}/oidc/{server.app_id}"
        self.meta = requests.get(self.issuer + "/.well-known/openid-configuration", timeout=10).json()
        self.http = requests.Session()
        self.passkey = SoftwareAuthenticator(server.origin)

    def authorize(self, **extra) -> requests.Response:
        self.verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(self.verifier.encode()).digest()).rstrip(b"=").decode()
        params = {"client_id": self.client["client_id"], "response_type": "code", "redirect_uri": REDIRECT_URI,
                  "scope": SCOPE, "state": "s1", "code_challenge": challenge, "code_challenge_method": "S256", **extra}
        return self.http.get(self.meta["authorization_endpoint"], params=params, timeout=10, allow_redirects=False)

    def interact(self, route: str, body: dict) -> dict:
        answer = self.http.post(self.issuer + "/interaction/" + route, json=body, timeout=10)
        assert answer.status_code == 200, (route, answer.status_code, answer.text)
        return answer.json()

    def sign_in(self, create: bool) -> str:
        """Creates an account (or signs in with the passkey) on the hosted page; the ID token."""
        page = self.authorize(prompt="create") if create else self.authorize()
        interaction = re.search(r'name="umfa-interaction" content="([^"]*)"', page.text).group(1)
        if create:
            options = self.interact("create-account/options", {"interaction": interaction, "email": "ann@example.com"})
            step = self.interact("create-account/verify", {"interaction": interaction,
                                                           "credential": self.passkey.create(options["publicKey"])})
        else:
            options = self.interact("sign-in/options", {"interaction": interaction})
            step = self.interact("sign-in/verify", {"interaction": interaction,
                                                    "credential": self.passkey.get(options["publicKey"])})
        code = parse_qs(urlsplit(step["redirect_to"]).query)["code"][0]
        tokens = requests.post(self.meta["token_endpoint"], timeout=10,
                               auth=(self.client["client_id"], self.client["client_secret"]),
                               data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI,
                                     "code_verifier": self.verifier})
        assert tokens.status_code == 200, tokens.text
        return tokens.json()["id_token"]

    def signed_in(self) -> bool:
        """prompt=none: a code while the SSO session lives, login_required once it ended."""
        answer = self.authorize(prompt="none")
        assert answer.status_code in (302, 303), answer.text[:300]
        query = parse_qs(urlsplit(answer.headers["Location"]).query)
        assert "code" in query or query.get("error") == ["login_required"], query
        return "code" in query


def test_logout_without_hint_asks_and_only_the_confirmation_post_signs_out(server):
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Shop", "redirect_uris": [REDIRECT_URI], "grant_types": ["authorization_code"],
                        "response_types": ["code"], "token_endpoint_auth_method": "client_secret_basic",
                        "scope": SCOPE, "first_party": True, "post_logout_redirect_uris": [BYE]},
                       bearer=ADMIN_TOKEN, status=201)
    browser = Browser(server, client)
    browser.sign_in(create=True)
    assert browser.signed_in()
    logout = browser.meta["end_session_endpoint"]

    # 1. What a third-party page's link or image makes the browser do: a confirmation page.
    page = browser.http.get(logout, params={"client_id": client["client_id"], "post_logout_redirect_uri": BYE,
                                            "state": "bye"}, timeout=10, allow_redirects=False)
    assert page.status_code == 200 and "Set-Cookie" not in page.headers, page.text[:300]
    csp = page.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "'unsafe-inline'" not in csp, csp
    assert "form-action 'self' https://rp.example" in csp, csp
    forms = Forms(page.text)
    assert forms.scripts == 0 and len(forms.forms) == 1, page.text
    form = forms.forms[0]
    assert form["method"] == "post" and "logout_confirm" in form["buttons"], form
    assert form["inputs"]["csrf_token"] and form["inputs"]["post_logout_redirect_uri"] == BYE, form
    assert browser.signed_in()

    # 2. Another site's forged confirmation (no token, or a made-up one) ends nothing.
    for fields in ({"logout_confirm": "yes"}, {"logout_confirm": "yes", "csrf_token": "forged"}):
        forged = browser.http.post(logout, data=fields, timeout=10, allow_redirects=False)
        assert forged.status_code == 403 and "Location" not in forged.headers, forged.text[:300]
    assert browser.signed_in()

    # 3. The person's click: the form as the page has it, to its own action.
    action = urlsplit(logout)._replace(path=form["action"]).geturl()
    out = browser.http.post(action, data={**form["inputs"], "logout_confirm": "yes"}, timeout=10,
                            allow_redirects=False)
    assert out.status_code == 303 and out.headers["Location"] == BYE + "?state=bye", (out.status_code, out.text)
    assert "Max-Age=0" in out.headers["Set-Cookie"]
    assert not browser.signed_in()


def test_logout_with_the_sessions_id_token_hint_signs_out_at_once_and_another_hint_asks(server):
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Shop", "redirect_uris": [REDIRECT_URI], "grant_types": ["authorization_code"],
                        "response_types": ["code"], "token_endpoint_auth_method": "client_secret_basic",
                        "scope": SCOPE, "first_party": True, "post_logout_redirect_uris": [BYE]},
                       bearer=ADMIN_TOKEN, status=201)
    browser = Browser(server, client)
    first_hint = browser.sign_in(create=True)
    logout = browser.meta["end_session_endpoint"]
    # The first session's hint ends it at once.
    out = browser.http.get(logout, params={"id_token_hint": first_hint, "post_logout_redirect_uri": BYE},
                           timeout=10, allow_redirects=False)
    assert out.status_code == 303 and out.headers["Location"] == BYE, (out.status_code, out.text[:300])
    assert not browser.signed_in()

    # Signed in again (a new session): the old session's hint no longer names it, so the person is asked.
    browser.sign_in(create=False)
    assert browser.signed_in()
    stale = browser.http.get(logout, params={"id_token_hint": first_hint}, timeout=10, allow_redirects=False)
    assert stale.status_code == 200 and "logout_confirm" in stale.text, stale.text[:300]
    assert browser.signed_in()
