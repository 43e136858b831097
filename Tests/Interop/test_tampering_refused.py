"""3. Both verifiers refuse the same tampering. UMFA must exit 1 with {"valid": false, "error",
"step"} naming the WebAuthn L3 step that failed; py_webauthn must raise."""

import copy
import json
from dataclasses import dataclass, replace

import cbor2
import pytest
from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse

from support import (
    ORIGIN, RP_ID, UV, VARIANTS, authentication_args, authentication_options, enroll, registration_args,
)

# The authenticator runs without --uv; the RP asks for an attested (packed, self) credential so
# that the attestation signature can be tampered with too.
VARIANT = next(v for v in VARIANTS if v.name == "direct-uv-preferred")
OTHER_CHALLENGE = b"not the challenge the relying party issued"


@dataclass(frozen=True)
class Check:
    """What a relying party checks a response against."""

    response: dict
    challenge: bytes
    origin: str = ORIGIN
    rp_id: str = RP_ID
    require_uv: bool = False
    public_key: bytes = b""
    sign_count: int = 0


def flipped(raw: bytes) -> bytes:
    """Changes the last byte, which for a DER ECDSA signature keeps the encoding valid."""
    return raw[:-1] + bytes([raw[-1] ^ 0x01])


def flip_last_byte(b64u: str) -> str:
    return bytes_to_base64url(flipped(base64url_to_bytes(b64u)))


def with_response(check: Check, **fields) -> Check:
    response = copy.deepcopy(check.response)
    response["response"].update(fields)
    return replace(check, response=response)


def tamper_attestation_signature(check: Check) -> Check:
    attestation = cbor2.loads(base64url_to_bytes(check.response["response"]["attestationObject"]))
    attestation["attStmt"]["sig"] = flipped(attestation["attStmt"]["sig"])
    return with_response(check, attestationObject=bytes_to_base64url(cbor2.dumps(attestation)))


def bump_sign_count(check: Check) -> Check:
    data = bytearray(base64url_to_bytes(check.response["response"]["authenticatorData"]))
    data[36] ^= 0x40  # low byte of the big-endian counter at offset 33..36
    return with_response(check, authenticatorData=bytes_to_base64url(bytes(data)))


REGISTRATION_CASES = {
    "wrong-challenge": ("7.1 step 8", lambda c: replace(c, challenge=OTHER_CHALLENGE)),
    "wrong-origin": ("7.1 step 9", lambda c: replace(c, origin="https://evil.example")),
    "wrong-rp-id": ("7.1 step 14", lambda c: replace(c, rp_id="evil.example")),
    "uv-required-not-verified": ("7.1 step 16", lambda c: replace(c, require_uv=True)),
    "modified-attestation-signature": ("7.1 step 22", tamper_attestation_signature),
}

AUTHENTICATION_CASES = {
    "wrong-challenge": ("7.2 step 11", lambda c: replace(c, challenge=OTHER_CHALLENGE)),
    "wrong-origin": ("7.2 step 12", lambda c: replace(c, origin="https://evil.example")),
    "wrong-rp-id": ("7.2 step 15", lambda c: replace(c, rp_id="evil.example")),
    "uv-required-not-verified": ("7.2 step 17", lambda c: replace(c, require_uv=True)),
    "modified-signature": ("7.2 step 21", lambda c: with_response(c, signature=flip_last_byte(c.response["response"]["signature"]))),
    "modified-authenticator-data": ("7.2 step 21", bump_sign_count),
}


@pytest.fixture
def registration(authenticator) -> Check:
    enrollment = enroll(authenticator, VARIANT)
    return Check(response=enrollment.response.data, challenge=enrollment.options.challenge)


@pytest.fixture
def authentication(authenticator):
    enrollment = enroll(authenticator, VARIANT)
    options = authentication_options(allow=[enrollment.verified.credential_id], user_verification=UV.PREFERRED)
    assertion = authenticator.get(options)
    check = Check(response=assertion.data, challenge=options.challenge, public_key=enrollment.verified.credential_public_key)
    return check, enrollment


def umfa_registration(umfa, write_json, check: Check):
    return umfa.run(*registration_args(
        write_json(check.response, "registration"), check.challenge, check.origin, check.rp_id, check.require_uv))


def py_registration(check: Check):
    return verify_registration_response(
        credential=json.dumps(check.response), expected_challenge=check.challenge, expected_origin=check.origin,
        expected_rp_id=check.rp_id, require_user_verification=check.require_uv)


def umfa_authentication(umfa, write_json, check: Check):
    return umfa.run(*authentication_args(
        write_json(check.response, "authentication"), check.challenge, check.public_key, check.sign_count,
        check.origin, check.rp_id, check.require_uv))


def py_authentication(check: Check):
    return verify_authentication_response(
        credential=json.dumps(check.response), expected_challenge=check.challenge, expected_origin=check.origin,
        expected_rp_id=check.rp_id, credential_public_key=check.public_key,
        credential_current_sign_count=check.sign_count, require_user_verification=check.require_uv)


def assert_refused(result, step):
    assert result.code == 1, f"umfa accepted a tampered response\n{result}"
    out = result.json()
    assert out["valid"] is False, result
    assert out["error"], result
    assert out["step"] == step, result
    assert step in result.stderr, result


def test_untampered_responses_pass_both(umfa, write_json, registration, authentication):
    """The control for the cases below: without tampering both verifiers accept."""
    assert umfa_registration(umfa, write_json, registration).code == 0
    py_registration(registration)
    check, _ = authentication
    assert umfa_authentication(umfa, write_json, check).code == 0
    py_authentication(check)


@pytest.mark.parametrize("case", REGISTRATION_CASES, ids=list(REGISTRATION_CASES))
def test_registration_tampering_refused_by_both(umfa, write_json, registration, case):
    step, tamper = REGISTRATION_CASES[case]
    check = tamper(registration)
    assert_refused(umfa_registration(umfa, write_json, check), step)
    with pytest.raises(InvalidRegistrationResponse):
        py_registration(check)


@pytest.mark.parametrize("case", AUTHENTICATION_CASES, ids=list(AUTHENTICATION_CASES))
def test_authentication_tampering_refused_by_both(umfa, write_json, authentication, case):
    step, tamper = AUTHENTICATION_CASES[case]
    check = tamper(authentication[0])
    assert_refused(umfa_authentication(umfa, write_json, check), step)
    with pytest.raises(InvalidAuthenticationResponse):
        py_authentication(check)


def test_another_credentials_key_refused_by_both(umfa, write_json, authenticator, authentication):
    check, _ = authentication
    stranger = enroll(authenticator, VARIANT)
    check = replace(check, public_key=stranger.verified.credential_public_key)
    assert_refused(umfa_authentication(umfa, write_json, check), "7.2 step 21")
    with pytest.raises(InvalidAuthenticationResponse):
        py_authentication(check)


def test_spliced_client_data_refused_by_both(umfa, write_json, authenticator, authentication):
    """clientDataJSON lifted from a second ceremony, checked against that ceremony's challenge:
    the challenge matches, but the signature covers the first clientDataJSON."""
    check, enrollment = authentication
    options = authentication_options(allow=[enrollment.verified.credential_id], user_verification=UV.PREFERRED)
    second = authenticator.get(options)
    spliced = with_response(check, clientDataJSON=second.data["response"]["clientDataJSON"])
    spliced = replace(spliced, challenge=options.challenge)
    assert_refused(umfa_authentication(umfa, write_json, spliced), "7.2 step 21")
    with pytest.raises(InvalidAuthenticationResponse):
        py_authentication(spliced)
