"""5. Real authenticator data through the CLI: py_webauthn 3.0.1's own test responses (extracted to
Tests/UMFAWebAuthnTests/Resources) give the same verdict from `umfa verify`."""

import base64
import json

import cbor2  # installed with webauthn (py_webauthn depends on it)
import pytest
from webauthn import verify_registration_response
from webauthn.helpers import base64url_to_bytes
from webauthn.helpers.exceptions import InvalidRegistrationResponse

from support import RESOURCES, authentication_args, registration_args

FORMATS = {"none", "packed", "fido-u2f", "tpm", "android-key", "android-safetynet", "apple"}

# The shipped public root each real attestation chains to, at the time it was made.
SHIPPED_ANCHORS = {
    "test_verify_attestation_android_key_hardware_authority": "f92009e853b6b045",
    "test_verify_attestation_android_key_root_5": "Key Attestation CA1",
    "test_verify_attestation_android_safetynet": "GlobalSign Root CA",
    "test_verify_attestation_apple_passkey": "Apple WebAuthn Root CA",
    "test_verify_attestation_from_yubikey_firefox[fido-u2f]": "Yubico U2F Root CA",
    "test_verify_attestation_from_yubikey_firefox[packed]": "Yubico U2F Root CA",
    "test_verify_attestation_with_okp_public_key": "Yubico U2F Root CA",
    "test_verify_attestation_surface_pro_4": "Microsoft TPM Root Certificate Authority 2014",
    "test_verify_attestation_dell_xps_13": "Microsoft TPM Root Certificate Authority 2014",
    "test_verify_attestation_lenovo_carbon_x1": "Microsoft TPM Root Certificate Authority 2014",
    "test_verify_tpm_with_ecc_public_area_type": "Microsoft TPM Root Certificate Authority 2014",
}

# The passkey-provider names (docs/contract.md §8) the vectors' AAGUIDs have in UMFA's table.
PROVIDER_NAMES = {"08987058-cadc-4b81-b6e1-30de50dcbe96": "Windows Hello",
                  "9ddd1817-af5a-4672-a2b9-3e3dd95000a9": "Windows Hello",
                  "6028b017-b1d4-4c02-b4b3-afcdafc96bb2": "Windows Hello"}


def _load(name):
    path = RESOURCES / name
    assert path.exists(), f"{path} is missing"
    return json.loads(path.read_text())["vectors"]


REGISTRATION = [v for v in _load("pywebauthn-registration.json") if v["fmt"] in FORMATS]
AUTHENTICATION = _load("pywebauthn-authentication.json")

# ML-DSA (post-quantum, COSE kty 7) vectors. UMFA does not implement ML-DSA (docs/contract.md lists
# ES256/RS256/EdDSA), so it must refuse them cleanly with "unsupportedAlgorithm". py_webauthn
# registers them only when the relying party opts in (supported_pub_key_algs), but it verifies
# ML-DSA assertions without any opt-in: a known difference between the two, not a UMFA bug.
def _is_ml_dsa(vector):
    return bool(vector.get("supported_algorithms")) or "ml_dsa" in vector["name"]


def _origins(vector):
    return vector.get("expected_origins") or [vector["origin"]]


def _authentication_args(write_json, vector):
    return authentication_args(
        write_json(vector["response"], "authentication"), vector["challenge"], vector["credential_public_key"],
        vector["credential_current_sign_count"], _origins(vector), vector["rp_id"],
        vector["require_user_verification"])


@pytest.mark.parametrize("vector", [v for v in REGISTRATION if not _is_ml_dsa(v)], ids=lambda v: v["name"])
def test_registration_vector(umfa, write_json, tmp_path, vector):
    args = registration_args(write_json(vector["response"], "registration"), vector["challenge"], _origins(vector),
                             vector["rp_id"], vector["require_user_verification"])
    if vector["verification_time"]:
        args += ["--at", vector["verification_time"]]
    for index, root in enumerate(vector["pem_root_certs_b64"]):
        der = tmp_path / f"root-{index}.der"
        der.write_bytes(base64.b64decode(root))
        args += ["--root", der]
    if vector["pem_root_certs_b64"]:  # py_webauthn's test names the only roots to trust
        args += ["--require-trusted", "--no-well-known-roots"]

    result = umfa.run(*args)
    expected = vector["expected"]
    if expected["valid"]:
        assert result.code == 0, result
        out = result.json()
        assert out["valid"] is True
        assert out["fmt"] == vector["fmt"]
        assert out["credential_id"] == expected["credential_id"]
        assert out["sign_count"] == expected["sign_count"]
        assert out["aaguid"] == expected["aaguid"]
        assert out["public_key"] == expected["credential_public_key"]
        if expected.get("attestation_type_hint"):
            assert out["attestation_type"] == expected["attestation_type_hint"]
        # No metadata here: only the passkey-provider table names an authenticator (Windows Hello's
        # TPM vectors carry its AAGUIDs).
        assert "authenticator_name" in out and out["authenticator_name"] == PROVIDER_NAMES.get(out["aaguid"])
        if vector["name"] in SHIPPED_ANCHORS:
            assert out["trust"] == "trusted", out
            assert SHIPPED_ANCHORS[vector["name"]] in out["trust_detail"], out
    else:
        assert result.code == 1, result
        out = result.json()
        assert out["valid"] is False and out["error"] and out["step"], result


@pytest.mark.parametrize("vector", [v for v in REGISTRATION if _is_ml_dsa(v)], ids=lambda v: v["name"])
def test_ml_dsa_registration_vector_refused_by_both(umfa, write_json, vector):
    out = umfa.refused(*registration_args(
        write_json(vector["response"], "registration"), vector["challenge"], _origins(vector), vector["rp_id"]))
    assert out["error"] == "unsupportedAlgorithm", out
    with pytest.raises(InvalidRegistrationResponse):  # py_webauthn without the opt-in agrees
        verify_registration_response(
            credential=vector["response"], expected_challenge=base64url_to_bytes(vector["challenge"]),
            expected_origin=vector["origin"], expected_rp_id=vector["rp_id"])


@pytest.mark.parametrize("vector", [v for v in AUTHENTICATION if not _is_ml_dsa(v)], ids=lambda v: v["name"])
def test_authentication_vector(umfa, write_json, vector):
    result = umfa.run(*_authentication_args(write_json, vector))
    expected = vector["expected"]
    if expected["valid"]:
        assert result.code == 0, result
        assert result.json()["sign_count"] == expected["new_sign_count"]
    else:
        assert result.code == 1, result
        assert result.json()["valid"] is False, result


@pytest.mark.parametrize("vector", [v for v in AUTHENTICATION if _is_ml_dsa(v)], ids=lambda v: v["name"])
def test_ml_dsa_authentication_vector_refused_as_unsupported(umfa, write_json, vector):
    out = umfa.refused(*_authentication_args(write_json, vector))
    assert out["error"] == "unsupportedAlgorithm", out


@pytest.mark.parametrize("name", sorted(SHIPPED_ANCHORS))
def test_shipped_roots_are_required_when_asked(umfa, write_json, name):
    """--require-trusted passes on the shipped roots, and fails with --no-well-known-roots."""
    vector = next(v for v in REGISTRATION if v["name"] == name)
    args = registration_args(write_json(vector["response"], "registration"), vector["challenge"], _origins(vector),
                             vector["rp_id"], vector["require_user_verification"])
    if vector["verification_time"]:
        args += ["--at", vector["verification_time"]]
    assert umfa.run(*args, "--require-trusted").code == 0
    out = umfa.refused(*args, "--require-trusted", "--no-well-known-roots")
    assert out["error"] == "untrustedAttestation" and out["step"] == "7.1 step 24", out


def _metadata_blob(tmp_path, entries):
    """An MDS3 BLOB signed (ES256) by a fresh signer under a fresh root, as files."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    from cryptography.x509.oid import NameOID

    def name(cn):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    start = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
    end = datetime.datetime(2040, 1, 1, tzinfo=datetime.timezone.utc)
    root_key, signer_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    root = (x509.CertificateBuilder().subject_name(name("Test MDS Root")).issuer_name(name("Test MDS Root"))
            .public_key(root_key.public_key()).serial_number(1).not_valid_before(start).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(root_key, hashes.SHA256()))
    signer = (x509.CertificateBuilder().subject_name(name("Test MDS Signer")).issuer_name(root.subject)
              .public_key(signer_key.public_key()).serial_number(2).not_valid_before(start).not_valid_after(end)
              .sign(root_key, hashes.SHA256()))

    def b64u(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    header = {"alg": "ES256", "typ": "JWT",
              "x5c": [base64.b64encode(signer.public_bytes(serialization.Encoding.DER)).decode()]}
    payload = {"legalHeader": "test", "no": 7, "nextUpdate": "2030-01-01", "entries": entries}
    signing_input = f"{b64u(json.dumps(header).encode())}.{b64u(json.dumps(payload).encode())}"
    r, s = decode_dss_signature(signer_key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    blob = tmp_path / "blob.jwt"
    blob.write_text(f"{signing_input}.{b64u(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}")
    root_file = tmp_path / "mds-root.pem"
    root_file.write_bytes(root.public_bytes(serialization.Encoding.PEM))
    return blob, root_file


def test_metadata_names_and_revokes(umfa, write_json, tmp_path):
    """--metadata: the BLOB's description names the model; a compromised model is refused at step 23."""
    yubikey = next(v for v in REGISTRATION if v["name"] == "test_verify_attestation_from_yubikey_firefox[packed]")
    apple = next(v for v in REGISTRATION if v["name"] == "test_verify_attestation_apple_passkey")
    blob, root = _metadata_blob(tmp_path, [
        {"aaguid": yubikey["expected"]["aaguid"], "metadataStatement": {"description": "YubiKey 5 Series"},
         "statusReports": [{"status": "FIDO_CERTIFIED_L1", "effectiveDate": "2020-05-12"}]},
        {"aaguid": apple["expected"]["aaguid"], "metadataStatement": {"description": "Leaky Passkey"},
         "statusReports": [{"status": "USER_KEY_REMOTE_COMPROMISE", "effectiveDate": "2020-05-12"}]},
    ])
    metadata = ["--metadata", blob, "--metadata-root", root]

    args = registration_args(write_json(yubikey["response"], "registration"), yubikey["challenge"],
                             _origins(yubikey), yubikey["rp_id"])
    out = umfa.run(*args, *metadata).json()
    assert out["authenticator_name"] == "YubiKey 5 Series" and out["trust"] == "trusted", out

    args = registration_args(write_json(apple["response"], "registration"), apple["challenge"], _origins(apple),
                             apple["rp_id"]) + ["--at", apple["verification_time"]]
    out = umfa.refused(*args, *metadata)
    assert out["error"] == "authenticatorRevoked" and out["step"] == "7.1 step 23", out

    # A BLOB under another root than the one named is refused before anything is verified.
    result = umfa.run(*args, "--metadata", blob)
    assert result.code != 0 and "metadata" in result.stderr, result


YUBICO = _load("yubico-real-examples.json")


@pytest.mark.parametrize("vector", YUBICO, ids=lambda v: v["name"])
def test_yubico_real_example(umfa, write_json, vector):
    """Yubico's RealExamples registrations through `umfa verify registration`: format, type, trust."""
    registration = vector["registration"]
    attestation_object = base64url_to_bytes(registration["attestationObject"])
    # The credential id sits after rpIdHash(32) flags(1) signCount(4) aaguid(16) length(2) in authData.
    auth_data = cbor2.loads(attestation_object)["authData"]
    length = int.from_bytes(auth_data[53:55], "big")
    credential_id = base64.urlsafe_b64encode(auth_data[55:55 + length]).rstrip(b"=").decode()
    response = {"id": credential_id, "rawId": credential_id, "type": "public-key",
                "response": {"clientDataJSON": registration["clientDataJSON"],
                             "attestationObject": registration["attestationObject"]},
                "clientExtensionResults": registration.get("clientExtensionResults", {})}
    args = registration_args(write_json(response, "registration"), registration["challenge"], [vector["origin"]],
                             vector["rp_id"])
    if vector["verification_time"]:
        args += ["--at", vector["verification_time"]]
    if not vector["expected"]["valid"]:
        out = umfa.refused(*args)
        assert out["error"] == vector["expected"]["error"], out
        return
    result = umfa.run(*args, "--require-trusted") if vector["fmt"] != "none" else umfa.run(*args)
    assert result.code == 0, result
    out = result.json()
    assert out["fmt"] == vector["fmt"] and out["credential_id"] == credential_id, out
    assert out["trust"] == ("none" if vector["fmt"] == "none" else "trusted"), out
    assert out["attestation_type"] in {"none", "basic", "attca", "anonca"}, out


def test_serve_refuses_metadata_not_signed_under_the_fido_root(umfa, write_json, tmp_path):
    """`umfa serve --metadata` verifies the BLOB to GlobalSign Root CA - R3 before it listens."""
    blob, _ = _metadata_blob(tmp_path, [])
    result = umfa.run("serve", "--port", "0", "--data-dir", tmp_path / "data", "--no-default-app",
                      "--metadata", blob)
    assert result.code != 0, result
    assert "blob.jwt" in result.stderr and "FIDO metadata root" in result.stderr, result
    garbage = tmp_path / "garbage.jwt"
    garbage.write_text("not a jws")
    result = umfa.run("serve", "--port", "0", "--data-dir", tmp_path / "data", "--no-default-app",
                      "--metadata", garbage)
    assert result.code != 0 and "three dot-separated parts" in result.stderr, result
