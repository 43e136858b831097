"""Live server 2: an independent JWT library (PyJWT) validates UMFA's login tokens with the keys
from GET /.well-known/jwks.json (docs/contract.md §2, "Login token (JWT)")."""

import base64
import json
import re
from datetime import datetime, timezone

import jwt
import pytest
from jwt import PyJWKClient

from support import ADMIN_TOKEN, UUID

ISSUER = "UMFA::Authenticator"
RFC3339_FRACTIONAL_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$")


def b64u_json(segment: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.fixture
def tokens(device):
    """A registration token and a login token for alice."""
    return device.register("alice")["token"], device.login("alice")["token"]


def decode(server, token):
    key = PyJWKClient(f"{server.base}/.well-known/jwks.json").get_signing_key_from_jwt(token)
    return jwt.decode(token, key.key, algorithms=["RS256"], audience=server.app_id, issuer=ISSUER,
                      options={"require": ["iss", "sub", "aud", "iat", "exp", "jti"]})


def test_pyjwt_validates_the_login_token(server, tokens):
    jwks = server.get("/.well-known/jwks.json")
    assert jwks.status_code == 200, jwks.text
    kids = {k["kid"] for k in jwks.json()["keys"]}
    for token in tokens:
        header = jwt.get_unverified_header(token)
        assert header["typ"] == "JWT" and header["alg"] == "RS256", header
        assert header["iss"] == ISSUER, header
        assert header["kid"] in kids, (header, kids)

        claims = decode(server, token)
        assert claims["sub"] == "UMFA_login", claims
        assert claims["iss"] == ISSUER, claims
        assert claims["aud"] == [ISSUER, server.app_id], claims
        assert claims["user_id"] == "alice", claims
        assert claims["application_id"] == server.app_id, claims
        assert isinstance(claims["credential_id"], str) and claims["credential_id"], claims
        assert UUID.match(claims["jti"]), claims
        assert claims["exp"] - claims["iat"] == 300, claims
        assert RFC3339_FRACTIONAL_UTC.match(claims["webauthn_time"]), claims
        webauthn_time = datetime.fromisoformat(claims["webauthn_time"].replace("Z", "+00:00"))
        assert abs(webauthn_time.timestamp() - claims["iat"]) < 60, claims
        assert webauthn_time.tzinfo == timezone.utc
        assert isinstance(claims["amr"], list) and "swk" in claims["amr"], claims
        assert "userpw_time" not in claims, "userpw_time without an enrollment token"
    first, second = (decode(server, t) for t in tokens)
    assert first["jti"] != second["jti"]
    assert first["credential_id"] == second["credential_id"]


def test_pyjwt_refuses_a_tampered_token(server, tokens):
    token = tokens[1]
    header, payload, signature = token.split(".")
    claims = b64u_json(payload)

    forged_user = dict(claims, user_id="mallory")
    forged = ".".join([header, b64u(json.dumps(forged_user).encode()), signature])
    with pytest.raises(jwt.InvalidSignatureError):
        decode(server, forged)

    flipped = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
    flipped[-1] ^= 1
    with pytest.raises(jwt.InvalidSignatureError):
        decode(server, ".".join([header, payload, b64u(bytes(flipped))]))

    # The server refuses the same forgery.
    response = server.post("/api/umfa/validate-token",
                           {"application_id": server.app_id, "user_id": "mallory", "token": forged},
                           bearer=server.api_key)
    assert response.status_code == 401, response.text

    # Another audience: PyJWT refuses a token issued for the development app as another app's.
    key = PyJWKClient(f"{server.base}/.well-known/jwks.json").get_signing_key_from_jwt(token)
    with pytest.raises(jwt.InvalidAudienceError):
        jwt.decode(token, key.key, algorithms=["RS256"], audience="00000000-0000-4000-8000-000000000000",
                   issuer=ISSUER)


@pytest.mark.parametrize("algorithm", ["ES256", "EdDSA"])
def test_pyjwt_validates_es256_and_eddsa_login_tokens(server, device, algorithm):
    """An application set to ES256 or EdDSA (docs/contract.md §2): PyJWT, with only the JWKS, checks
    the signature; the key type is the one the algorithm needs; RS256 is not accepted for it."""
    changed = server.ok("PATCH", f"/api/admin/applications/{server.app_id}", {"token_signing_alg": algorithm},
                        bearer=ADMIN_TOKEN)
    assert changed["token_signing_alg"] == algorithm, changed
    device.register("alice")
    token = device.login("alice")["token"]
    header = jwt.get_unverified_header(token)
    assert header["alg"] == algorithm and header["typ"] == "JWT", header

    key = PyJWKClient(f"{server.base}/.well-known/jwks.json").get_signing_key_from_jwt(token)
    jwk = next(k for k in server.get("/.well-known/jwks.json").json()["keys"] if k["kid"] == header["kid"])
    assert (jwk["kty"], jwk.get("crv")) == {"ES256": ("EC", "P-256"), "EdDSA": ("OKP", "Ed25519")}[algorithm], jwk
    claims = jwt.decode(token, key.key, algorithms=[algorithm], audience=server.app_id, issuer=ISSUER)
    assert claims["user_id"] == "alice" and claims["sub"] == "UMFA_login", claims
    with pytest.raises(jwt.InvalidAlgorithmError):
        jwt.decode(token, key.key, algorithms=["RS256"], audience=server.app_id, issuer=ISSUER)

    # A tampered claim fails PyJWT's check and the server's.
    head, payload, signature = token.split(".")
    forged = ".".join([head, b64u(json.dumps(dict(b64u_json(payload), user_id="mallory")).encode()), signature])
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(forged, key.key, algorithms=[algorithm], audience=server.app_id, issuer=ISSUER)
    response = server.post("/api/umfa/validate-token",
                           {"application_id": server.app_id, "user_id": "mallory", "token": forged},
                           bearer=server.api_key)
    assert response.status_code == 401, response.text
    ok = server.post("/api/umfa/validate-token", {"application_id": server.app_id, "user_id": "alice",
                                                    "token": token}, bearer=server.api_key)
    assert ok.status_code == 200, ok.text
