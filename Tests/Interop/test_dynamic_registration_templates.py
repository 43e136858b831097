"""Dynamic registration from templates (docs/contract.md §5; docs/security-reviews.md), against a
live `umfa serve`: authlib drives the attack a public `dcr_template` credential allowed (a client of
the attacker's, registered with the template's token, asking a signed-in victim's session for a code
with `prompt=none`), and plain HTTP checks that registrations choose scopes only from the allowed
ones and that `resource` names only the application's own resource indicators."""

import base64
import json
import uuid

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc6749.errors import MissingCodeException
from authlib.oauth2.rfc6749.parameters import parse_authorization_code_response

from support import ADMIN_TOKEN
from test_oauth_code_flow import Browser
from test_oauth_machine_clients import issuer_of

REDIRECT_URI = "https://rp.example/callback"
ATTACKER_URI = "https://attacker.example/cb"
SCOPE = "openid email offline_access"


def first_party_template(server) -> dict:
    return server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                     {"client_name": "Shop app", "redirect_uris": [REDIRECT_URI],
                      "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                      "token_endpoint_auth_method": "client_secret_basic", "scope": SCOPE,
                      "first_party": True, "dcr_template": True},
                     bearer=ADMIN_TOKEN, status=201)


def register(issuer: str, token: str, body: dict) -> requests.Response:
    return requests.post(issuer + "/register", json=body, headers={"Authorization": "Bearer " + token}, timeout=10)


def test_template_client_with_foreign_redirect_gets_no_silent_code(server, authenticator):
    issuer = issuer_of(server)
    template = first_party_template(server)
    browser = Browser(server, authenticator)

    # The victim signs up with the real app; the SSO cookie stays in the browser.
    app = OAuth2Session(template["client_id"], template["client_secret"], scope=SCOPE, redirect_uri=REDIRECT_URI,
                        code_challenge_method="S256")
    verifier = uuid.uuid4().hex + uuid.uuid4().hex
    url, _ = app.create_authorization_url(issuer + "/authorize", code_verifier=verifier, prompt="create")
    browser.create_account(url, f"victim-{uuid.uuid4().hex[:8]}@example.com")

    # The attacker: the template's credentials (shipped in the app) get a dcr token, which
    # registers a client with the attacker's redirect URI.
    dcr = OAuth2Session(template["client_id"], template["client_secret"], scope="dcr") \
        .fetch_token(issuer + "/token", grant_type="client_credentials")["access_token"]
    evil = register(issuer, dcr, {"client_name": "Shop", "redirect_uris": [ATTACKER_URI]})
    assert evil.status_code == 201, evil.text
    evil = evil.json()
    shown = server.ok("GET", f"/api/admin/applications/{server.app_id}/oauth-clients/{evil['client_id']}",
                      bearer=ADMIN_TOKEN)
    assert shown["first_party"] is False

    attacker = OAuth2Session(evil["client_id"], evil["client_secret"], scope=SCOPE, redirect_uri=ATTACKER_URI,
                             code_challenge_method="S256")
    attack_verifier = uuid.uuid4().hex + uuid.uuid4().hex
    attack_url, state = attacker.create_authorization_url(issuer + "/authorize", code_verifier=attack_verifier,
                                                          prompt="none")
    # The victim's browser visits the attacker's link.
    landed = browser.http.get(attack_url, allow_redirects=False, timeout=10)
    assert landed.status_code == 303
    location = landed.headers["Location"]
    assert location.startswith(ATTACKER_URI) and "code=" not in location, location
    assert "error=consent_required" in location
    # authlib, reading the callback as the attacker's client would, finds no code to redeem.
    with pytest.raises(MissingCodeException):
        parse_authorization_code_response(location, state)

    # The control: a client registered with the template's own redirect URI is still
    # first-party, and the same silent request gets a code authlib redeems.
    own = register(issuer, dcr, {"client_name": "Shop (phone)"}).json()
    mine = OAuth2Session(own["client_id"], own["client_secret"], scope=SCOPE, redirect_uri=REDIRECT_URI,
                         code_challenge_method="S256")
    own_verifier = uuid.uuid4().hex + uuid.uuid4().hex
    own_url, _ = mine.create_authorization_url(issuer + "/authorize", code_verifier=own_verifier, prompt="none")
    silent = browser.http.get(own_url, allow_redirects=False, timeout=10)
    assert silent.status_code == 303 and "code=" in silent.headers["Location"], silent.headers.get("Location")
    token = mine.fetch_token(issuer + "/token", authorization_response=silent.headers["Location"],
                             code_verifier=own_verifier)
    assert token["id_token"] and token["refresh_token"]


def test_scopes_and_resources_are_limited(server):
    issuer = issuer_of(server)
    initial = server.ok("POST", f"/api/admin/applications/{server.app_id}/initial-access-tokens", {"uses": 5},
                        bearer=ADMIN_TOKEN, status=201)["initial_access_token"]
    greedy = {"client_name": "Greedy", "grant_types": ["client_credentials"], "scope": "payments:admin"}
    refused = register(issuer, initial, greedy)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_client_metadata", refused.text

    # A scope the application allows may be registered; a resource must be the application's own.
    server.ok("PATCH", f"/api/admin/applications/{server.app_id}",
              {"allowed_scopes": ["openid", "payments:read"], "resource_indicators": ["https://api.shop.example"]},
              bearer=ADMIN_TOKEN)
    made = register(issuer, initial, dict(greedy, scope="payments:read"))
    assert made.status_code == 201, made.text
    client = made.json()
    auth = (client["client_id"], client["client_secret"])
    foreign = requests.post(issuer + "/token", auth=auth, timeout=10,
                            data={"grant_type": "client_credentials", "resource": "https://api.other-tenant.example"})
    assert foreign.status_code == 400 and foreign.json()["error"] == "invalid_target", foreign.text
    own = requests.post(issuer + "/token", auth=auth, timeout=10,
                        data={"grant_type": "client_credentials", "resource": "https://api.shop.example"})
    assert own.status_code == 200, own.text
    payload = own.json()["access_token"].split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["scope"] == "payments:read" and claims["aud"] == "https://api.shop.example"
    # A self-registered client may not introspect, not even its own tokens (RFC 7662 §2.1;
    # docs/contract.md §5).
    introspected = requests.post(issuer + "/introspect", auth=auth, timeout=10,
                                 data={"token": own.json()["access_token"]})
    assert introspected.status_code == 401 and introspected.json()["error"] == "invalid_client", introspected.text

    # An unauthenticated caller learns nothing about templates.
    template = first_party_template(server)
    for software_id in (template["client_id"], "umfa_ci_nothing"):
        probe = register(issuer, "umfa_iat_guess", {"software_id": software_id})
        assert probe.status_code == 401 and probe.json()["error"] == "invalid_token", probe.text
