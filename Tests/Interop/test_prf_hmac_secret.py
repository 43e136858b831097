"""PRF (WebAuthn L3 §10.1.4) over CTAP 2.1 hmac-secret (§12.5), checked against Python `fido2`.

The vectors in Tests/UMFAAuthenticatorTests/Resources/prf-vectors.json hold a credential's two
CredRandom values, PRF inputs and the outputs UMFA's software authenticator gives for them (the
Swift suite checks that). Here fido2's own client-side PRF processing (salt = SHA-256("WebAuthn
PRF" || 0x00 || input), evalByCredential selection, salt encryption with PIN/UV protocol 2 and
output decryption) runs against a CTAP authenticator stub that computes
HMAC-SHA-256(CredRandom, salt) as CTAP 2.1 §12.5 says, and must arrive at the same outputs. The
CLI tests then show `umfa authenticator register/assert --prf-salt` reporting
`clientExtensionResults.prf` as a browser does."""

import base64
import hashlib
import hmac
import json
from pathlib import Path
from types import SimpleNamespace

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from fido2.ctap2.extensions import HmacSecretExtension
from fido2.ctap2.pin import ClientPin, PinProtocolV2
from fido2.utils import websafe_decode, websafe_encode
from fido2.webauthn import PublicKeyCredentialDescriptor, PublicKeyCredentialRequestOptions

from support import ORIGIN, RP_ID, authentication_options, registration_options
from webauthn import options_to_json, verify_registration_response

VECTORS = Path(__file__).resolve().parents[1] / "UMFAAuthenticatorTests" / "Resources" / "prf-vectors.json"


class HmacSecretAuthenticator:
    """The authenticator side of CTAP 2.1 §12.5 for one credential: key agreement, salt
    decryption and saltAuth check, then HMAC-SHA-256 with the CredRandom UV selects."""

    def __init__(self, cred_random_with_uv: bytes, cred_random_without_uv: bytes, user_verified: bool):
        self.cred_random = cred_random_with_uv if user_verified else cred_random_without_uv
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.protocol = PinProtocolV2()
        self.info = SimpleNamespace(extensions=["hmac-secret"], options={}, pin_uv_protocols=[2])

    def client_pin(self, protocol, sub_cmd, **_):
        assert protocol == 2 and sub_cmd == ClientPin.CMD.GET_KEY_AGREEMENT
        numbers = self.key.public_key().public_numbers()
        return {ClientPin.RESULT.KEY_AGREEMENT: {1: 2, 3: -25, -1: 1, -2: numbers.x.to_bytes(32, "big"),
                                                 -3: numbers.y.to_bytes(32, "big")}}

    def get_assertion_extension(self, inputs: dict) -> bytes:
        agreement, salt_enc, salt_auth = inputs[1], inputs[2], inputs[3]
        peer = ec.EllipticCurvePublicNumbers(
            int.from_bytes(agreement[-2], "big"), int.from_bytes(agreement[-3], "big"), ec.SECP256R1()
        ).public_key()
        shared = self.protocol.kdf(self.key.exchange(ec.ECDH(), peer))
        assert hmac.compare_digest(self.protocol.authenticate(shared, salt_enc), salt_auth)
        salts = self.protocol.decrypt(shared, salt_enc)
        output = b"".join(
            hmac.new(self.cred_random, salts[i:i + 32], hashlib.sha256).digest() for i in range(0, len(salts), 32)
        )
        return self.protocol.encrypt(shared, output)


def fido2_prf(vector: dict, case: dict) -> dict:
    """Runs fido2's PRF client processing for one case; returns `prf` as a browser reports it."""
    authenticator = HmacSecretAuthenticator(
        websafe_decode(vector["credRandomWithUV"]), websafe_decode(vector["credRandomWithoutUV"]),
        case["userVerified"],
    )
    credential = PublicKeyCredentialDescriptor(type="public-key", id=websafe_decode(vector["credentialId"]))
    allow = [PublicKeyCredentialDescriptor(type="public-key", id=websafe_decode(i)) for i in case.get("allow", [])]
    options = PublicKeyCredentialRequestOptions.from_dict({
        "challenge": websafe_encode(b"\x00" * 32), "rpId": "example.org",
        "allowCredentials": [dict(d) for d in allow] or None, "extensions": {"prf": case["prf"]},
    })
    processing = HmacSecretExtension().get_assertion(authenticator, options, PinProtocolV2())
    inputs = processing.prepare_inputs(credential, None)
    value = authenticator.get_assertion_extension(inputs["hmac-secret"])
    response = SimpleNamespace(auth_data=SimpleNamespace(extensions={"hmac-secret": value}))
    results = processing.prepare_outputs(response, None)["prf"].results
    reported = {"first": websafe_encode(results.first)}
    # fido2 gives one salt's missing second output as b""; a browser leaves `second` out.
    if results.second:
        reported["second"] = websafe_encode(results.second)
    return {"results": reported}


def test_fido2_client_processing_reproduces_the_vectors():
    vector = json.loads(VECTORS.read_text())
    assert len(vector["cases"]) >= 4
    for case in vector["cases"]:
        assert fido2_prf(vector, case) == {"results": case["results"]}, case["name"]


def test_salt_processing_is_webauthn_prf():
    """L3 §10.1.4: the hmac-secret salt is SHA-256("WebAuthn PRF" || 0x00 || input)."""
    vector = json.loads(VECTORS.read_text())
    case = vector["cases"][0]
    cred_random = websafe_decode(vector["credRandomWithUV" if case["userVerified"] else "credRandomWithoutUV"])
    salt = hashlib.sha256(b"WebAuthn PRF\x00" + websafe_decode(case["prf"]["eval"]["first"])).digest()
    expected = hmac.new(cred_random, salt, hashlib.sha256).digest()
    assert websafe_decode(case["results"]["first"]) == expected


# -- the CLI -------------------------------------------------------------------------------------


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def run(umfa, write_json, state, command, options, *extra):
    path = write_json(options_to_json(options), command)
    return umfa.run("authenticator", command, "--options", path, "--origin", ORIGIN, "--state", state, *extra)


def ok(umfa, write_json, state, command, options, *extra) -> dict:
    result = run(umfa, write_json, state, command, options, *extra)
    assert result.code == 0, result
    return json.loads(result.stdout)


def prf_of(response: dict) -> dict:
    return response["clientExtensionResults"]["prf"]


def test_cli_prf_outputs_are_stable_and_split_by_uv(umfa, write_json, tmp_path):
    state = tmp_path / "state"
    salt1, salt2 = b64u(b"photos-key"), b64u(b"notes-key")
    options = registration_options()
    created = ok(umfa, write_json, state, "register", options, "--prf-salt", salt1)
    assert prf_of(created)["enabled"] is True
    # py_webauthn, another relying party, accepts the authenticator data with its hmac-secret output.
    verify_registration_response(
        credential=json.dumps(created), expected_challenge=options.challenge, expected_origin=ORIGIN,
        expected_rp_id=RP_ID)
    credential = base64.urlsafe_b64decode(created["rawId"] + "==")
    allow = authentication_options(allow=[credential])

    first = ok(umfa, write_json, state, "assert", allow, "--prf-salt", salt1, "--prf-salt", salt2)
    again = ok(umfa, write_json, state, "assert", allow, "--prf-salt", salt1)
    verified = ok(umfa, write_json, state, "assert", allow, "--prf-salt", salt1, "--uv")
    results = prf_of(first)["results"]
    assert set(results) == {"first", "second"}
    assert all(len(base64.urlsafe_b64decode(v + "==")) == 32 for v in results.values())
    assert results["first"] != results["second"]
    assert prf_of(again) == {"results": {"first": results["first"]}}
    # CTAP 2.1 §12.5: CredRandomWithUV and CredRandomWithoutUV give different outputs.
    assert prf_of(verified)["results"]["first"] != results["first"]
    # hmac-secret-mc at registration uses the same CredRandom as an assertion without UV.
    assert prf_of(created)["results"] == {"first": results["first"]}

    # fido2's client processing, run with the CredRandom values the state directory seals,
    # arrives at the outputs the CLI printed.
    stored = stored_cred_random(state, credential)
    two_salts = {"userVerified": False, "prf": {"eval": {"first": salt1, "second": salt2}}}
    assert fido2_prf(stored, two_salts) == prf_of(first)
    assert fido2_prf(stored, {"userVerified": True, "prf": {"eval": {"first": salt1}}}) == prf_of(verified)


def stored_cred_random(state: Path, credential: bytes) -> dict:
    """Opens a credential's sealed CredRandom as test_cli_contract opens its private key: AES-GCM
    under HKDF-SHA256(device key, "umfa credential key v1"), bound to id ‖ "hmac-secret"."""
    device_key = (state / "device.key").read_bytes()
    wrapping = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"umfa credential key v1").derive(device_key)
    (path,) = (state / "credentials").iterdir()
    sealed = websafe_decode(json.loads(path.read_bytes())["sealedCredRandom"])
    both = AESGCM(wrapping).decrypt(sealed[:12], sealed[12:], credential + b"hmac-secret")
    assert len(both) == 64
    return {"credentialId": websafe_encode(credential), "credRandomWithUV": websafe_encode(both[:32]),
            "credRandomWithoutUV": websafe_encode(both[32:])}


def test_cli_without_prf_support_reports_it_disabled(umfa, write_json, tmp_path):
    state = tmp_path / "state"
    created = ok(umfa, write_json, state, "register", registration_options(), "--prf-salt", b64u(b"k"), "--no-prf")
    assert prf_of(created) == {"enabled": False}
    credential = base64.urlsafe_b64decode(created["rawId"] + "==")
    asserted = ok(umfa, write_json, state, "assert", authentication_options(allow=[credential]),
                  "--prf-salt", b64u(b"k"))
    assert prf_of(asserted) == {}


def test_cli_refuses_a_third_salt_and_bad_base64url(umfa, write_json, tmp_path):
    state = tmp_path / "state"
    options = registration_options()
    assert run(umfa, write_json, state, "register", options, *["--prf-salt", "AA"] * 3).code != 0
    assert run(umfa, write_json, state, "register", options, "--prf-salt", "not base64url!").code != 0
