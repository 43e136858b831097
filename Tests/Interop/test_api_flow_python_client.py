"""The API-driven authentication flow (DESIGN.md §6, docs/api-flow.md) driven by a client
written here in Python from those two documents alone: no UMFA binary and no Swift type takes
part on the client side.

The pieces, each small and independent of UMFA's code:
- `cbor_encode`: the few CBOR items (RFC 8949) an attestation object needs;
- `SoftwareAuthenticator`: a WebAuthn authenticator with ES256 P-256 keys, discoverable
  credentials, "none" attestation and the W3C JSON encodings of its responses;
- `DPoPKey`: RFC 9449 proofs made with PyJWT;
- `FlowClient`: discovery, the flow token (client_credentials with DPoP), the JSON steps (forms
  and client operations picked by `kind`, sent to the `href`s the steps carry), and the code
  exchange with the ID token checked against the issuer's JWKS.

The tests whose names hold "software" need no server: they check the authenticator and the
DPoP proofs against py_webauthn, PyJWT and jwskate before anything meets UMFA."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urljoin, urlsplit, urlunsplit

import jwt
import pytest
import requests
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn import (generate_authentication_options, generate_registration_options, options_to_json,
                      verify_authentication_response, verify_registration_response)
from webauthn.helpers.exceptions import InvalidAuthenticationResponse
from webauthn.helpers.structs import (AuthenticatorSelectionCriteria, PublicKeyCredentialDescriptor,
                                      ResidentKeyRequirement, UserVerificationRequirement)

from support import ADMIN_TOKEN

FLOW_MEDIA = "application/vnd.auth+json"
PROBLEM_MEDIA = "application/problem+json"
FLOW_SCOPE = "urn:umfa:api-flow"
SIGN_IN_SCOPE = "openid email profile"
REDIRECT_URI = "https://app.example/callback"
STEP_TYPES = {"authentication-step", "registration-step", "user-consent-step", "polling-step",
              "redirection-step", "continue-same-step", "oauth-authorization-response"}
MAX_STEPS = 12


# -- encodings ------------------------------------------------------------------------------


def b64u(data: bytes) -> str:
    """base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64u_decode(text: str) -> bytes:
    """base64url with or without padding."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def compact_json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def _cbor_head(major: int, argument: int) -> bytes:
    """The initial byte and argument of a CBOR item (RFC 8949 §3)."""
    if argument < 24:
        return bytes([major << 5 | argument])
    for additional, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if argument < 1 << (8 * size):
            return bytes([major << 5 | additional]) + argument.to_bytes(size, "big")
    raise ValueError(f"CBOR argument too large: {argument}")


def cbor_encode(value: Any) -> bytes:
    """Integers, byte strings, text strings, arrays and maps (in the order given) as CBOR."""
    if isinstance(value, bool):
        raise TypeError("booleans are not needed here")
    if isinstance(value, int):
        return _cbor_head(0, value) if value >= 0 else _cbor_head(1, -1 - value)
    if isinstance(value, bytes):
        return _cbor_head(2, len(value)) + value
    if isinstance(value, str):
        encoded = value.encode("utf-8")
        return _cbor_head(3, len(encoded)) + encoded
    if isinstance(value, list):
        return _cbor_head(4, len(value)) + b"".join(cbor_encode(item) for item in value)
    if isinstance(value, dict):
        return _cbor_head(5, len(value)) + b"".join(cbor_encode(k) + cbor_encode(v) for k, v in value.items())
    raise TypeError(f"no CBOR encoding for {type(value).__name__}")


def p256_coordinates(public_key: ec.EllipticCurvePublicKey) -> tuple[bytes, bytes]:
    numbers = public_key.public_numbers()
    return numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big")


# -- the software authenticator -------------------------------------------------------------


class AuthenticatorError(Exception):
    """What navigator.credentials would reject with (NotAllowedError, InvalidStateError, …)."""


@dataclass
class StoredCredential:
    """One discoverable credential: its id, relying party, user handle, key and counter."""

    credential_id: bytes
    rp_id: str
    user_handle: bytes
    private_key: ec.EllipticCurvePrivateKey
    sign_count: int = 0

    def cose_key(self) -> bytes:
        """The public key as a COSE_Key, EC2 on P-256 for ES256 (RFC 9053)."""
        x, y = p256_coordinates(self.private_key.public_key())
        return cbor_encode({1: 2, 3: -7, -1: 1, -2: x, -3: y})

    def spki(self) -> bytes:
        return self.private_key.public_key().public_bytes(serialization.Encoding.DER,
                                                          serialization.PublicFormat.SubjectPublicKeyInfo)


class SoftwareAuthenticator:
    """A platform authenticator and the browser around it: answers W3C JSON options with
    W3C JSON responses (`PublicKeyCredential.toJSON()`) for one origin. User presence and
    user verification are always reported; every credential is discoverable."""

    UP, UV, AT = 0x01, 0x04, 0x40

    def __init__(self, origin: str):
        self.origin = origin
        self.credentials: list[StoredCredential] = []

    def _rp_id(self, requested: str | None) -> str:
        return requested or urlsplit(self.origin).hostname

    def _client_data(self, ceremony: str, challenge: str) -> bytes:
        return compact_json({"type": ceremony, "challenge": b64u(b64u_decode(challenge)), "origin": self.origin,
                             "crossOrigin": False})

    def _authenticator_data(self, credential: StoredCredential, flags: int, attested: bytes = b"") -> bytes:
        return sha256(credential.rp_id.encode("utf-8")) + bytes([flags]) + \
            credential.sign_count.to_bytes(4, "big") + attested

    def create(self, options: dict) -> dict:
        """navigator.credentials.create() for PublicKeyCredentialCreationOptionsJSON."""
        if not any(p.get("type") == "public-key" and p.get("alg") == -7 for p in options.get("pubKeyCredParams", [])):
            raise AuthenticatorError("NotSupportedError: ES256 not offered in pubKeyCredParams")
        rp_id = self._rp_id(options.get("rp", {}).get("id"))
        excluded = {b64u_decode(c["id"]) for c in options.get("excludeCredentials") or []}
        if any(c.rp_id == rp_id and c.credential_id in excluded for c in self.credentials):
            raise AuthenticatorError("InvalidStateError: a credential in excludeCredentials is here")
        credential = StoredCredential(secrets.token_bytes(32), rp_id, b64u_decode(options["user"]["id"]),
                                      ec.generate_private_key(ec.SECP256R1()))
        attested = bytes(16) + len(credential.credential_id).to_bytes(2, "big") + credential.credential_id + \
            credential.cose_key()
        auth_data = self._authenticator_data(credential, self.UP | self.UV | self.AT, attested)
        attestation = cbor_encode({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options["challenge"])
        self.credentials.append(credential)
        return {
            "id": b64u(credential.credential_id), "rawId": b64u(credential.credential_id), "type": "public-key",
            "response": {"clientDataJSON": b64u(client_data), "attestationObject": b64u(attestation),
                         "authenticatorData": b64u(auth_data), "publicKey": b64u(credential.spki()),
                         "publicKeyAlgorithm": -7, "transports": ["internal"]},
            "clientExtensionResults": {}, "authenticatorAttachment": "platform",
        }

    def choose(self, rp_id: str, allowed: list[dict]) -> StoredCredential:
        """A credential from allowCredentials, or (when that is empty) the newest one for rp_id."""
        wanted = {b64u_decode(c["id"]) for c in allowed}
        candidates = [c for c in self.credentials if c.rp_id == rp_id and (not wanted or c.credential_id in wanted)]
        if not candidates:
            raise AuthenticatorError(f"NotAllowedError: no credential for {rp_id} among {len(wanted)} allowed")
        return candidates[-1]

    def get(self, options: dict) -> dict:
        """navigator.credentials.get() for PublicKeyCredentialRequestOptionsJSON."""
        credential = self.choose(self._rp_id(options.get("rpId")), options.get("allowCredentials") or [])
        credential.sign_count += 1
        auth_data = self._authenticator_data(credential, self.UP | self.UV)
        client_data = self._client_data("webauthn.get", options["challenge"])
        signature = credential.private_key.sign(auth_data + sha256(client_data), ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64u(credential.credential_id), "rawId": b64u(credential.credential_id), "type": "public-key",
            "response": {"clientDataJSON": b64u(client_data), "authenticatorData": b64u(auth_data),
                         "signature": b64u(signature), "userHandle": b64u(credential.user_handle)},
            "clientExtensionResults": {}, "authenticatorAttachment": "platform",
        }


def with_flipped_signature_byte(credential: dict) -> dict:
    """An authentication response whose signature's last byte (inside the DER `s`) is flipped."""
    signature = bytearray(b64u_decode(credential["response"]["signature"]))
    signature[-1] ^= 0x01
    return {**credential, "response": {**credential["response"], "signature": b64u(bytes(signature))}}


# -- DPoP -----------------------------------------------------------------------------------


def without_query(url: str) -> str:
    """The `htu` of a request: its URL without query and fragment (RFC 9449 §4.2)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


class DPoPKey:
    """An ES256 key that signs DPoP proofs (RFC 9449)."""

    def __init__(self):
        self.private_key = ec.generate_private_key(ec.SECP256R1())

    @property
    def public_jwk(self) -> dict:
        x, y = p256_coordinates(self.private_key.public_key())
        return {"kty": "EC", "crv": "P-256", "x": b64u(x), "y": b64u(y)}

    @property
    def thumbprint(self) -> str:
        """The RFC 7638 JWK thumbprint (the `jkt` a bound token carries)."""
        jwk = self.public_jwk
        return b64u(sha256(compact_json({k: jwk[k] for k in ("crv", "kty", "x", "y")})))

    def proof(self, method: str, url: str, access_token: str | None = None, nonce: str | None = None) -> str:
        """A fresh proof for one request; `ath` when an access token goes with it."""
        claims = {"jti": str(uuid.uuid4()), "htm": method, "htu": without_query(url), "iat": int(time.time())}
        if access_token is not None:
            claims["ath"] = b64u(sha256(access_token.encode("ascii")))
        if nonce is not None:
            claims["nonce"] = nonce
        return jwt.encode(claims, self.private_key, algorithm="ES256",
                          headers={"typ": "dpop+jwt", "jwk": self.public_jwk})


def asks_for_nonce(response: requests.Response) -> bool:
    """A `use_dpop_nonce` answer: 401 from a resource (WWW-Authenticate) or 400 from the token
    endpoint (JSON `error`), with the nonce in `DPoP-Nonce`."""
    if not response.headers.get("DPoP-Nonce"):
        return False
    if response.status_code == 401:
        return "use_dpop_nonce" in response.headers.get("WWW-Authenticate", "")
    if response.status_code == 400:
        try:
            return response.json().get("error") == "use_dpop_nonce"
        except ValueError:
            return False
    return False


# -- steps and problems ---------------------------------------------------------------------


def media_type(response: requests.Response) -> str:
    return response.headers.get("Content-Type", "").split(";")[0].strip().lower()


def expect_step(response: requests.Response) -> dict:
    """A 200 `application/vnd.auth+json` step of a known type."""
    assert response.status_code == 200 and media_type(response) == FLOW_MEDIA, \
        f"expected a step, got HTTP {response.status_code} {media_type(response)}: {response.text[:800]}"
    step = response.json()
    assert isinstance(step, dict) and step.get("type") in STEP_TYPES, step
    assert isinstance(step.get("actions", []), list), step
    return step


def expect_problem(response: requests.Response, status: int, problem_type: str) -> dict:
    """An `application/problem+json` answer of the given status and type."""
    assert response.status_code == status and media_type(response) == PROBLEM_MEDIA, \
        f"expected a {status} problem, got HTTP {response.status_code} {media_type(response)}: {response.text[:800]}"
    problem = response.json()
    assert problem.get("type") == problem_type, problem
    assert isinstance(problem.get("title"), str) and problem["title"], problem
    assert isinstance(problem.get("trace_id"), str) and problem["trace_id"], problem
    return problem


def view(step: dict) -> tuple[str, str | None]:
    return step["type"], (step.get("metadata") or {}).get("viewName")


def all_actions(step: dict) -> list[dict]:
    """The step's actions, with the options of selectors spread out."""
    found = []
    for action in step.get("actions") or []:
        found.append(action)
        if action.get("template") == "selector":
            found.extend(all_actions({"actions": action.get("model", {}).get("options", [])}))
    return found


def kinds(step: dict) -> set[str]:
    return {action.get("kind") for action in all_actions(step)}


def action(step: dict, kind: str) -> dict:
    """The one action of `kind` in the step."""
    matches = [a for a in all_actions(step) if a.get("kind") == kind]
    assert len(matches) == 1, f"expected one action {kind!r}, the step has {sorted(map(str, kinds(step)))}: {step}"
    return matches[0]


def field_names(form: dict) -> dict[str, dict]:
    return {f["name"]: f for f in form["model"].get("fields") or []}


def continue_form(operation: dict) -> dict:
    """The continue action of a client operation that takes the `credential`."""
    forms = [a for a in operation["model"].get("continueActions") or [] if "credential" in field_names(a)]
    assert len(forms) == 1, f"expected one continue form with a credential field: {operation}"
    return forms[0]


def profile(email: str | None) -> dict:
    values = {"given_name": "Ada", "family_name": "Lovelace"}
    if email is not None:
        values["email"] = email
    return values


def new_email(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:10]}@example.com"


# -- the flow client ------------------------------------------------------------------------

OWN = object()  # "the flow client's own flow token / DPoP key"


class FlowClient:
    """One native app session of the API-driven flow: its own DPoP key, flow token and HTTP
    session; follows the steps' `href`s and never builds a flow URL itself."""

    def __init__(self, server, client: dict, authenticator: SoftwareAuthenticator):
        self.client_id = client["client_id"]
        self.issuer = f"{server.origin}/oidc/{server.app_id}"
        self.authenticator = authenticator
        self.key = DPoPKey()
        self.http = requests.Session()
        self.dpop_nonce: str | None = None
        self.nonce_retries = 0
        self.last_url = self.issuer
        self.history: list[dict] = []
        self.discovery = self._discover()
        self.flow_token = self._fetch_flow_token()

    # -- HTTP with DPoP ----------------------------------------------------------------------

    def call(self, method: str, url: str, *, params: dict | None = None, json_body: Any = None,
             form: dict | None = None, flow_token: Any = OWN, key: Any = OWN, accept: str = FLOW_MEDIA,
             retry: bool = True) -> requests.Response:
        """One request with `Authorization: DPoP <flow token>` (unless flow_token=None) and a
        fresh proof; a `use_dpop_nonce` answer is sent again once with the new nonce."""
        token = self.flow_token if flow_token is OWN else flow_token
        signer = self.key if key is OWN else key
        for attempt in range(2):
            headers = {"Accept": accept,
                       "DPoP": signer.proof(method, url, access_token=token, nonce=self.dpop_nonce)}
            if token is not None:
                headers["Authorization"] = f"DPoP {token}"
            response = self.http.request(method, url, params=params, json=json_body, data=form, headers=headers,
                                         timeout=15, allow_redirects=False)
            wants_nonce = asks_for_nonce(response)
            if response.headers.get("DPoP-Nonce"):
                self.dpop_nonce = response.headers["DPoP-Nonce"]
            if wants_nonce and retry and attempt == 0:
                self.nonce_retries += 1
                continue
            if media_type(response) == FLOW_MEDIA:
                self.last_url = response.url
            return response
        raise AssertionError("unreachable")

    def _discover(self) -> dict:
        answer = self.http.get(self.issuer + "/.well-known/openid-configuration", timeout=10)
        assert answer.status_code == 200, answer.text
        document = answer.json()
        assert document["issuer"] == self.issuer, document
        assert "S256" in document["code_challenge_methods_supported"], document
        return document

    def _fetch_flow_token(self) -> str:
        """client_credentials for scope urn:umfa:api-flow, bound to this client's DPoP key."""
        answer = self.call("POST", self.discovery["token_endpoint"], flow_token=None, accept="application/json",
                           form={"grant_type": "client_credentials", "scope": FLOW_SCOPE, "client_id": self.client_id})
        assert answer.status_code == 200, f"no flow token: HTTP {answer.status_code} {answer.text}"
        token = answer.json()
        assert token["token_type"] == "DPoP", token
        assert FLOW_SCOPE in token.get("scope", FLOW_SCOPE).split(), token
        claims = jwt.decode(token["access_token"], options={"verify_signature": False})
        assert (claims.get("cnf") or {}).get("jkt") == self.key.thumbprint, claims
        return token["access_token"]

    # -- the flow ----------------------------------------------------------------------------

    def start(self, prompt: str | None = None, login_hint: str | None = None, **call_options) -> requests.Response:
        """GET the authorization endpoint as JSON, with fresh state, nonce and PKCE S256."""
        self.state, self.nonce = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        self.code_verifier = secrets.token_urlsafe(48)
        params = {"client_id": self.client_id, "response_type": "code", "redirect_uri": REDIRECT_URI,
                  "scope": SIGN_IN_SCOPE, "state": self.state, "nonce": self.nonce,
                  "code_challenge": b64u(sha256(self.code_verifier.encode("ascii"))),
                  "code_challenge_method": "S256"}
        if prompt is not None:
            params["prompt"] = prompt
        if login_hint is not None:
            params["login_hint"] = login_hint
        return self.call("GET", self.discovery["authorization_endpoint"], params=params, **call_options)

    def resolve(self, href: str) -> str:
        """An action's href as an absolute URL (relative ones against the step's own URL)."""
        return urljoin(self.last_url, href)

    def submit(self, form: dict, values: dict, **call_options) -> requests.Response:
        """Submits a form action: its hidden fields with their values, plus `values` (which must
        name fields of the form), to `model.href` with `model.method` in `model.type`."""
        assert form.get("template") == "form", form
        model, fields = form["model"], field_names(form)
        unknown = set(values) - set(fields)
        assert not unknown, f"the form {form.get('kind')!r} has no field {sorted(unknown)}: {form}"
        body = {name: field.get("value") for name, field in fields.items()
                if field.get("type") == "hidden" and name not in values}
        body.update(values)
        url, method = self.resolve(model["href"]), model.get("method", "POST").upper()
        if method == "GET":
            return self.call("GET", url, params=body or None, **call_options)
        media = model.get("type", "application/json").split(";")[0].strip()
        if media == "application/json":
            return self.call(method, url, json_body=body, **call_options)
        assert media == "application/x-www-form-urlencoded", f"unknown form type {media!r}"
        encoded = {k: v if isinstance(v, str) else json.dumps(v) for k, v in body.items()}
        return self.call(method, url, form=encoded, **call_options)

    def perform(self, operation: dict, tamper: Callable[[dict], dict] | None = None,
                **call_options) -> requests.Response:
        """Runs a WebAuthn client operation with the software authenticator and submits its
        continue form with the response (changed by `tamper` first, when given)."""
        kind, model = operation["kind"], operation["model"]
        assert operation.get("template") == "client-operation" and model.get("name") == kind, operation
        if kind == "webauthn-registration":
            credential = self.authenticator.create(model["arguments"]["credentialCreationOptions"]["publicKey"])
        elif kind == "webauthn-authentication":
            credential = self.authenticator.get(model["arguments"]["credentialRequestOptions"]["publicKey"])
        else:
            raise AssertionError(f"no client operation {kind!r} here: {operation}")
        if tamper is not None:
            credential = tamper(credential)
        return self.submit(continue_form(operation), {"credential": credential}, **call_options)

    def drive(self, step: dict, answers: dict[str, dict], until: str | None = None) -> dict:
        """Follows steps from `step`: runs any WebAuthn client operation, otherwise submits the
        form whose kind has an answer in `answers` (each answer used once). Stops at the
        authorization response, or at the first step offering an action of kind `until`.
        Every step seen is in `self.history`."""
        answers = dict(answers)
        self.history = [step]
        for _ in range(MAX_STEPS):
            if step["type"] == "oauth-authorization-response" or (until is not None and until in kinds(step)):
                return step
            operations = [a for a in all_actions(step) if a.get("template") == "client-operation"
                          and a.get("kind", "").startswith("webauthn-")]
            if operations:
                response = self.perform(operations[0])
            else:
                kind = next((k for k in answers if k in kinds(step)), None)
                assert kind is not None, f"no answer for the step {view(step)} with {sorted(map(str, kinds(step)))}"
                response = self.submit(action(step, kind), answers.pop(kind))
            step = expect_step(response)
            self.history.append(step)
        raise AssertionError(f"no end after {MAX_STEPS} steps: {[view(s) for s in self.history]}")

    # -- after the flow ----------------------------------------------------------------------

    def redeem(self, final: dict) -> dict:
        """Checks the authorization response (state, iss), exchanges the code with PKCE and a
        DPoP proof, and returns the ID token's claims, verified against the issuer's JWKS."""
        assert final["type"] == "oauth-authorization-response" and not final.get("actions"), final
        properties = final["properties"]
        assert properties["state"] == self.state and properties["iss"] == self.issuer, properties
        assert isinstance(properties["code"], str) and properties["code"], properties
        answer = self.call("POST", self.discovery["token_endpoint"], flow_token=None, accept="application/json",
                           form={"grant_type": "authorization_code", "code": properties["code"],
                                 "redirect_uri": REDIRECT_URI, "code_verifier": self.code_verifier,
                                 "client_id": self.client_id})
        assert answer.status_code == 200, f"code exchange: HTTP {answer.status_code} {answer.text}"
        tokens = answer.json()
        assert tokens["token_type"] == "DPoP" and tokens.get("id_token"), tokens
        return self.verify_id_token(tokens["id_token"])

    def verify_id_token(self, id_token: str) -> dict:
        signing_key = jwt.PyJWKClient(self.discovery["jwks_uri"]).get_signing_key_from_jwt(id_token)
        claims = jwt.decode(id_token, signing_key.key, algorithms=self.discovery["id_token_signing_alg_values_supported"],
                            audience=self.client_id, issuer=self.issuer,
                            options={"require": ["iss", "sub", "aud", "exp", "iat", "nonce"]})
        assert claims["nonce"] == self.nonce, claims
        return claims


# -- fixtures -------------------------------------------------------------------------------


def register_client(server, first_party: bool, name: str) -> dict:
    """A public native client (no secret) allowed the flow scope, through the admin API."""
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": name, "redirect_uris": [REDIRECT_URI],
                        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                        "token_endpoint_auth_method": "none", "scope": f"{SIGN_IN_SCOPE} {FLOW_SCOPE}",
                        "first_party": first_party},
                       bearer=ADMIN_TOKEN, status=201)
    assert client["client_id"] and "client_secret" not in client, client
    return {**client, "client_name": name}


@pytest.fixture
def first_party(server) -> dict:
    return register_client(server, True, "Phone app")


@pytest.fixture
def third_party(server) -> dict:
    return register_client(server, False, "Partner app")


@pytest.fixture
def passkey(server) -> SoftwareAuthenticator:
    return SoftwareAuthenticator(server.origin)


def sign_up(server, client: dict, passkey: SoftwareAuthenticator, email: str) -> dict:
    """A whole sign-up through a new flow (consent allowed if asked): the ID token's claims."""
    flow = FlowClient(server, client, passkey)
    final = flow.drive(expect_step(flow.start()), {"create-account": profile(email), "consent-allow": {}})
    return flow.redeem(final)


def start_sign_in(server, client: dict, passkey: SoftwareAuthenticator, username: str) -> tuple[FlowClient, dict]:
    """A new flow through `passkey-sign-in`: the client and the step with the WebAuthn operation."""
    flow = FlowClient(server, client, passkey)
    step = expect_step(flow.submit(action(expect_step(flow.start()), "passkey-sign-in"), {"username": username}))
    assert view(step) == ("authentication-step", "umfa:passkey-sign-in"), step
    return flow, step


# -- offline: the client's own pieces against independent implementations -------------------


def test_software_cbor_encoder_matches_rfc_8949_examples():
    examples = [(0, "00"), (23, "17"), (24, "1818"), (100, "1864"), (1000, "1903e8"), (1000000, "1a000f4240"),
                (1000000000000, "1b000000e8d4a51000"), (-1, "20"), (-10, "29"), (-100, "3863"), (-1000, "3903e7"),
                (b"", "40"), (b"\x01\x02\x03\x04", "4401020304"), ("", "60"), ("a", "6161"), ("IETF", "6449455446"),
                ("\u00fc", "62c3bc"), ([1, [2, 3], [4, 5]], "8301820203820405"), ({1: 2, 3: 4}, "a201020304"),
                ({"a": 1, "b": [2, 3]}, "a26161016162820203")]
    for value, expected in examples:
        assert cbor_encode(value).hex() == expected, (value, cbor_encode(value).hex(), expected)


def test_software_authenticator_satisfies_py_webauthn():
    origin, rp_id = "http://localhost:8080", "localhost"
    authenticator = SoftwareAuthenticator(origin)
    user_id = secrets.token_bytes(16)
    creation = json.loads(options_to_json(generate_registration_options(
        rp_id=rp_id, rp_name="Example", user_name="ada@example.com", user_id=user_id,
        authenticator_selection=AuthenticatorSelectionCriteria(resident_key=ResidentKeyRequirement.REQUIRED,
                                                               user_verification=UserVerificationRequirement.REQUIRED))))
    created = authenticator.create(creation)
    registered = verify_registration_response(credential=created, expected_challenge=b64u_decode(creation["challenge"]),
                                              expected_rp_id=rp_id, expected_origin=origin,
                                              require_user_verification=True)
    assert registered.fmt == "none" and registered.user_verified
    assert registered.credential_id == b64u_decode(created["rawId"]) == authenticator.credentials[0].credential_id
    assert registered.credential_public_key == authenticator.credentials[0].cose_key()

    with pytest.raises(AuthenticatorError, match="InvalidStateError"):
        authenticator.create({**creation, "excludeCredentials": [{"type": "public-key", "id": created["id"]}]})

    def sign_in(allow: list[bytes], sign_count: int) -> dict:
        request = json.loads(options_to_json(generate_authentication_options(
            rp_id=rp_id, allow_credentials=[PublicKeyCredentialDescriptor(id=i) for i in allow],
            user_verification=UserVerificationRequirement.REQUIRED)))
        assertion = authenticator.get(request)
        verified = verify_authentication_response(
            credential=assertion, expected_challenge=b64u_decode(request["challenge"]), expected_rp_id=rp_id,
            expected_origin=origin, credential_public_key=registered.credential_public_key,
            credential_current_sign_count=sign_count, require_user_verification=True)
        assert verified.new_sign_count == sign_count + 1 and verified.user_verified
        return {"request": request, "assertion": assertion}

    sign_in([registered.credential_id], 0)
    discoverable = sign_in([], 1)
    assert discoverable["request"].get("allowCredentials", []) == []
    assert b64u_decode(discoverable["assertion"]["response"]["userHandle"]) == user_id

    tampered = with_flipped_signature_byte(authenticator.get(discoverable["request"]))
    with pytest.raises(InvalidAuthenticationResponse):
        verify_authentication_response(
            credential=tampered, expected_challenge=b64u_decode(discoverable["request"]["challenge"]),
            expected_rp_id=rp_id, expected_origin=origin, credential_public_key=registered.credential_public_key,
            credential_current_sign_count=2)
    with pytest.raises(AuthenticatorError, match="NotAllowedError"):
        authenticator.get({"challenge": b64u(secrets.token_bytes(32)), "rpId": "other.example"})


def test_software_dpop_key_makes_rfc_9449_proofs():
    from jwskate import Jwk  # comes with requests-oauth2client; an independent RFC 7638 thumbprint

    key = DPoPKey()
    proof = key.proof("GET", "https://as.example/oidc/x/authorize?client_id=a#f", access_token="token-1",
                      nonce="n-1")
    header = jwt.get_unverified_header(proof)
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    assert header["jwk"] == key.public_jwk and "d" not in header["jwk"]
    claims = jwt.decode(proof, jwt.PyJWK(header["jwk"]).key, algorithms=["ES256"])
    assert claims["htm"] == "GET" and claims["htu"] == "https://as.example/oidc/x/authorize"
    assert claims["ath"] == b64u(hashlib.sha256(b"token-1").digest()) and claims["nonce"] == "n-1"
    assert abs(claims["iat"] - time.time()) < 5 and claims["jti"] != jwt.decode(
        key.proof("GET", "https://as.example/"), options={"verify_signature": False})["jti"]
    assert key.thumbprint == Jwk(key.public_jwk).thumbprint()
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(proof, DPoPKey().private_key.public_key(), algorithms=["ES256"])


# -- against a live server ------------------------------------------------------------------


def test_sign_up_with_a_first_party_client_ends_in_a_verified_id_token(server, first_party, passkey):
    flow = FlowClient(server, first_party, passkey)
    choose = expect_step(flow.start())
    assert view(choose) == ("authentication-step", "umfa:choose"), choose
    assert {"passkey-sign-in", "create-account", "approve-on-another-device"} <= kinds(choose), choose
    create = action(choose, "create-account")
    fields = field_names(create)
    assert {"email", "given_name", "family_name", "phone_number", "device_name"} <= set(fields), create
    assert fields["email"].get("required") is True, create
    href = flow.resolve(create["model"]["href"])
    assert href.startswith(flow.issuer + "/flow/"), href

    email = new_email("ada")
    registration = expect_step(flow.submit(create, profile(email)))
    assert view(registration) == ("registration-step", "umfa:passkey-registration"), registration
    assert action(registration, "webauthn-registration")["model"]["arguments"]["credentialCreationOptions"]["publicKey"]

    # GET <issuer>/flow/<flow id> (the restart target) answers the start again until someone has
    # signed in; the registration step given before stays valid.
    flow_id = href[len(flow.issuer + "/flow/"):].split("/")[0].split("?")[0]
    restarted = expect_step(flow.call("GET", f"{flow.issuer}/flow/{flow_id}"))
    assert view(restarted) == ("authentication-step", "umfa:choose"), restarted
    current = registration

    final = flow.drive(current, {})
    assert [view(s)[1] for s in flow.history[:-1]] == ["umfa:passkey-registration"], "a first-party client: no consent"
    claims = flow.redeem(final)
    assert claims["email"] == email, claims
    assert claims.get("given_name") == "Ada" and claims.get("family_name") == "Lovelace", claims
    assert len(passkey.credentials) == 1 and passkey.credentials[0].rp_id == urlsplit(server.origin).hostname


def test_sign_up_with_a_third_party_client_asks_for_consent(server, third_party, passkey):
    flow = FlowClient(server, third_party, passkey)
    start = expect_step(flow.start(prompt="create"))
    assert view(start) == ("registration-step", "umfa:create-account"), start
    assert kinds(start) == {"create-account"}, start

    email = new_email("grace")
    final = flow.drive(start, {"create-account": profile(email), "consent-allow": {}})
    assert [view(s) for s in flow.history[:-1]] == [
        ("registration-step", "umfa:create-account"), ("registration-step", "umfa:passkey-registration"),
        ("user-consent-step", "umfa:consent")], [view(s) for s in flow.history]
    consent = flow.history[-2]
    assert consent["properties"]["clientName"] == third_party["client_name"], consent
    assert consent["properties"]["scopes"], consent
    assert field_names(action(consent, "consent-allow"))["decision"]["value"] == "allow", consent
    assert field_names(action(consent, "consent-deny"))["decision"]["value"] == "deny", consent
    assert flow.redeem(final)["email"] == email


def test_sign_in_with_the_same_passkey_by_email_and_discoverable(server, first_party, passkey):
    email = new_email("kim")
    subject = sign_up(server, first_party, passkey, email)["sub"]
    credential_id = b64u(passkey.credentials[0].credential_id)

    flow, step = start_sign_in(server, first_party, passkey, email)
    request = action(step, "webauthn-authentication")["model"]["arguments"]["credentialRequestOptions"]["publicKey"]
    assert credential_id in [c["id"] for c in request.get("allowCredentials") or []], request
    claims = flow.redeem(flow.drive(step, {}))
    assert claims["sub"] == subject and claims["email"] == email, claims

    flow, step = start_sign_in(server, first_party, passkey, "")
    request = action(step, "webauthn-authentication")["model"]["arguments"]["credentialRequestOptions"]["publicKey"]
    assert not request.get("allowCredentials"), f"an empty username asks for a discoverable passkey: {request}"
    claims = flow.redeem(flow.drive(step, {}))
    assert claims["sub"] == subject, claims
    assert passkey.credentials[0].sign_count == 2


def test_create_account_without_an_email_is_invalid_input(server, first_party, passkey):
    flow = FlowClient(server, first_party, passkey)
    choose = expect_step(flow.start())
    problem = expect_problem(flow.submit(action(choose, "create-account"), profile(None)), 400,
                             "urn:umfa:problem:invalid-input")
    invalid = {f["name"]: f for f in problem.get("invalidFields") or []}
    assert "email" in invalid and invalid["email"]["reason"] == "missing", problem
    assert not passkey.credentials


def test_a_tampered_passkey_signature_is_incorrect_credentials(server, first_party, passkey):
    email = new_email("eve")
    sign_up(server, first_party, passkey, email)
    flow, step = start_sign_in(server, first_party, passkey, email)
    answer = flow.perform(action(step, "webauthn-authentication"), tamper=with_flipped_signature_byte)
    expect_problem(answer, 400, "urn:umfa:problem:incorrect-credentials")


def test_the_flow_is_bound_to_the_dpop_key_of_its_flow_token(server, first_party, passkey):
    flow = FlowClient(server, first_party, passkey)
    stranger = DPoPKey()

    refused = flow.start(key=stranger)
    assert refused.status_code == 401 and refused.headers.get("WWW-Authenticate", "").startswith("DPoP"), \
        (refused.status_code, refused.headers, refused.text)
    for token in (None, "not-a-flow-token"):
        missing = flow.start(flow_token=token)
        assert missing.status_code == 401, (token, missing.status_code, missing.text)
        challenge = missing.headers.get("WWW-Authenticate", "")
        assert challenge.startswith("DPoP"), (token, challenge)
        # RFC 6750 §3.1: no token, no error code; a token that is not a flow token, invalid_token.
        assert ('error="invalid_token"' in challenge) == (token is not None), (token, challenge)

    choose = expect_step(flow.start())
    create = action(choose, "create-account")
    email = new_email("mallory")
    hijacked = flow.submit(create, profile(email), key=stranger)
    assert hijacked.status_code == 401 and hijacked.headers.get("WWW-Authenticate", "").startswith("DPoP"), \
        (hijacked.status_code, hijacked.text)
    # The refused request changed nothing: the flow's own key carries on.
    registration = expect_step(flow.submit(create, profile(email)))
    assert view(registration) == ("registration-step", "umfa:passkey-registration"), registration


def test_consent_deny_ends_in_access_denied(server, third_party, passkey):
    flow = FlowClient(server, third_party, passkey)
    consent = flow.drive(expect_step(flow.start()), {"create-account": profile(new_email("dan"))},
                         until="consent-deny")
    assert view(consent) == ("user-consent-step", "umfa:consent"), consent
    problem = expect_problem(flow.submit(action(consent, "consent-deny"), {}), 400,
                             "urn:umfa:problem:error-authorization-response")
    assert problem["error"] == "access_denied", problem


def test_the_flow_follows_the_dpop_nonce_dance(server, first_party, passkey):
    server.ok("PATCH", f"/api/admin/applications/{server.app_id}", {"dpop_nonce": "required"}, bearer=ADMIN_TOKEN)
    flow = FlowClient(server, first_party, passkey)
    assert flow.nonce_retries >= 1, "the token endpoint asked for no nonce"

    flow.dpop_nonce = None
    refused = flow.start(retry=False)
    assert refused.status_code == 401, (refused.status_code, refused.text)
    assert 'error="use_dpop_nonce"' in refused.headers.get("WWW-Authenticate", ""), refused.headers
    assert refused.headers.get("DPoP-Nonce") and flow.dpop_nonce == refused.headers["DPoP-Nonce"]

    email = new_email("nonce")
    final = flow.drive(expect_step(flow.start()), {"create-account": profile(email)})
    assert flow.redeem(final)["email"] == email
