"""Authentication context and step-up (docs/oidc-provider.md) driven by requests-oauth2client, a
client nobody here wrote: discovery's `acr_values_supported`, the `acr` of the ID token the library
validated, a session below an essential `acr` of the `claims` parameter stepped up to the sign-in
page, and a sign-in that still falls short answered `unmet_authentication_requirements` without a
code."""

import json
import uuid
from urllib.parse import parse_qs, urlsplit

import requests
from requests_oauth2client import BearerToken, ClientSecretBasic, OAuth2Client

from support import ADMIN_TOKEN
from test_oauth_code_flow import Browser

REDIRECT_URI = "https://rp.example/callback"
PASSKEY, ATTESTED = "urn:umfa:acr:passkey", "urn:umfa:acr:attested"


def test_requests_oauth2client_sees_acr_and_a_step_up_that_falls_short(server, authenticator):
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Bank", "redirect_uris": [REDIRECT_URI],
                        "grant_types": ["authorization_code"], "response_types": ["code"],
                        "token_endpoint_auth_method": "client_secret_basic", "scope": "openid email",
                        "first_party": True},
                       bearer=ADMIN_TOKEN, status=201)
    issuer = f"{server.origin}/oidc/{server.app_id}"
    discovery = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert discovery["acr_values_supported"] == ["urn:umfa:acr:presence", PASSKEY, ATTESTED]
    assert discovery["claims_parameter_supported"] is True
    oauth = OAuth2Client.from_discovery_endpoint(
        issuer + "/.well-known/openid-configuration", issuer=issuer, testing=True,  # testing: plain http
        auth=ClientSecretBasic(client["client_id"], client["client_secret"]), redirect_uri=REDIRECT_URI,
        id_token_signed_response_alg="RS256")
    browser = Browser(server, authenticator)

    # A sign-up with user verification reaches the passkey level; the library checked the ID token.
    request = oauth.authorization_request(scope="openid", prompt="create", acr_values=PASSKEY)
    callback = browser.create_account(request.uri, f"ada-{uuid.uuid4().hex[:8]}@example.com")
    token: BearerToken = oauth.authorization_code(request.validate_callback(callback))
    assert token.id_token.claims["acr"] == PASSKEY

    # A payment needs a hardware-bound, attested passkey: the session is not enough, so the
    # person is asked to sign in again, and a software passkey still falls short.
    essential = json.dumps({"id_token": {"acr": {"essential": True, "values": [ATTESTED]}}})
    request = oauth.authorization_request(scope="openid", claims=essential)
    page = browser.http.get(request.uri, allow_redirects=False, timeout=10)
    assert page.status_code == 200 and 'content="sign-in"' in page.text, page.status_code
    location = browser.sign_in(request.uri, token.id_token.claims["sub"])  # by user id
    answer = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
    assert answer["error"] == "unmet_authentication_requirements", answer
    assert "code" not in answer and answer["state"] == request.state
