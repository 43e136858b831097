"""Token signing keys in an HSM through PKCS #11 (docs/operators/hsm.md), with SoftHSM2 from
Debian as the token and OpenSC's pkcs11-tool to make the keys: UMFA signs ES256 and RS256
tokens through the module, publishes the token's public keys in JWKS under their kid (PyJWT
checks the tokens against it), never holds the private keys, and a missing module, a wrong PIN
or a key taken off the token is a clear error, never a crash."""

import base64
import json
import os
import subprocess
from pathlib import Path

import sqlite3

import jwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from support import ADMIN_TOKEN, Device, assert_error

MODULE = "/usr/lib/softhsm/libsofthsm2.so"
PIN = "246810"


class SoftHSM:
    """A SoftHSM2 token of its own (its own configuration and token directory)."""

    def __init__(self, directory: Path):
        directory.mkdir()
        (directory / "tokens").mkdir()
        self.config = directory / "softhsm2.conf"
        self.config.write_text(f"directories.tokendir = {directory / 'tokens'}\nobjectstore.backend = file\n")
        self.env = {**os.environ, "SOFTHSM2_CONF": str(self.config)}
        self.pin_file = directory / "pin"
        self.pin_file.write_text(PIN + "\n")
        os.chmod(self.pin_file, 0o600)
        self.run("softhsm2-util", "--init-token", "--free", "--label", "umfa", "--pin", PIN, "--so-pin", "13579")

    def run(self, *args: str) -> str:
        done = subprocess.run(list(args), env=self.env, capture_output=True, text=True)
        assert done.returncode == 0, done
        return done.stdout

    def tool(self, *args: str) -> str:
        return self.run("pkcs11-tool", "--module", MODULE, "--token-label", "umfa", "--login", "--pin", PIN, *args)

    def keypair(self, key_type: str, label: str, key_id: str) -> None:
        self.tool("--keypairgen", "--key-type", key_type, "--label", label, "--id", key_id)

    def public_key(self, label: str):
        der = subprocess.run(["pkcs11-tool", "--module", MODULE, "--token-label", "umfa", "--read-object",
                              "--type", "pubkey", "--label", label], env=self.env, capture_output=True, check=True)
        return serialization.load_der_public_key(der.stdout)

    def server_env(self, **extra: str) -> dict[str, str]:
        return {"SOFTHSM2_CONF": str(self.config), "UMFA_PKCS11_MODULE": MODULE,
                "UMFA_PKCS11_PIN_FILE": str(self.pin_file), **extra}


@pytest.fixture
def hsm(tmp_path) -> SoftHSM:
    token = SoftHSM(tmp_path / "hsm")
    token.keypair("EC:prime256v1", "es256", "01")
    token.keypair("rsa:2048", "rs256", "02")
    return token


def jwks_key(server, kid: str):
    keys = {key["kid"]: key for key in requests.get(server.base + "/.well-known/jwks.json").json()["keys"]}
    assert kid in keys, keys.keys()
    return jwt.PyJWK(keys[kid])


def signed_in_token(server, device, user: str) -> str:
    device.register(user)
    return device.login(user)["token"]


def test_tokens_signed_in_the_hsm_verify_against_jwks_with_pyjwt(serve, umfa, authenticator, hsm, tmp_path):
    server = serve(env=hsm.server_env())
    es = server.ok("POST", "/api/admin/signing-keys",
                   {"pkcs11_uri": "pkcs11:token=umfa;object=es256", "alg": "ES256"}, bearer=ADMIN_TOKEN, status=201)
    rotated = umfa.run_env({"UMFA_ADMIN_TOKEN": ADMIN_TOKEN}, "admin", "rotate-signing-key", "--server", server.base,
                           "--pkcs11-uri", "pkcs11:token=umfa;id=%02", "--alg", "RS256")
    assert rotated.code == 0, rotated
    rs_kid = rotated.json()["kids"]["RS256"]
    es_kid = es["kids"]["ES256"]
    assert set(es["kids"]) == {"ES256"}

    # JWKS publishes the token's own public keys.
    for kid, label in ((es_kid, "es256"), (rs_kid, "rs256")):
        published = jwks_key(server, kid).key
        assert published.public_numbers() == hsm.public_key(label).public_numbers()

    device = Device(server, authenticator, server.app_id)
    for alg, kid in (("RS256", rs_kid), ("ES256", es_kid)):
        server.ok("PATCH", f"/api/admin/applications/{server.app_id}", {"token_signing_alg": alg}, bearer=ADMIN_TOKEN)
        token = signed_in_token(server, device, f"user-{alg.lower()}")
        header = jwt.get_unverified_header(token)
        assert header["alg"] == alg and header["kid"] == kid
        claims = jwt.decode(token, jwks_key(server, kid), algorithms=[alg], audience=server.app_id,
                            options={"verify_aud": False})
        assert claims["user_id"] == f"user-{alg.lower()}" and claims["application_id"] == server.app_id
        server.ok("POST", "/api/umfa/validate-token",
                  {"application_id": server.app_id, "user_id": f"user-{alg.lower()}", "token": token},
                  bearer=server.api_key)

    # The same pair again is the same key (a retried request), not a second one.
    again = server.ok("POST", "/api/admin/signing-keys",
                      {"pkcs11_uri": "pkcs11:token=umfa;object=es256", "alg": "ES256"}, bearer=ADMIN_TOKEN, status=201)
    assert again["kids"] == {"ES256": es_kid}

    # The database holds no private key of these two: their sealed "private half" opens (with
    # the master key, by Python's AES-GCM) to the URI alone.
    master = (server.data_dir / "master.key").read_bytes()
    with sqlite3.connect(server.data_dir / "umfa.sqlite") as db:
        stored = dict(db.execute("SELECT kid, sealed_private_key FROM signing_keys"))
    for kid, uri in ((es_kid, "pkcs11:token=umfa;object=es256"), (rs_kid, "pkcs11:token=umfa;id=%02")):
        sealed = base64.urlsafe_b64decode(stored[kid] + "=" * (-len(stored[kid]) % 4))
        opened = AESGCM(master).decrypt(sealed[:12], sealed[12:], f"signing-key:{kid}".encode())
        assert opened == uri.encode()
    assert PIN not in server.stderr + server.stdout

    # A key taken off the token: signing with it is a clear 503, the server lives on, and the
    # tokens it signed before still validate (the public key is known).
    earlier = signed_in_token(server, device, "before-removal")
    hsm.tool("--delete-object", "--type", "privkey", "--label", "es256")
    options = server.ok("POST", "/api/umfa/authentication/options",
                        {"application_id": server.app_id, "user_id": "before-removal"})
    assertion = authenticator.get(options, origin=server.origin).data
    refused = server.post("/api/umfa/authentication/verify",
                          {"application_id": server.app_id, "user_id": "before-removal", "credential": assertion})
    error = assert_error(refused, 503)
    assert "HSM" in error["message"] and PIN not in refused.text
    assert server.running and server.get("/health").status_code == 200
    server.ok("POST", "/api/umfa/validate-token",
              {"application_id": server.app_id, "user_id": "before-removal", "token": earlier}, bearer=server.api_key)
    assert "no private key matches pkcs11:token=umfa;object=es256" in server.stderr
    server.stop()

    # At start: the current ES256 key is gone from the token, which stops the start with the reason.
    gone = serve(data_dir=server.data_dir, env=hsm.server_env(), start=False)
    assert gone.wait_exit(timeout=60) != 0
    assert "no private key matches pkcs11:token=umfa;object=es256" in gone.logs()


def test_a_wrong_pin_or_a_missing_module_stops_the_start_clearly(serve, hsm, tmp_path):
    server = serve(env=hsm.server_env())
    server.ok("POST", "/api/admin/signing-keys",
              {"pkcs11_uri": "pkcs11:token=umfa;object=rs256", "alg": "RS256"}, bearer=ADMIN_TOKEN, status=201)
    # Refusals of the admin API: a PIN in the URI, an unknown key, EdDSA.
    for body, words in (({"pkcs11_uri": "pkcs11:token=umfa;object=rs256?pin-value=1", "alg": "RS256"}, "PIN"),
                        ({"pkcs11_uri": "pkcs11:token=umfa;object=nothing", "alg": "ES256"}, "no public key"),
                        ({"pkcs11_uri": "pkcs11:token=umfa;object=es256", "alg": "EdDSA"}, "ES256 or RS256"),
                        ({"pkcs11_uri": "pkcs11:token=umfa;object=es256", "alg": "RS256"}, "RSA")):
        answer = server.post("/api/admin/signing-keys", body, bearer=ADMIN_TOKEN)
        assert words in assert_error(answer, 400)["message"], answer.text
    server.stop()

    wrong_pin = tmp_path / "wrong-pin"
    wrong_pin.write_text("111111\n")
    os.chmod(wrong_pin, 0o600)
    refused = serve(data_dir=server.data_dir, env=hsm.server_env(UMFA_PKCS11_PIN_FILE=str(wrong_pin)), start=False)
    assert refused.wait_exit(timeout=60) != 0
    assert "is not the token's user PIN" in refused.logs() and "111111" not in refused.logs()

    missing = serve(data_dir=server.data_dir, env=hsm.server_env(UMFA_PKCS11_MODULE="/nonexistent/libpkcs11.so"),
                    start=False)
    assert missing.wait_exit(timeout=60) != 0
    assert "cannot load the PKCS #11 module /nonexistent/libpkcs11.so" in missing.logs()

    # Without a module at all, the stored HSM key is named.
    unset = {k: v for k, v in hsm.server_env().items() if k != "UMFA_PKCS11_MODULE"}
    without = serve(data_dir=server.data_dir, env=unset, start=False)
    assert without.wait_exit(timeout=60) != 0
    assert "set UMFA_PKCS11_MODULE" in without.logs()

    loose = tmp_path / "loose-pin"
    loose.write_text(PIN + "\n")
    os.chmod(loose, 0o644)
    readable = serve(data_dir=server.data_dir, env=hsm.server_env(UMFA_PKCS11_PIN_FILE=str(loose)), start=False)
    assert readable.wait_exit(timeout=60) != 0 and "chmod 600" in readable.logs()

    restarted = serve(data_dir=server.data_dir, env=hsm.server_env())
    assert restarted.get("/health").status_code == 200
    # An empty body and {} still rotate every algorithm's sealed key, as before.
    for body in (None, {}):
        rotated = restarted.ok("POST", "/api/admin/signing-keys", body, bearer=ADMIN_TOKEN, status=201)
        assert set(rotated["kids"]) == {"RS256", "ES256", "EdDSA"}
