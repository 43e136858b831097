"""2. UMFA's own verifier (`umfa verify registration / authentication`) accepts the same responses
and reports the same facts as py_webauthn."""

import uuid

import pytest
from webauthn import verify_authentication_response
from webauthn.helpers import bytes_to_base64url

from support import (
    ORIGIN, RP_ID, VARIANTS, authentication_args, authentication_options, b64u_arg, enroll, registration_args,
)

VARIANT_IDS = [v.name for v in VARIANTS]
FLAG_NAMES = {"up", "uv", "be", "bs", "at", "ed"}


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_umfa_verify_registration_matches_py_webauthn(umfa, authenticator, variant):
    enrollment = enroll(authenticator, variant)
    py = enrollment.verified
    out = umfa.ok(*_registration_args(enrollment)).json()

    assert out["valid"] is True
    assert out["fmt"] == py.fmt == variant.expected_fmt
    assert out["attestation_type"] == variant.expected_attestation_type
    assert out["trust"] == variant.expected_attestation_type  # "none" or "self": nothing to chain
    assert out["credential_id"] == bytes_to_base64url(py.credential_id)
    assert out["public_key"] == bytes_to_base64url(py.credential_public_key)
    assert out["sign_count"] == py.sign_count == 0
    assert out["aaguid"] == py.aaguid
    assert str(uuid.UUID(out["aaguid"])) == out["aaguid"]
    assert out["algorithm"] == -7
    assert set(out["flags"]) == FLAG_NAMES
    assert out["flags"]["up"] is True and out["flags"]["at"] is True
    assert out["flags"]["uv"] is py.user_verified is variant.uv
    assert out["flags"]["be"] is False and out["flags"]["bs"] is False
    assert py.credential_backed_up is False


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_umfa_verify_authentication_matches_py_webauthn(umfa, authenticator, variant):
    enrollment = enroll(authenticator, variant)
    public_key = umfa.ok(*_registration_args(enrollment)).json()["public_key"]
    allow = [] if variant.discoverable else [enrollment.verified.credential_id]

    stored = 0
    for expected in (1, 2, 3):
        options = authentication_options(allow=allow, user_verification=variant.user_verification)
        assertion = authenticator.get(options, uv=variant.uv)
        out = umfa.ok(
            *authentication_args(assertion.path, options.challenge, public_key, stored, require_uv=variant.require_uv)
        ).json()
        py = verify_authentication_response(
            credential=assertion.text, expected_challenge=options.challenge, expected_origin=ORIGIN,
            expected_rp_id=RP_ID, credential_public_key=enrollment.verified.credential_public_key,
            credential_current_sign_count=stored, require_user_verification=variant.require_uv,
        )
        assert out["valid"] is True
        assert out["sign_count"] == py.new_sign_count == expected
        assert out["credential_id"] == bytes_to_base64url(py.credential_id)
        assert out["user_verified"] is py.user_verified is variant.uv
        assert out["clone_warning"] is False
        assert out["flags"]["up"] is True and out["flags"]["at"] is False
        if variant.discoverable:
            assert out["user_handle"] == bytes_to_base64url(enrollment.options.user.id)
        stored = out["sign_count"]


def test_user_handle_and_allow_list_checks(umfa, authenticator):
    """The optional §7.2 step 5 / 6 inputs: the right values pass, others are refused."""
    variant = next(v for v in VARIANTS if v.discoverable)
    enrollment = enroll(authenticator, variant)
    options = authentication_options(allow=[], user_verification=variant.user_verification)
    assertion = authenticator.get(options, uv=variant.uv)
    base = authentication_args(assertion.path, options.challenge, enrollment.public_key_b64u)
    owner = b64u_arg("--user-handle", enrollment.options.user.id)
    credential = b64u_arg("--allow-credential", enrollment.verified.credential_id)

    umfa.ok(*base, owner, credential)
    refused = umfa.refused(*base, b64u_arg("--user-handle", b"somebody else"))
    assert refused["step"] == "7.2 step 6"
    refused = umfa.refused(*base, b64u_arg("--allow-credential", b"\x01" * 32))
    assert refused["step"] == "7.2 step 5"


def _registration_args(enrollment):
    return registration_args(
        enrollment.response.path, enrollment.options.challenge, require_uv=enrollment.variant.require_uv)
