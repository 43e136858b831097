"""Related Origin Requests (WebAuthn L3 §5.11) over a live `umfa serve`: an application with
`related_origins` publishes them at /.well-known/webauthn for its RP ID's host, and a passkey
ceremony whose clientDataJSON.origin is a related origin verifies, while one from an origin on
no list is refused. The client and authenticator here are written with python-fido2's data
types and `cryptography` keys, independently of UMFA's own software authenticator."""

from __future__ import annotations

import hashlib
import secrets

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2.cose import ES256
from fido2.webauthn import AttestationObject, AttestedCredentialData, AuthenticatorData, CollectedClientData
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url

from support import ADMIN_TOKEN, assert_error

RP_ID = "shop.example"
OWN_ORIGIN = "https://shop.example"
RELATED = ["https://shop.example.co.uk", "https://www.shop-outlet.example"]
STRANGER = "https://shop.example.net"
FLAGS = AuthenticatorData.FLAG


class Passkey:
    """A P-256 passkey held by a client on `origin`: builds the responses a browser that has
    checked /.well-known/webauthn would send."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = secrets.token_bytes(32)
        self.counter = 0

    def create(self, options: dict, origin: str) -> dict:
        public_key = options["publicKey"]
        client_data = CollectedClientData.create(
            type="webauthn.create", challenge=base64url_to_bytes(public_key["challenge"]), origin=origin)
        attested = AttestedCredentialData.create(
            bytes(16), self.credential_id, ES256.from_cryptography_key(self.key.public_key()))
        auth_data = AuthenticatorData.create(
            hashlib.sha256(public_key["rp"]["id"].encode()).digest(), FLAGS.UP | FLAGS.UV | FLAGS.AT, 0, attested)
        attestation = AttestationObject.create("none", auth_data, {})
        return {
            "id": bytes_to_base64url(self.credential_id), "rawId": bytes_to_base64url(self.credential_id),
            "type": "public-key", "clientExtensionResults": {},
            "response": {"clientDataJSON": bytes_to_base64url(bytes(client_data)),
                         "attestationObject": bytes_to_base64url(bytes(attestation))},
        }

    def get(self, options: dict, origin: str) -> dict:
        public_key = options["publicKey"]
        client_data = CollectedClientData.create(
            type="webauthn.get", challenge=base64url_to_bytes(public_key["challenge"]), origin=origin)
        self.counter += 1
        auth_data = bytes(AuthenticatorData.create(
            hashlib.sha256(public_key["rpId"].encode()).digest(), FLAGS.UP | FLAGS.UV, self.counter))
        signature = self.key.sign(auth_data + hashlib.sha256(bytes(client_data)).digest(),
                                  ec.ECDSA(hashes.SHA256()))
        return {
            "id": bytes_to_base64url(self.credential_id), "rawId": bytes_to_base64url(self.credential_id),
            "type": "public-key", "clientExtensionResults": {},
            "response": {"clientDataJSON": bytes_to_base64url(bytes(client_data)),
                         "authenticatorData": bytes_to_base64url(auth_data),
                         "signature": bytes_to_base64url(signature)},
        }


def create_app(server) -> str:
    app = server.ok("POST", "/api/admin/applications",
                    {"name": "Shop", "rp_id": RP_ID, "origins": [OWN_ORIGIN], "related_origins": RELATED,
                     "enrollment_policy": "open"}, status=201, bearer=ADMIN_TOKEN)
    assert app["related_origins"] == RELATED, app
    return app["application_id"]


def test_well_known_webauthn_names_the_related_origins_per_host(server):
    create_app(server)
    for host in (RP_ID, f"{RP_ID}:{server.port}"):
        document = server.get("/.well-known/webauthn", headers={"Host": host})
        assert document.status_code == 200, document.text
        assert document.headers["Content-Type"] == "application/json", document.headers
        assert document.json() == {"origins": RELATED}, document.text
    # The development application (rp_id localhost) lists none; an unknown host has none.
    for host in ("localhost", "unknown.example", f"127.0.0.1:{server.port}"):
        assert_error(server.get("/.well-known/webauthn", headers={"Host": host}), 404)


def test_a_ceremony_from_a_related_origin_verifies_and_one_from_elsewhere_is_refused(server):
    app_id = create_app(server)
    passkey = Passkey()

    options = server.ok("POST", "/api/umfa/registration/options", {"application_id": app_id, "user_id": "alice"})
    assert options["publicKey"]["rp"]["id"] == RP_ID, options
    registered = server.ok("POST", "/api/umfa/registration/verify",
                           {"application_id": app_id, "user_id": "alice",
                            "credential": passkey.create(options, RELATED[0])})
    assert registered["credential_id"] == bytes_to_base64url(passkey.credential_id), registered

    for origin in RELATED + [OWN_ORIGIN]:
        options = server.ok("POST", "/api/umfa/authentication/options", {"application_id": app_id, "user_id": "alice"})
        signed_in = server.ok("POST", "/api/umfa/authentication/verify",
                              {"application_id": app_id, "user_id": "alice",
                               "credential": passkey.get(options, origin)})
        assert signed_in["user_id"] == "alice" and signed_in["token"].count(".") == 2, signed_in

    # A correctly signed assertion from an origin on no list is refused...
    options = server.ok("POST", "/api/umfa/authentication/options", {"application_id": app_id, "user_id": "alice"})
    refused = server.post("/api/umfa/authentication/verify",
                          {"application_id": app_id, "user_id": "alice", "credential": passkey.get(options, STRANGER)})
    assert "token" not in assert_error(refused, 401)

    # ...and so is a registration from it.
    stranger = Passkey()
    options = server.ok("POST", "/api/umfa/registration/options", {"application_id": app_id, "user_id": "bob"})
    refused = server.post("/api/umfa/registration/verify",
                          {"application_id": app_id, "user_id": "bob", "credential": stranger.create(options, STRANGER)})
    assert refused.status_code in (400, 401), refused.text
    assert "token" not in refused.json(), refused.text


def test_umfa_admin_sets_checks_and_clears_related_origins(server, umfa):
    app_id = create_app(server)
    admin = ("admin", "update-app", "--server", server.base, "--admin-token", ADMIN_TOKEN, "--app", app_id)
    origins = ["https://shop.example.de", "https://www.shop-outlet.example"]
    shown = umfa.ok(*admin, *[arg for origin in origins for arg in ("--related-origin", origin)]).json()
    assert shown["related_origins"] == origins, shown
    assert server.get("/.well-known/webauthn", headers={"Host": RP_ID}).json() == {"origins": origins}

    # Six labels: refused by the server, named by the message, and nothing changes.
    six = [f"https://{label}.example" for label in ("a", "b", "c", "d", "e", "f")]
    refused = umfa.run(*admin, *[arg for origin in six for arg in ("--related-origin", origin)])
    assert refused.code != 0 and "related_origins" in refused.stdout + refused.stderr, refused
    assert "6 distinct labels" in refused.stdout + refused.stderr, refused
    assert server.get("/.well-known/webauthn", headers={"Host": RP_ID}).json() == {"origins": origins}

    cleared = umfa.ok(*admin, "--clear-related-origins").json()
    assert cleared["related_origins"] == [], cleared
    assert_error(server.get("/.well-known/webauthn", headers={"Host": RP_ID}), 404)
