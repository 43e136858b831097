"""Live server: account creation (docs/security-reviews.md, "Account creation that stored a user
per options call"), checked over HTTP from outside against a running `umfa serve` with
UMFA_LIMIT_OPTIONS_REQUESTS=5.

Account-creation options, on the hosted page (`interaction/create-account/options`) and in the
API-driven flow (`<flow>/create-account`), count against the per-address options limit like
every other options route: the sixth call within the window is refused with 429 in the route's
own error shape. And they store no user: only the passkey that verifies creates the user with
its profile. Users are counted through the admin API (`GET /api/admin/applications/{id}/users`)."""

import re

import requests

from api_flow_client import (FLOW_SCOPE, PROBLEM_MEDIA, REDIRECT_URI, SIGN_IN_SCOPE, FlowClient,
                             SoftwareAuthenticator, action, expect_problem, expect_step)
from support import ADMIN_TOKEN, assert_error

LIMIT = {"UMFA_LIMIT_OPTIONS_REQUESTS": "5"}
CALLS = 8
TOO_MANY = "urn:umfa:problem:too-many-attempts"


def users(server) -> list[dict]:
    return server.ok("GET", f"/api/admin/applications/{server.app_id}/users", bearer=ADMIN_TOKEN)["users"]


def hosted_interaction(server, http: requests.Session) -> tuple[str, str]:
    """A first-party code client, and the hosted page's interaction for a prompt=create request."""
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Shop", "redirect_uris": [REDIRECT_URI],
                        "grant_types": ["authorization_code"], "response_types": ["code"],
                        "token_endpoint_auth_method": "client_secret_basic", "scope": SIGN_IN_SCOPE,
                        "first_party": True},
                       bearer=ADMIN_TOKEN, status=201)
    page = http.get(f"{server.origin}/oidc/{server.app_id}/authorize", timeout=10, allow_redirects=False,
                    params={"client_id": client["client_id"], "response_type": "code", "redirect_uri": REDIRECT_URI,
                            "scope": SIGN_IN_SCOPE, "state": "s1", "prompt": "create",
                            "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                            "code_challenge_method": "S256"})
    assert page.status_code == 200, page.text[:300]
    metas = dict(re.findall(r'name="(umfa-[a-z-]+)" content="([^"]*)"', page.text))
    return metas["umfa-issuer-path"], metas["umfa-interaction"]


def test_hosted_page_create_account_options_are_limited_and_store_no_user(serve):
    server = serve(env=LIMIT)
    http = requests.Session()
    issuer_path, interaction = hosted_interaction(server, http)
    base = server.origin + issuer_path + "/interaction/"

    answers = [http.post(base + "create-account/options", timeout=10,
                         json={"interaction": interaction, "email": f"eve{i}@example.com", "given_name": "Eve"})
               for i in range(CALLS)]
    assert [a.status_code for a in answers] == [200] * 5 + [429] * (CALLS - 5), [a.text for a in answers]
    # The refusals are the documented error shape with Retry-After, word for word what the other
    # options routes answer from this address now (one limiter).
    refusals = [assert_error(a, 429) for a in answers[5:]]
    assert all(a.headers.get("Retry-After") for a in answers[5:])
    sign_in = http.post(base + "sign-in/options", json={"interaction": interaction}, timeout=10)
    device = server.post("/api/umfa/authentication/options", {"application_id": server.app_id})
    others = [assert_error(sign_in, 429), assert_error(device, 429)]
    assert {body["message"] for body in refusals + others} == {others[0]["message"]}, refusals + others
    # Eight calls, no user row.
    assert users(server) == []

    # The passkey of the last served options verifies: now, and only now, the user exists.
    credential = SoftwareAuthenticator(server.origin).create(answers[4].json()["publicKey"])
    verified = http.post(base + "create-account/verify", json={"interaction": interaction, "credential": credential},
                         timeout=10)
    assert verified.status_code == 200, verified.text
    created = users(server)
    assert [(u["email"], u["credential_count"]) for u in created] == [("eve4@example.com", 1)], created


def test_api_flow_create_account_is_limited_and_stores_no_user(serve):
    server = serve(env=LIMIT)
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Phone app", "redirect_uris": [REDIRECT_URI],
                        "grant_types": ["authorization_code"], "response_types": ["code"],
                        "token_endpoint_auth_method": "none", "scope": f"{SIGN_IN_SCOPE} {FLOW_SCOPE}",
                        "first_party": True},
                       bearer=ADMIN_TOKEN, status=201)
    app = FlowClient(server, client, SoftwareAuthenticator(server.origin))
    start = expect_step(app.start())
    create = action(start, "create-account")

    statuses, last_served = [], None
    for i in range(CALLS):
        answer = app.submit(create, {"email": f"eve{i}@example.com", "given_name": "Eve"})
        statuses.append(answer.status_code)
        if answer.status_code == 200:
            last_served = expect_step(answer)
            assert last_served["type"] == "registration-step", last_served
        else:
            expect_problem(answer, 429, TOO_MANY)
            assert answer.headers.get("Retry-After"), answer.headers
    assert statuses == [200] * 5 + [429] * (CALLS - 5), statuses
    # The flow's sign-in is refused by the same count.
    signed = app.submit(action(start, "passkey-sign-in"), {})
    assert signed.status_code == 429 and signed.headers["Content-Type"].startswith(PROBLEM_MEDIA), signed.text
    assert users(server) == []

    # The last served registration step finishes: the user exists with its profile.
    operation = action(last_served, "webauthn-registration")
    done = expect_step(app.perform(operation))
    assert done["type"] in ("oauth-authorization-response", "user-consent-step"), done
    created = users(server)
    assert [(u["email"], u["credential_count"]) for u in created] == [("eve4@example.com", 1)], created
