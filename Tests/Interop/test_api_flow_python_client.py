"""The API-driven authentication flow (docs/contract.md §6, docs/api-flow.md) driven by a client
written in Python from those two documents alone (api_flow_client.py): no UMFA binary and no
Swift type takes part on the client side.

The client's pieces (its CBOR, software authenticator, DPoP proofs and flow driver) are
described in api_flow_client.py.

The tests whose names hold "software" need no server: they check the authenticator and the
DPoP proofs against py_webauthn, PyJWT and jwskate before anything meets UMFA."""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from urllib.parse import urlsplit

import jwt
import pytest
from webauthn import (generate_authentication_options, generate_registration_options, options_to_json,
                      verify_authentication_response, verify_registration_response)
from webauthn.helpers.exceptions import InvalidAuthenticationResponse
from webauthn.helpers.structs import (AuthenticatorSelectionCriteria, PublicKeyCredentialDescriptor,
                                      ResidentKeyRequirement, UserVerificationRequirement)

from api_flow_client import (FLOW_SCOPE, REDIRECT_URI, SIGN_IN_SCOPE, AuthenticatorError, DPoPKey, FlowClient,
                             SoftwareAuthenticator, action, b64u, b64u_decode, cbor_encode, expect_problem,
                             expect_step, field_names, kinds, new_email, profile, view, with_flipped_signature_byte)
from support import ADMIN_TOKEN


# -- fixtures -------------------------------------------------------------------------------


def register_client(server, first_party: bool, name: str) -> dict:
    """A public native client (no secret) allowed the flow scope, through the admin API."""
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": name, "redirect_uris": [REDIRECT_URI],
                        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                        "token_endpoint_auth_method": "none", "scope": f"{SIGN_IN_SCOPE} {FLOW_SCOPE}",
                        "first_party": first_party},
                       bearer=ADMIN_TOKEN, status=201)
    assert client["client_id"] and "client_secret" not in client, client
    return {**client, "client_name": name}


@pytest.fixture
def first_party(server) -> dict:
    return register_client(server, True, "Phone app")


@pytest.fixture
def third_party(server) -> dict:
    return register_client(server, False, "Partner app")


@pytest.fixture
def passkey(server) -> SoftwareAuthenticator:
    return SoftwareAuthenticator(server.origin)


def sign_up(server, client: dict, passkey: SoftwareAuthenticator, email: str) -> dict:
    """A whole sign-up through a new flow (consent allowed if asked): the ID token's claims."""
    flow = FlowClient(server, client, passkey)
    final = flow.drive(expect_step(flow.start()), {"create-account": profile(email), "consent-allow": {}})
    return flow.redeem(final)


def start_sign_in(server, client: dict, passkey: SoftwareAuthenticator, username: str) -> tuple[FlowClient, dict]:
    """A new flow through `passkey-sign-in`: the client and the step with the WebAuthn operation."""
    flow = FlowClient(server, client, passkey)
    step = expect_step(flow.submit(action(expect_step(flow.start()), "passkey-sign-in"), {"username": username}))
    assert view(step) == ("authentication-step", "umfa:passkey-sign-in"), step
    return flow, step


# -- offline: the client's own pieces against independent implementations -------------------


def test_software_cbor_encoder_matches_rfc_8949_examples():
    examples = [(0, "00"), (23, "17"), (24, "1818"), (100, "1864"), (1000, "1903e8"), (1000000, "1a000f4240"),
                (1000000000000, "1b000000e8d4a51000"), (-1, "20"), (-10, "29"), (-100, "3863"), (-1000, "3903e7"),
                (b"", "40"), (b"\x01\x02\x03\x04", "4401020304"), ("", "60"), ("a", "6161"), ("IETF", "6449455446"),
                ("\u00fc", "62c3bc"), ([1, [2, 3], [4, 5]], "8301820203820405"), ({1: 2, 3: 4}, "a201020304"),
                ({"a": 1, "b": [2, 3]}, "a26161016162820203")]
    for value, expected in examples:
        assert cbor_encode(value).hex() == expected, (value, cbor_encode(value).hex(), expected)


def test_software_authenticator_satisfies_py_webauthn():
    origin, rp_id = "http://localhost:8080", "localhost"
    authenticator = SoftwareAuthenticator(origin)
    user_id = secrets.token_bytes(16)
    creation = json.loads(options_to_json(generate_registration_options(
        rp_id=rp_id, rp_name="Example", user_name="ada@example.com", user_id=user_id,
        authenticator_selection=AuthenticatorSelectionCriteria(resident_key=ResidentKeyRequirement.REQUIRED,
                                                               user_verification=UserVerificationRequirement.REQUIRED))))
    created = authenticator.create(creation)
    registered = verify_registration_response(credential=created, expected_challenge=b64u_decode(creation["challenge"]),
                                              expected_rp_id=rp_id, expected_origin=origin,
                                              require_user_verification=True)
    assert registered.fmt == "none" and registered.user_verified
    assert registered.credential_id == b64u_decode(created["rawId"]) == authenticator.credentials[0].credential_id
    assert registered.credential_public_key == authenticator.credentials[0].cose_key()

    with pytest.raises(AuthenticatorError, match="InvalidStateError"):
        authenticator.create({**creation, "excludeCredentials": [{"type": "public-key", "id": created["id"]}]})

    def sign_in(allow: list[bytes], sign_count: int) -> dict:
        request = json.loads(options_to_json(generate_authentication_options(
            rp_id=rp_id, allow_credentials=[PublicKeyCredentialDescriptor(id=i) for i in allow],
            user_verification=UserVerificationRequirement.REQUIRED)))
        assertion = authenticator.get(request)
        verified = verify_authentication_response(
            credential=assertion, expected_challenge=b64u_decode(request["challenge"]), expected_rp_id=rp_id,
            expected_origin=origin, credential_public_key=registered.credential_public_key,
            credential_current_sign_count=sign_count, require_user_verification=True)
        assert verified.new_sign_count == sign_count + 1 and verified.user_verified
        return {"request": request, "assertion": assertion}

    sign_in([registered.credential_id], 0)
    discoverable = sign_in([], 1)
    assert discoverable["request"].get("allowCredentials", []) == []
    assert b64u_decode(discoverable["assertion"]["response"]["userHandle"]) == user_id

    tampered = with_flipped_signature_byte(authenticator.get(discoverable["request"]))
    with pytest.raises(InvalidAuthenticationResponse):
        verify_authentication_response(
            credential=tampered, expected_challenge=b64u_decode(discoverable["request"]["challenge"]),
            expected_rp_id=rp_id, expected_origin=origin, credential_public_key=registered.credential_public_key,
            credential_current_sign_count=2)
    with pytest.raises(AuthenticatorError, match="NotAllowedError"):
        authenticator.get({"challenge": b64u(secrets.token_bytes(32)), "rpId": "other.example"})


def test_software_dpop_key_makes_rfc_9449_proofs():
    from jwskate import Jwk  # comes with requests-oauth2client; an independent RFC 7638 thumbprint

    key = DPoPKey()
    proof = key.proof("GET", "https://as.example/oidc/x/authorize?client_id=a#f", access_token="token-1",
                      nonce="n-1")
    header = jwt.get_unverified_header(proof)
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    assert header["jwk"] == key.public_jwk and "d" not in header["jwk"]
    claims = jwt.decode(proof, jwt.PyJWK(header["jwk"]).key, algorithms=["ES256"])
    assert claims["htm"] == "GET" and claims["htu"] == "https://as.example/oidc/x/authorize"
    assert claims["ath"] == b64u(hashlib.sha256(b"token-1").digest()) and claims["nonce"] == "n-1"
    assert abs(claims["iat"] - time.time()) < 5 and claims["jti"] != jwt.decode(
        key.proof("GET", "https://as.example/"), options={"verify_signature": False})["jti"]
    assert key.thumbprint == Jwk(key.public_jwk).thumbprint()
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(proof, DPoPKey().private_key.public_key(), algorithms=["ES256"])


# -- against a live server ------------------------------------------------------------------


def test_sign_up_with_a_first_party_client_ends_in_a_verified_id_token(server, first_party, passkey):
    flow = FlowClient(server, first_party, passkey)
    choose = expect_step(flow.start())
    assert view(choose) == ("authentication-step", "umfa:choose"), choose
    assert {"passkey-sign-in", "create-account", "approve-on-another-device"} <= kinds(choose), choose
    create = action(choose, "create-account")
    fields = field_names(create)
    assert {"email", "given_name", "family_name", "phone_number", "device_name"} <= set(fields), create
    assert fields["email"].get("required") is True, create
    href = flow.resolve(create["model"]["href"])
    assert href.startswith(flow.issuer + "/flow/"), href

    email = new_email("ada")
    registration = expect_step(flow.submit(create, profile(email)))
    assert view(registration) == ("registration-step", "umfa:passkey-registration"), registration
    assert action(registration, "webauthn-registration")["model"]["arguments"]["credentialCreationOptions"]["publicKey"]

    # GET <issuer>/flow/<flow id> (the restart target) answers the start again until someone has
    # signed in; the registration step given before stays valid.
    flow_id = href[len(flow.issuer + "/flow/"):].split("/")[0].split("?")[0]
    restarted = expect_step(flow.call("GET", f"{flow.issuer}/flow/{flow_id}"))
    assert view(restarted) == ("authentication-step", "umfa:choose"), restarted
    current = registration

    final = flow.drive(current, {})
    assert [view(s)[1] for s in flow.history[:-1]] == ["umfa:passkey-registration"], "a first-party client: no consent"
    claims = flow.redeem(final)
    assert claims["email"] == email, claims
    assert claims.get("given_name") == "Ada" and claims.get("family_name") == "Lovelace", claims
    assert len(passkey.credentials) == 1 and passkey.credentials[0].rp_id == urlsplit(server.origin).hostname


def test_sign_up_with_a_third_party_client_asks_for_consent(server, third_party, passkey):
    flow = FlowClient(server, third_party, passkey)
    start = expect_step(flow.start(prompt="create"))
    assert view(start) == ("registration-step", "umfa:create-account"), start
    assert kinds(start) == {"create-account"}, start

    email = new_email("grace")
    final = flow.drive(start, {"create-account": profile(email), "consent-allow": {}})
    assert [view(s) for s in flow.history[:-1]] == [
        ("registration-step", "umfa:create-account"), ("registration-step", "umfa:passkey-registration"),
        ("user-consent-step", "umfa:consent")], [view(s) for s in flow.history]
    consent = flow.history[-2]
    assert consent["properties"]["clientName"] == third_party["client_name"], consent
    assert consent["properties"]["scopes"], consent
    assert field_names(action(consent, "consent-allow"))["decision"]["value"] == "allow", consent
    assert field_names(action(consent, "consent-deny"))["decision"]["value"] == "deny", consent
    assert flow.redeem(final)["email"] == email


def test_sign_in_with_the_same_passkey_by_email_and_discoverable(server, first_party, passkey):
    email = new_email("kim")
    subject = sign_up(server, first_party, passkey, email)["sub"]
    credential_id = b64u(passkey.credentials[0].credential_id)

    flow, step = start_sign_in(server, first_party, passkey, email)
    request = action(step, "webauthn-authentication")["model"]["arguments"]["credentialRequestOptions"]["publicKey"]
    assert credential_id in [c["id"] for c in request.get("allowCredentials") or []], request
    claims = flow.redeem(flow.drive(step, {}))
    assert claims["sub"] == subject and claims["email"] == email, claims

    flow, step = start_sign_in(server, first_party, passkey, "")
    request = action(step, "webauthn-authentication")["model"]["arguments"]["credentialRequestOptions"]["publicKey"]
    assert not request.get("allowCredentials"), f"an empty username asks for a discoverable passkey: {request}"
    claims = flow.redeem(flow.drive(step, {}))
    assert claims["sub"] == subject, claims
    assert passkey.credentials[0].sign_count == 2


def test_create_account_without_an_email_is_invalid_input(server, first_party, passkey):
    flow = FlowClient(server, first_party, passkey)
    choose = expect_step(flow.start())
    problem = expect_problem(flow.submit(action(choose, "create-account"), profile(None)), 400,
                             "urn:umfa:problem:invalid-input")
    invalid = {f["name"]: f for f in problem.get("invalidFields") or []}
    assert "email" in invalid and invalid["email"]["reason"] == "missing", problem
    assert not passkey.credentials


def test_a_tampered_passkey_signature_is_incorrect_credentials(server, first_party, passkey):
    email = new_email("eve")
    sign_up(server, first_party, passkey, email)
    flow, step = start_sign_in(server, first_party, passkey, email)
    answer = flow.perform(action(step, "webauthn-authentication"), tamper=with_flipped_signature_byte)
    expect_problem(answer, 400, "urn:umfa:problem:incorrect-credentials")


def test_the_flow_is_bound_to_the_dpop_key_of_its_flow_token(server, first_party, passkey):
    flow = FlowClient(server, first_party, passkey)
    stranger = DPoPKey()

    refused = flow.start(key=stranger)
    assert refused.status_code == 401 and refused.headers.get("WWW-Authenticate", "").startswith("DPoP"), \
        (refused.status_code, refused.headers, refused.text)
    for token in (None, "not-a-flow-token"):
        missing = flow.start(flow_token=token)
        assert missing.status_code == 401, (token, missing.status_code, missing.text)
        challenge = missing.headers.get("WWW-Authenticate", "")
        assert challenge.startswith("DPoP"), (token, challenge)
        # RFC 6750 §3.1: no token, no error code; a token that is not a flow token, invalid_token.
        assert ('error="invalid_token"' in challenge) == (token is not None), (token, challenge)

    choose = expect_step(flow.start())
    create = action(choose, "create-account")
    email = new_email("mallory")
    hijacked = flow.submit(create, profile(email), key=stranger)
    assert hijacked.status_code == 401 and hijacked.headers.get("WWW-Authenticate", "").startswith("DPoP"), \
        (hijacked.status_code, hijacked.text)
    # The refused request changed nothing: the flow's own key carries on.
    registration = expect_step(flow.submit(create, profile(email)))
    assert view(registration) == ("registration-step", "umfa:passkey-registration"), registration


def test_consent_deny_ends_in_access_denied(server, third_party, passkey):
    flow = FlowClient(server, third_party, passkey)
    consent = flow.drive(expect_step(flow.start()), {"create-account": profile(new_email("dan"))},
                         until="consent-deny")
    assert view(consent) == ("user-consent-step", "umfa:consent"), consent
    problem = expect_problem(flow.submit(action(consent, "consent-deny"), {}), 400,
                             "urn:umfa:problem:error-authorization-response")
    assert problem["error"] == "access_denied", problem


def test_the_flow_follows_the_dpop_nonce_dance(server, first_party, passkey):
    server.ok("PATCH", f"/api/admin/applications/{server.app_id}", {"dpop_nonce": "required"}, bearer=ADMIN_TOKEN)
    flow = FlowClient(server, first_party, passkey)
    assert flow.nonce_retries >= 1, "the token endpoint asked for no nonce"

    flow.dpop_nonce = None
    refused = flow.start(retry=False)
    assert refused.status_code == 401, (refused.status_code, refused.text)
    assert 'error="use_dpop_nonce"' in refused.headers.get("WWW-Authenticate", ""), refused.headers
    assert refused.headers.get("DPoP-Nonce") and flow.dpop_nonce == refused.headers["DPoP-Nonce"]

    email = new_email("nonce")
    final = flow.drive(expect_step(flow.start()), {"create-account": profile(email)})
    assert flow.redeem(final)["email"] == email
