"""1. An independent verifier agrees: py_webauthn 3.0.1 accepts what UMFA's virtual authenticator
produces, for registration and for repeated assertions."""

import cbor2
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_der_public_key
from webauthn import verify_authentication_response
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url, parse_attestation_object

from support import ORIGIN, RP_ID, UV, VARIANTS, authentication_options, enroll

VARIANT_IDS = [v.name for v in VARIANTS]
DISCOVERABLE = [v for v in VARIANTS if v.discoverable]


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_registration_verified_by_py_webauthn(authenticator, variant):
    enrollment = enroll(authenticator, variant)  # raises unless py_webauthn verifies it
    response, verified = enrollment.response, enrollment.verified

    assert response.data["type"] == "public-key"
    assert response.data["id"] == response.data["rawId"]
    assert verified.credential_id == response.raw_id
    assert verified.fmt == variant.expected_fmt
    assert verified.user_verified is variant.uv
    assert verified.sign_count == 0
    attestation = parse_attestation_object(base64url_to_bytes(response.data["response"]["attestationObject"]))
    if variant.expected_fmt == "packed":
        # Self attestation: a signature by the credential key, no certificate chain.
        assert attestation.att_stmt.sig and not attestation.att_stmt.x5c


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_registration_convenience_fields_match_attestation(authenticator, variant):
    """getAuthenticatorData() / getPublicKey() / getPublicKeyAlgorithm() in the JSON must agree
    with the attestation object, since many relying parties read only those."""
    enrollment = enroll(authenticator, variant)
    body = enrollment.response.data["response"]
    attestation = cbor2.loads(base64url_to_bytes(body["attestationObject"]))
    assert base64url_to_bytes(body["authenticatorData"]) == attestation["authData"]
    assert body["publicKeyAlgorithm"] == -7

    cose = cbor2.loads(enrollment.verified.credential_public_key)
    spki = load_der_public_key(base64url_to_bytes(body["publicKey"]))
    assert isinstance(spki, ec.EllipticCurvePublicKey) and spki.curve.name == "secp256r1"
    numbers = spki.public_numbers()
    assert numbers.x.to_bytes(32, "big") == cose[-2]
    assert numbers.y.to_bytes(32, "big") == cose[-3]


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_assertions_with_allow_list_verified_by_py_webauthn(authenticator, variant):
    enrollment = enroll(authenticator, variant)
    credential_id = enrollment.verified.credential_id
    sign_count = 0
    for expected_count in (1, 2, 3):
        options = authentication_options(allow=[credential_id], user_verification=variant.user_verification)
        assertion = authenticator.get(options, uv=variant.uv)
        verified = verify_authentication_response(
            credential=assertion.text,
            expected_challenge=options.challenge,
            expected_origin=ORIGIN,
            expected_rp_id=RP_ID,
            credential_public_key=enrollment.verified.credential_public_key,
            credential_current_sign_count=sign_count,
            require_user_verification=variant.require_uv,
        )
        assert verified.credential_id == credential_id == assertion.raw_id
        assert verified.new_sign_count == expected_count
        assert verified.user_verified is variant.uv
        sign_count = verified.new_sign_count


@pytest.mark.parametrize("variant", DISCOVERABLE, ids=[v.name for v in DISCOVERABLE])
def test_discoverable_assertions_verified_by_py_webauthn(authenticator, variant):
    enrollment = enroll(authenticator, variant)
    sign_count = 0
    for expected_count in (1, 2, 3):
        options = authentication_options(allow=[], user_verification=variant.user_verification)
        assertion = authenticator.get(options, uv=variant.uv)
        # A discoverable credential must say whose it is.
        assert assertion.data["response"]["userHandle"] == bytes_to_base64url(enrollment.options.user.id)
        verified = verify_authentication_response(
            credential=assertion.text,
            expected_challenge=options.challenge,
            expected_origin=ORIGIN,
            expected_rp_id=RP_ID,
            credential_public_key=enrollment.verified.credential_public_key,
            credential_current_sign_count=sign_count,
            require_user_verification=variant.require_uv,
        )
        assert verified.credential_id == enrollment.verified.credential_id
        assert verified.new_sign_count == expected_count
        sign_count = verified.new_sign_count


def test_each_credential_counts_its_own_signatures(authenticator):
    """Two credentials on one authenticator: assertions with one do not move the other's counter."""
    first = enroll(authenticator, VARIANTS[0])
    second = enroll(authenticator, VARIANTS[0])
    assert first.verified.credential_id != second.verified.credential_id
    counts = {first.verified.credential_id: 0, second.verified.credential_id: 0}
    for enrollment in (first, first, second, first):
        options = authentication_options(allow=[enrollment.verified.credential_id], user_verification=UV.DISCOURAGED)
        assertion = authenticator.get(options)
        credential_id = enrollment.verified.credential_id
        verified = verify_authentication_response(
            credential=assertion.text, expected_challenge=options.challenge, expected_origin=ORIGIN,
            expected_rp_id=RP_ID, credential_public_key=enrollment.verified.credential_public_key,
            credential_current_sign_count=counts[credential_id],
        )
        assert verified.new_sign_count == counts[credential_id] + 1
        counts[credential_id] = verified.new_sign_count
    assert counts == {first.verified.credential_id: 3, second.verified.credential_id: 1}
