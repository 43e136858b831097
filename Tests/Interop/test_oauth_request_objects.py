"""Request objects (RFC 9101) made by PyJWT with a key from `cryptography`: the authorization and
PAR endpoints take a signed `request` whose parameters replace the query's, and refuse one with
alg none, one signed with another key, and one replayed (docs/contract.md §5)."""

import base64
import hashlib
import secrets
import time
from urllib.parse import parse_qs, urlsplit

import jwt
import requests
from cryptography.hazmat.primitives.asymmetric import ec

from support import ADMIN_TOKEN

REDIRECT = "https://rp.example/callback"


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def public_jwk(key: ec.EllipticCurvePrivateKey, kid: str) -> dict:
    numbers = key.public_key().public_numbers()
    return {"kty": "EC", "crv": "P-256", "kid": kid, "x": b64u(numbers.x.to_bytes(32, "big")),
            "y": b64u(numbers.y.to_bytes(32, "big"))}


def signed_request(key, client_id: str, issuer: str, **overrides) -> str:
    verifier = secrets.token_urlsafe(48)
    claims = {"iss": client_id, "aud": issuer, "exp": int(time.time()) + 300, "jti": secrets.token_hex(16),
              "client_id": client_id, "response_type": "code", "redirect_uri": REDIRECT, "scope": "openid",
              "state": "inside", "nonce": "n", "code_challenge_method": "S256",
              "code_challenge": b64u(hashlib.sha256(verifier.encode()).digest())}
    claims.update(overrides)
    return jwt.encode(claims, key, algorithm="ES256", headers={"kid": "k1", "typ": "oauth-authz-req+jwt"})


def error_of(response: requests.Response) -> dict:
    assert response.status_code in (302, 303), f"{response.status_code} {response.text[:200]}"
    return {k: v[0] for k, v in parse_qs(urlsplit(response.headers["Location"]).query).items()}


def test_pyjwt_request_objects_at_authorize_and_par(server):
    key = ec.generate_private_key(ec.SECP256R1())
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Signed requests", "redirect_uris": [REDIRECT],
                        "grant_types": ["authorization_code"], "response_types": ["code"], "scope": "openid",
                        "jwks": {"keys": [public_jwk(key, "k1")]}, "require_signed_request_object": True},
                       bearer=ADMIN_TOKEN, status=201)
    issuer = f"{server.origin}/oidc/{server.app_id}"
    discovery = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert discovery["request_parameter_supported"] is True
    assert "none" not in discovery["request_object_signing_alg_values_supported"]
    authorize = discovery["authorization_endpoint"]

    good = signed_request(key, client["client_id"], issuer)
    page = requests.get(authorize, params={"client_id": client["client_id"], "request": good},
                        allow_redirects=False, timeout=10)
    assert page.status_code == 200 and 'content="sign-in"' in page.text, page.text[:300]
    replayed = requests.get(authorize, params={"client_id": client["client_id"], "request": good,
                                               "redirect_uri": REDIRECT, "state": "outer"},
                            allow_redirects=False, timeout=10)
    assert error_of(replayed)["error"] == "invalid_request_object"

    unsigned = jwt.encode({"iss": client["client_id"], "aud": issuer, "response_type": "code"}, None,
                          algorithm="none")
    stranger = signed_request(ec.generate_private_key(ec.SECP256R1()), client["client_id"], issuer)
    for forged in (unsigned, stranger):
        answer = requests.get(authorize, params={"client_id": client["client_id"], "request": forged,
                                                 "redirect_uri": REDIRECT, "state": "outer"},
                              allow_redirects=False, timeout=10)
        refused = error_of(answer)
        assert refused["error"] == "invalid_request_object" and refused["state"] == "outer", refused

    plain = requests.get(authorize, params={"client_id": client["client_id"], "response_type": "code",
                                            "redirect_uri": REDIRECT, "state": "s", "scope": "openid",
                                            "code_challenge_method": "S256", "code_challenge": "x" * 43},
                         allow_redirects=False, timeout=10)
    assert error_of(plain)["error"] == "invalid_request"

    pushed = requests.post(discovery["pushed_authorization_request_endpoint"],
                           data={"request": signed_request(key, client["client_id"], issuer)},
                           auth=(client["client_id"], client["client_secret"]), timeout=10)
    assert pushed.status_code == 201, pushed.text
    page = requests.get(authorize, params={"client_id": client["client_id"],
                                           "request_uri": pushed.json()["request_uri"]},
                        allow_redirects=False, timeout=10)
    assert page.status_code == 200, page.text[:300]
