"""WebAuthn Level 3 request settings and credential properties over a live server (WebAuthn
L3 §5.8.7 hints, §10.1.3 credProps, §10.1.4 prf; CTAP 2.1 credProtect): `umfa admin update-app
--hint / --attestation-format / --credential-protection-policy` shape the options, which
py_webauthn's own parser reads back; credProps.rk and prf.enabled reported by the client are stored
and listed; the PRF outputs a client reports never reach the server's data directory or its
output."""

import json

from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers import parse_authentication_options_json, parse_registration_options_json
from webauthn.helpers.structs import COSEAlgorithmIdentifier, PublicKeyCredentialHint

from support import ADMIN_TOKEN, Device, VirtualAuthenticator, assert_error

SECRET = bytes_to_base64url(b"a PRF output only the client may know")


def admin(umfa, server, *args):
    return umfa.run_env({"UMFA_ADMIN_TOKEN": ADMIN_TOKEN}, "admin", args[0], "--server", server.base, *args[1:])


def test_settings_from_the_cli_shape_the_options(umfa, server):
    updated = admin(umfa, server, "update-app", "--app", server.app_id, "--hint", "security-key", "--hint", "hybrid",
                    "--attestation-format", "packed", "--attestation-format", "none",
                    "--credential-protection-policy", "userVerificationOptionalWithCredentialIDList",
                    "--enforce-credential-protection-policy", "true")
    assert updated.code == 0, updated
    shown = updated.json()
    assert shown["hints"] == ["security-key", "hybrid"], shown
    assert shown["attestation_formats"] == ["packed", "none"], shown
    assert shown["credential_protection_policy"] == "userVerificationOptionalWithCredentialIDList", shown
    assert shown["enforce_credential_protection_policy"] is True, shown

    salt = bytes(range(32))
    options = server.ok("POST", "/api/umfa/registration/options",
                        {"application_id": server.app_id, "user_id": "alice",
                         "prf": {"eval": {"first": bytes_to_base64url(salt)}}})["publicKey"]
    # py_webauthn 3.0.1 has no name for ES384 (-35), which UMFA offers: parse without it.
    known = {alg.value for alg in COSEAlgorithmIdentifier}
    parsed = parse_registration_options_json(json.dumps(
        {**options, "pubKeyCredParams": [p for p in options["pubKeyCredParams"] if p["alg"] in known]}))
    assert parsed.hints == [PublicKeyCredentialHint.SECURITY_KEY, PublicKeyCredentialHint.HYBRID]
    assert options["attestationFormats"] == ["packed", "none"]
    extensions = options["extensions"]
    assert extensions["credProps"] is True
    assert extensions["credentialProtectionPolicy"] == "userVerificationOptionalWithCredentialIDList"
    assert extensions["enforceCredentialProtectionPolicy"] is True
    assert base64url_to_bytes(extensions["prf"]["eval"]["first"]) == salt

    request = server.ok("POST", "/api/umfa/authentication/options",
                        {"application_id": server.app_id, "hints": ["client-device"]})["publicKey"]
    # py_webauthn's request options have no hints member: it still reads the rest of them.
    assert parse_authentication_options_json(json.dumps(request)).rp_id == "localhost"
    assert request["hints"] == ["client-device"]

    refused = admin(umfa, server, "update-app", "--app", server.app_id, "--hint", "bluetooth")
    assert refused.code != 0 and "hints" in (refused.stderr + refused.stdout), refused
    assert_error(server.post("/api/umfa/registration/options",
                             {"application_id": server.app_id, "user_id": "alice",
                              "prf": {"eval": {"first": "*not base64url*"}}}), 400)


def test_credprops_and_prf_enabled_are_stored_and_listed(server, authenticator, umfa, write_json, tmp_path):
    device = Device(server, authenticator, server.app_id)
    options = device.registration_options("alice", prf={})
    assert options["publicKey"]["extensions"]["prf"] == {}
    response = authenticator.register(options, origin=device.origin, uv=True)
    credential = dict(response.data)
    # What a browser reports for a discoverable, PRF-capable passkey, outputs included.
    credential["clientExtensionResults"] = {"credProps": {"rk": True},
                                            "prf": {"enabled": True, "results": {"first": SECRET}}}
    verified = server.ok("POST", "/api/umfa/registration/verify",
                         {"application_id": server.app_id, "user_id": "alice", "credential": credential})
    assert verified["discoverable"] is True and verified["prf_enabled"] is True, verified

    listed = server.ok("GET", f"/api/umfa/users/alice/credentials?application_id={server.app_id}",
                       bearer=server.api_key)["credentials"]
    assert [(c["discoverable"], c["prf_enabled"]) for c in listed] == [(True, True)], listed
    mine = server.ok("GET", "/api/umfa/me/credentials", bearer=verified["token"])["credentials"]
    assert [(c["discoverable"], c["prf_enabled"]) for c in mine] == [(True, True)], mine

    # A second passkey whose client said nothing: both unknown (null), not false.
    other = VirtualAuthenticator(umfa, write_json, tmp_path / "second-state")
    second = other.register(device.registration_options("alice", token=verified["token"]), origin=device.origin,
                            uv=True)
    plain = dict(second.data)
    plain["clientExtensionResults"] = {}
    answered = server.ok("POST", "/api/umfa/registration/verify",
                         {"application_id": server.app_id, "user_id": "alice", "credential": plain})
    assert "discoverable" not in answered and "prf_enabled" not in answered, answered
    listed = server.ok("GET", f"/api/umfa/users/alice/credentials?application_id={server.app_id}",
                       bearer=server.api_key)["credentials"]
    assert sorted((c["discoverable"] is None, c["prf_enabled"] is None) for c in listed) == [(False, False),
                                                                                             (True, True)], listed

    assert SECRET not in server.stdout and SECRET not in server.stderr
    for path in server.data_dir.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), f"{path.name} holds prf.results"
