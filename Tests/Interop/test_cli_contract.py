"""4. The command-line contract of docs/contract.md §3: version, exclude / allow lists, sign-count
regression, several origins, native-app origins, malformed input, and the state directory."""

import base64
import json
import re
import secrets
import stat

import cbor2
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url

from support import (
    NATIVE_ORIGIN, ORIGIN, RESOURCES, RP_ID, VARIANTS, authentication_args, authentication_options, b64u_arg,
    enroll, registration_args, registration_options,
)

PLAIN = VARIANTS[0]  # attestation none, UV preferred, not discoverable, no --uv
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


def test_version_is_semantic(umfa):
    result = umfa.ok("--version")
    assert SEMVER.match(result.stdout.strip()), result


# -- exclude and allow lists ---------------------------------------------------------------------


def test_exclude_credentials_refuses_a_second_credential(authenticator):
    user_id = secrets.token_bytes(16)
    first = authenticator.register(registration_options(PLAIN, user_id=user_id))

    # Control: an exclude list naming only unknown ids does not stop a registration.
    authenticator.register(registration_options(PLAIN, user_id=user_id, exclude=[b"\x07" * 32]))

    result = authenticator.try_register(registration_options(PLAIN, user_id=user_id, exclude=[first.raw_id]))
    assert result.code != 0, f"registered although excludeCredentials names a held credential\n{result}"
    assert re.search(r"invalid ?state", result.stderr, re.I), result
    assert not result.stdout.strip(), result


def test_exclude_list_of_another_rp_does_not_apply(authenticator):
    first = authenticator.register(registration_options(PLAIN))
    options = registration_options(PLAIN, rp_id="other.example", exclude=[first.raw_id])
    authenticator.register(options, origin="https://other.example")


def test_assert_with_unknown_allow_list_fails(authenticator):
    enroll(authenticator, PLAIN)
    result = authenticator.try_assert(authentication_options(allow=[b"\x01" * 32, b"\x02" * 16]))
    assert result.code != 0, f"asserted although no allowed credential is held\n{result}"
    assert re.search(r"not ?allowed", result.stderr, re.I), result
    assert not result.stdout.strip(), result


def test_assert_picks_the_held_credential_from_a_mixed_allow_list(authenticator):
    enrollment = enroll(authenticator, PLAIN)
    options = authentication_options(allow=[b"\x01" * 32, enrollment.verified.credential_id])
    assertion = authenticator.get(options)
    assert assertion.raw_id == enrollment.verified.credential_id


def test_assert_for_another_rp_fails(authenticator):
    enroll(authenticator, PLAIN)
    options = authentication_options(rp_id="other.example")
    assert authenticator.try_assert(options, origin="https://other.example").code != 0


def test_client_refuses_rp_id_foreign_to_the_origin(authenticator):
    result = authenticator.try_register(registration_options(PLAIN), origin="https://evil.example")
    assert result.code != 0 and not result.stdout.strip(), result


# -- sign count ----------------------------------------------------------------------------------


@pytest.mark.parametrize("stored_above_response", [0, 5], ids=["equal", "higher"])
def test_sign_count_regression_refused(umfa, authenticator, stored_above_response):
    enrollment = enroll(authenticator, PLAIN)
    options = authentication_options(allow=[enrollment.verified.credential_id])
    assertion = authenticator.get(options)
    authenticator.get(authentication_options(allow=[enrollment.verified.credential_id]))  # counter moves on
    count = assertion_count(assertion)
    assert count == 1

    ok = umfa.ok(*authentication_args(assertion.path, options.challenge, enrollment.public_key_b64u, count - 1))
    assert ok.json()["sign_count"] == count

    out = umfa.refused(*authentication_args(
        assertion.path, options.challenge, enrollment.public_key_b64u, count + stored_above_response))
    assert out["step"] == "7.2 step 22"


# -- base64url values ----------------------------------------------------------------------------


def dash_first(size: int = 32) -> bytes:
    """Random bytes whose base64url form begins with "-" (first six bits 62)."""
    return bytes([0xF8 | secrets.randbelow(4)]) + secrets.token_bytes(size - 1)


def test_base64url_value_starting_with_dash(umfa, authenticator):
    """docs/contract.md §3 documents `--challenge B64U`; base64url uses "-", so one random challenge (or
    user handle, or credential id) in 64 begins with it. Such values must work in the documented
    `--option VALUE` form, not only as `--option=VALUE`."""
    variant = next(v for v in VARIANTS if v.discoverable)
    challenge, user_id = dash_first(), dash_first(16)
    enrollment = enroll(authenticator, variant, challenge=challenge, user_id=user_id)
    request_challenge = dash_first()
    options = authentication_options(allow=[], challenge=request_challenge)
    assertion = authenticator.get(options, uv=variant.uv)
    for value in (challenge, user_id, request_challenge):
        assert bytes_to_base64url(value).startswith("-")

    failures = []
    registration = umfa.run("verify", "registration", "--response", enrollment.response.path,
                            "--challenge", bytes_to_base64url(challenge), "--origin", ORIGIN, "--rp-id", RP_ID)
    if registration.code != 0:
        failures.append(f"verify registration --challenge -…: {registration}")
    base = ["verify", "authentication", "--response", assertion.path, "--origin", ORIGIN, "--rp-id", RP_ID,
            "--public-key", enrollment.public_key_b64u]
    authentication = umfa.run(*base, "--challenge", bytes_to_base64url(request_challenge))
    if authentication.code != 0:
        failures.append(f"verify authentication --challenge -…: {authentication}")
    owner = umfa.run(*base, b64u_arg("--challenge", request_challenge), "--user-handle", bytes_to_base64url(user_id))
    if owner.code != 0:
        failures.append(f"verify authentication --user-handle -…: {owner}")
    assert not failures, "\n\n".join(failures)

    # The same values in the `=` form are accepted (so the failure above is argument parsing).
    umfa.ok(*registration_args(enrollment.response.path, challenge))
    umfa.ok(*authentication_args(assertion.path, request_challenge, enrollment.public_key_b64u),
            b64u_arg("--user-handle", user_id))


# -- origins -------------------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["listed-first", "listed-second"])
def test_origin_repeated_accepts_either(umfa, authenticator, order):
    enrollment = enroll(authenticator, PLAIN)
    origins = [ORIGIN, "https://other.example"] if order == "listed-first" else ["https://other.example", ORIGIN]
    umfa.ok(*registration_args(enrollment.response.path, enrollment.options.challenge, origins))
    options = authentication_options(allow=[enrollment.verified.credential_id])
    assertion = authenticator.get(options)
    umfa.ok(*authentication_args(assertion.path, options.challenge, enrollment.public_key_b64u, 0, origins))

    # Control: without the real origin in the list both are refused.
    others = ["https://other.example", "https://third.example"]
    out = umfa.refused(*registration_args(enrollment.response.path, enrollment.options.challenge, others))
    assert out["step"] == "7.1 step 9"
    out = umfa.refused(*authentication_args(assertion.path, options.challenge, enrollment.public_key_b64u, 0, others))
    assert out["step"] == "7.2 step 12"


def test_native_app_origin(umfa, authenticator):
    options = registration_options(PLAIN)
    registration = authenticator.register(options, origin=NATIVE_ORIGIN)
    verified = verify_registration_response(
        credential=registration.text, expected_challenge=options.challenge,
        expected_origin=NATIVE_ORIGIN, expected_rp_id=RP_ID)
    out = umfa.ok(*registration_args(registration.path, options.challenge, NATIVE_ORIGIN)).json()
    assert out["credential_id"] == bytes_to_base64url(verified.credential_id)
    refused = umfa.refused(*registration_args(registration.path, options.challenge, ORIGIN))
    assert refused["step"] == "7.1 step 9"

    request = authentication_options(allow=[verified.credential_id])
    assertion = authenticator.get(request, origin=NATIVE_ORIGIN)
    auth = umfa.ok(*authentication_args(assertion.path, request.challenge, out["public_key"], 0, NATIVE_ORIGIN)).json()
    assert auth["sign_count"] == 1
    verify_authentication_response(
        credential=assertion.text, expected_challenge=request.challenge, expected_origin=NATIVE_ORIGIN,
        expected_rp_id=RP_ID, credential_public_key=verified.credential_public_key, credential_current_sign_count=0)


# -- malformed input -----------------------------------------------------------------------------


def _registration_template(authenticator):
    return authenticator.register(registration_options(PLAIN)).data


def _garbled(field, value):
    def make(template):
        data = json.loads(json.dumps(template))
        data["response"][field] = value
        return json.dumps(data)
    return make


def _without(field):
    def make(template):
        data = json.loads(json.dumps(template))
        del data["response"][field]
        return json.dumps(data)
    return make


MALFORMED = {
    "not-json": lambda t: "this is not JSON {",
    "empty-file": lambda t: "",
    "json-array": lambda t: "[]",
    "json-null": lambda t: "null",
    "only-id-and-type": lambda t: json.dumps({"id": t["id"], "type": "public-key"}),
    "missing-client-data": _without("clientDataJSON"),
    "client-data-not-base64": _garbled("clientDataJSON", "!!! not base64url %%%"),
    "client-data-wrong-type": _garbled("clientDataJSON", 12345),
    "attestation-object-not-base64": _garbled("attestationObject", "***"),
    "attestation-object-not-cbor": _garbled("attestationObject", bytes_to_base64url(b"\xff\x00\x13garbage")),
    "attestation-object-empty-map": _garbled("attestationObject", bytes_to_base64url(cbor2.dumps({}))),
    "client-data-not-json": _garbled("clientDataJSON", bytes_to_base64url(b"\x00\x01 not json")),
    "deeply-nested": lambda t: "[" * 100000 + "]" * 100000,
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_malformed_registration_response_fails_cleanly(umfa, authenticator, write_json, case):
    text = MALFORMED[case](_registration_template(authenticator))
    result = umfa.run(*registration_args(write_json.text(text, case), b"challenge"))
    assert_clean_failure(result)


MALFORMED_ASSERTIONS = {
    "not-json": lambda t: "{{{",
    "missing-signature": lambda t: _drop(t, "signature"),
    "signature-not-base64": lambda t: _set(t, "signature", "@@@"),
    "authenticator-data-short": lambda t: _set(t, "authenticatorData", bytes_to_base64url(b"\x00" * 10)),
    "user-handle-wrong-type": lambda t: _set(t, "userHandle", {"x": 1}),
}


@pytest.mark.parametrize("case", MALFORMED_ASSERTIONS, ids=list(MALFORMED_ASSERTIONS))
def test_malformed_authentication_response_fails_cleanly(umfa, authenticator, write_json, case):
    enrollment = enroll(authenticator, PLAIN)
    options = authentication_options(allow=[enrollment.verified.credential_id])
    assertion = authenticator.get(options)
    text = MALFORMED_ASSERTIONS[case](assertion.data)
    result = umfa.run(*authentication_args(write_json.text(text, case), options.challenge, enrollment.public_key_b64u))
    assert_clean_failure(result)


@pytest.mark.parametrize("argument", ["challenge", "public-key"])
def test_bad_base64_arguments_fail_cleanly(umfa, authenticator, argument):
    enrollment = enroll(authenticator, PLAIN)
    options = authentication_options(allow=[enrollment.verified.credential_id])
    assertion = authenticator.get(options)
    bad = "!!not base64!!"
    challenge = bad if argument == "challenge" else options.challenge
    public_key = bad if argument == "public-key" else enrollment.public_key_b64u
    assert_clean_failure(umfa.run(*authentication_args(assertion.path, challenge, public_key)))


@pytest.mark.parametrize("command", ["register", "assert"])
@pytest.mark.parametrize("text", ["not json", "{}", '{"publicKey": 7}'], ids=["not-json", "empty", "wrong-type"])
def test_malformed_options_fail_cleanly(umfa, write_json, tmp_path, command, text):
    result = umfa.run("authenticator", command, "--options", write_json.text(text, "options"),
                      "--origin", ORIGIN, "--state", tmp_path / "state")
    assert_clean_failure(result)


def test_missing_response_file_fails_cleanly(umfa, tmp_path):
    assert_clean_failure(umfa.run(*registration_args(tmp_path / "absent.json", b"challenge")))


def _malformed_vectors():
    vectors = json.loads((RESOURCES / "pywebauthn-registration.json").read_text())["vectors"]
    return [v for v in vectors if v["fmt"] is None]


@pytest.mark.parametrize("vector", _malformed_vectors(), ids=lambda v: v["name"])
def test_py_webauthn_malformed_vectors_refused(umfa, write_json, vector):
    """py_webauthn's own malformed-attestationObject responses: UMFA refuses them with JSON."""
    path = write_json(vector["response"], "vector")
    out = umfa.refused(*registration_args(path, vector["challenge"], vector["origin"], vector["rp_id"]))
    assert out["step"], out


# -- state directory -----------------------------------------------------------------------------


def test_state_directory_is_private_and_sealed(authenticator):
    enrollment = enroll(authenticator, PLAIN)
    authenticator.get(authentication_options(allow=[enrollment.verified.credential_id]))
    state = authenticator.state

    assert stat.S_IMODE(state.stat().st_mode) & 0o077 == 0, oct(state.stat().st_mode)
    files = sorted(p.name for p in state.iterdir())
    assert files == ["credentials", "device.key"], files  # no leftover temporary files
    credential_files = sorted((state / "credentials").iterdir())
    assert len(credential_files) == 1, credential_files
    for path in [state / "device.key", *credential_files]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, f"{path.name} mode {oct(path.stat().st_mode)}"

    device_key = (state / "device.key").read_bytes()
    assert len(device_key) == 32
    source = json.loads(credential_files[0].read_bytes())
    assert "privateKey" not in source
    assert source["signCount"] == 1
    assert source["protection"] == {}  # device key only: no PIN or password was set

    # The private key is AES-GCM (nonce ‖ ciphertext ‖ tag) under HKDF-SHA256(device key,
    # info "umfa credential key v1"), bound to the credential id. Open it to prove it is the
    # credential's key, and check it appears nowhere in clear.
    wrapping = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"umfa credential key v1").derive(device_key)
    sealed = base64url_to_bytes(source["sealedPrivateKey"])
    credential_id = base64url_to_bytes(source["id"])
    scalar = AESGCM(wrapping).decrypt(sealed[:12], sealed[12:], credential_id)
    assert len(scalar) == 32
    with pytest.raises(Exception):
        AESGCM(wrapping).decrypt(sealed[:12], sealed[12:], b"another credential id")
    public = ec.derive_private_key(int.from_bytes(scalar, "big"), ec.SECP256R1()).public_key().public_numbers()
    cose = cbor2.loads(enrollment.verified.credential_public_key)
    assert (public.x.to_bytes(32, "big"), public.y.to_bytes(32, "big")) == (cose[-2], cose[-3])
    encoded = base64.urlsafe_b64encode(scalar).rstrip(b"=")
    for encoding in (scalar, scalar.hex().encode(), encoded, base64.b64encode(scalar)):
        for path in [state / "device.key", *credential_files]:
            assert encoding not in path.read_bytes(), f"private key in clear in {path.name}"


def test_damaged_state_fails_cleanly(authenticator):
    enroll(authenticator, PLAIN)
    (authenticator.state / "device.key").write_bytes(b"\x00" * 32)  # another device key
    result = authenticator.try_assert(authentication_options(allow=[]))
    assert_clean_failure(result)


# -- helpers -------------------------------------------------------------------------------------


def assertion_count(assertion) -> int:
    return int.from_bytes(base64url_to_bytes(assertion.data["response"]["authenticatorData"])[33:37], "big")


def _drop(template, field):
    data = json.loads(json.dumps(template))
    del data["response"][field]
    return json.dumps(data)


def _set(template, field, value):
    data = json.loads(json.dumps(template))
    data["response"][field] = value
    return json.dumps(data)


def assert_clean_failure(result):
    """Non-zero exit (crashes are caught by the runner), a message on stderr, and any stdout is
    the failure JSON rather than a success."""
    assert result.code != 0, f"malformed input accepted\n{result}"
    assert result.stderr.strip(), f"no message on stderr\n{result}"
    if result.stdout.strip():
        assert result.json().get("valid") is False, result
