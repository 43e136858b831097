"""The authorization code flow of UMFA's OpenID Connect provider (docs/contract.md §5) driven by
requests-oauth2client, a client nobody here wrote: discovery, a pushed authorization request
(RFC 9126) with PKCE, the hosted page's passkey ceremonies answered by `umfa authenticator`,
the code exchange with the ID token validated by the library (signature against the JWKS,
issuer, audience, nonce), userinfo, refresh rotation with reuse detection, introspection and
revocation of refresh tokens."""

import re
import uuid

import pytest
import requests
from requests_oauth2client import BearerToken, ClientSecretBasic, InvalidGrant, OAuth2Client

from support import ADMIN_TOKEN

SCOPE = "openid email profile offline_access"
REDIRECT_URI = "https://rp.example/callback"


def page_meta(html: str, name: str) -> str:
    match = re.search(f'name="{name}" content="([^"]*)"', html)
    assert match, f"no {name} on the page:\n{html[:400]}"
    return match.group(1)


class Browser:
    """What the hosted page's script does, with `umfa authenticator` as the passkey."""

    def __init__(self, server, authenticator):
        self.server, self.authenticator = server, authenticator
        self.http = requests.Session()

    def open(self, url: str) -> tuple[str, str, str]:
        page = self.http.get(url, allow_redirects=False, timeout=10)
        assert page.status_code == 200, (page.status_code, page.text[:300])
        csp = page.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "'unsafe-inline'" not in csp, csp
        return (page_meta(page.text, "umfa-issuer-path"), page_meta(page.text, "umfa-interaction"),
                page_meta(page.text, "umfa-view"))

    def post(self, issuer_path: str, route: str, body: dict) -> dict:
        answer = self.http.post(self.server.origin + issuer_path + "/interaction/" + route, json=body, timeout=10)
        assert answer.status_code == 200, (route, answer.status_code, answer.text)
        return answer.json()

    def create_account(self, url: str, email: str, email_code=None) -> str:
        """The hosted sign-up; when the server mailed a code (`next: verify_email`), the page's
        code step gets `email_code()`, or is skipped when that is None."""
        issuer_path, interaction, view = self.open(url)
        assert view == "create-account"
        options = self.post(issuer_path, "create-account/options",
                            {"interaction": interaction, "email": email, "given_name": "Grace"})
        credential = self.authenticator.register(options["publicKey"], origin=self.server.origin, uv=True)
        step = self.post(issuer_path, "create-account/verify", {"interaction": interaction, "credential": credential.data})
        if step["next"] == "verify_email":
            body = {"interaction": interaction}
            if email_code is not None:
                body["code"] = email_code()
            step = self.post(issuer_path, "verify-email", body)
        if step["next"] == "consent":
            step = self.post(issuer_path, "consent", {"interaction": interaction, "allow": True})
        return step["redirect_to"]

    def sign_in(self, url: str, login: str) -> str:
        issuer_path, interaction, view = self.open(url)
        assert view == "sign-in"
        options = self.post(issuer_path, "sign-in/options", {"interaction": interaction, "login": login})
        credential = self.authenticator.get(options["publicKey"], origin=self.server.origin, uv=True)
        step = self.post(issuer_path, "sign-in/verify", {"interaction": interaction, "credential": credential.data})
        assert step["next"] == "redirect", step
        return step["redirect_to"]


@pytest.fixture
def code_client(server):
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Shop", "redirect_uris": [REDIRECT_URI],
                        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                        "token_endpoint_auth_method": "client_secret_basic", "scope": SCOPE,
                        "require_pushed_authorization_requests": True},
                       bearer=ADMIN_TOKEN, status=201)
    issuer = f"{server.origin}/oidc/{server.app_id}"
    oauth = OAuth2Client.from_discovery_endpoint(
        issuer + "/.well-known/openid-configuration", issuer=issuer, testing=True,  # testing: plain http
        auth=ClientSecretBasic(client["client_id"], client["client_secret"]), redirect_uri=REDIRECT_URI,
        id_token_signed_response_alg="RS256")
    return oauth


def test_requests_oauth2client_runs_par_code_refresh_introspection_and_revocation(server, authenticator, code_client):
    oauth: OAuth2Client = code_client
    assert oauth.pushed_authorization_request_endpoint and oauth.authorization_response_iss_parameter_supported
    browser = Browser(server, authenticator)
    email = f"grace-{uuid.uuid4().hex[:8]}@example.com"

    # A client that requires PAR cannot send the request in the front channel.
    direct = oauth.authorization_request(scope=SCOPE)
    refused = requests.get(direct.uri, allow_redirects=False, timeout=10)
    assert refused.status_code == 303 and "error=invalid_request" in refused.headers["Location"]

    # Sign up through a pushed request; the library checks state and iss, then the ID token.
    request = oauth.authorization_request(scope=SCOPE, prompt="create")
    pushed = oauth.pushed_authorization_request(request)
    callback = browser.create_account(pushed.uri, email)
    token: BearerToken = oauth.authorization_code(request.validate_callback(callback))
    assert token.id_token is not None and token.refresh_token.startswith("umfa_rt_")
    assert token.id_token.claims["nonce"] == request.nonce and token.id_token.claims["email"] == email
    assert oauth.userinfo(token)["email"] == email

    # Sign in again later through another pushed request, by email.
    browser.http.cookies.clear()
    request = oauth.authorization_request(scope=SCOPE)
    callback = browser.sign_in(oauth.pushed_authorization_request(request).uri, email.upper())
    token = oauth.authorization_code(request.validate_callback(callback))
    assert token.id_token.claims["sub"] == oauth.userinfo(token)["sub"]

    # Refresh rotates; the spent one again is refused and ends the family.
    rotated = oauth.refresh_token(token)
    assert rotated.refresh_token != token.refresh_token
    assert oauth.introspect_token(rotated.refresh_token, token_type_hint="refresh_token")["active"] is True
    with pytest.raises(InvalidGrant):
        oauth.refresh_token(token.refresh_token)
    assert oauth.introspect_token(rotated.refresh_token)["active"] is False
    with pytest.raises(InvalidGrant):
        oauth.refresh_token(rotated)

    # Revoking a refresh token ends its family, access tokens included.
    request = oauth.authorization_request(scope=SCOPE)
    browser_session = browser.http.get(oauth.pushed_authorization_request(request).uri, allow_redirects=False,
                                       timeout=10)
    assert browser_session.status_code == 303, "the SSO session answers without a page"
    token = oauth.authorization_code(request.validate_callback(browser_session.headers["Location"]))
    assert oauth.revoke_refresh_token(token.refresh_token) is True
    assert oauth.introspect_token(token.access_token)["active"] is False
    with pytest.raises(InvalidGrant):
        oauth.refresh_token(token)


@pytest.mark.parametrize("algorithm", ["ES256", "EdDSA"])
def test_requests_oauth2client_validates_es256_and_eddsa_id_tokens(server, authenticator, algorithm):
    """An issuer whose application signs with ES256 or EdDSA (docs/contract.md §5 "tokens"): discovery
    names the algorithm, and requests-oauth2client checks the ID token (signature from the
    issuer's JWKS, nonce, at_hash) and takes the access token to userinfo."""
    changed = server.ok("PATCH", f"/api/admin/applications/{server.app_id}", {"token_signing_alg": algorithm},
                        bearer=ADMIN_TOKEN)
    assert changed["token_signing_alg"] == algorithm
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Shop", "redirect_uris": [REDIRECT_URI],
                        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                        "token_endpoint_auth_method": "client_secret_basic", "scope": SCOPE, "first_party": True},
                       bearer=ADMIN_TOKEN, status=201)
    issuer = f"{server.origin}/oidc/{server.app_id}"
    discovery = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert discovery["id_token_signing_alg_values_supported"] == [algorithm]
    oauth = OAuth2Client.from_discovery_endpoint(
        issuer + "/.well-known/openid-configuration", issuer=issuer, testing=True,
        auth=ClientSecretBasic(client["client_id"], client["client_secret"]), redirect_uri=REDIRECT_URI,
        id_token_signed_response_alg=algorithm)
    request = oauth.authorization_request(scope=SCOPE, prompt="create")
    email = f"ivy-{uuid.uuid4().hex[:8]}@example.com"
    callback = Browser(server, authenticator).create_account(request.uri, email)
    token: BearerToken = oauth.authorization_code(request.validate_callback(callback))
    assert token.id_token.alg == algorithm
    assert token.id_token.claims["email"] == email and token.id_token.claims["nonce"] == request.nonce
    assert oauth.userinfo(token)["email"] == email
    rotated = oauth.refresh_token(token)
    assert rotated.id_token.alg == algorithm and rotated.id_token.claims["sub"] == token.id_token.claims["sub"]
