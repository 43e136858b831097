"""A client of the API-driven authentication flow (docs/contract.md §6, docs/api-flow.md) written
in Python from those two documents alone: no UMFA binary and no Swift type takes part on the
client side. test_api_flow_python_client.py tests it against independent implementations and a
live server; scripts/bench/server_bench.py uses it to sign users in for the OAuth figures.

The pieces, each small and independent of UMFA's code:
- `cbor_encode`: the few CBOR items (RFC 8949) an attestation object needs;
- `SoftwareAuthenticator`: a WebAuthn authenticator with ES256 P-256 keys, discoverable
  credentials, "none" attestation and the W3C JSON encodings of its responses;
- `DPoPKey`: RFC 9449 proofs made with PyJWT;
- `FlowClient`: discovery, the flow token (client_credentials with DPoP), the JSON steps (forms
  and client operations picked by `kind`, sent to the `href`s the steps carry), and the code
  exchange with the ID token checked against the issuer's JWKS."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

import jwt
import requests
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

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
    session; follows the steps' `href`s and never builds a flow URL itself. `server` names the
    issuer (`server.origin`, the server's base URL, and `server.app_id`). A client with a
    `client_secret` (client_secret_basic) authenticates with it at the token endpoint; one
    without is public. The token response of the code exchange stays in `tokens`."""

    def __init__(self, server, client: dict, authenticator: SoftwareAuthenticator):
        self.client_id = client["client_id"]
        self.client_secret: str | None = client.get("client_secret")
        self.tokens: dict | None = None
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
             retry: bool = True, client_auth: bool = False) -> requests.Response:
        """One request with `Authorization: DPoP <flow token>` (unless flow_token=None) and a
        fresh proof; a `use_dpop_nonce` answer is sent again once with the new nonce.
        `client_auth` (at the token endpoint, with flow_token=None): HTTP Basic with the client's
        secret, when it has one (RFC 6749 §2.3.1, id and secret form-encoded first)."""
        token = self.flow_token if flow_token is OWN else flow_token
        signer = self.key if key is OWN else key
        for attempt in range(2):
            headers = {"Accept": accept,
                       "DPoP": signer.proof(method, url, access_token=token, nonce=self.dpop_nonce)}
            if token is not None:
                headers["Authorization"] = f"DPoP {token}"
            elif client_auth and self.client_secret is not None:
                basic = f"{quote(self.client_id, safe='')}:{quote(self.client_secret, safe='')}"
                headers["Authorization"] = "Basic " + base64.b64encode(basic.encode("utf-8")).decode("ascii")
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
                           form={"grant_type": "client_credentials", "scope": FLOW_SCOPE, "client_id": self.client_id},
                           client_auth=True)
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
        DPoP proof, and returns the ID token's claims, verified against the issuer's JWKS (the
        whole token response is kept in `self.tokens`)."""
        assert final["type"] == "oauth-authorization-response" and not final.get("actions"), final
        properties = final["properties"]
        assert properties["state"] == self.state and properties["iss"] == self.issuer, properties
        assert isinstance(properties["code"], str) and properties["code"], properties
        answer = self.call("POST", self.discovery["token_endpoint"], flow_token=None, accept="application/json",
                           form={"grant_type": "authorization_code", "code": properties["code"],
                                 "redirect_uri": REDIRECT_URI, "code_verifier": self.code_verifier,
                                 "client_id": self.client_id}, client_auth=True)
        assert answer.status_code == 200, f"code exchange: HTTP {answer.status_code} {answer.text}"
        tokens = answer.json()
        assert tokens["token_type"] == "DPoP" and tokens.get("id_token"), tokens
        self.tokens = tokens
        return self.verify_id_token(tokens["id_token"])

    def verify_id_token(self, id_token: str) -> dict:
        signing_key = jwt.PyJWKClient(self.discovery["jwks_uri"]).get_signing_key_from_jwt(id_token)
        claims = jwt.decode(id_token, signing_key.key, algorithms=self.discovery["id_token_signing_alg_values_supported"],
                            audience=self.client_id, issuer=self.issuer,
                            options={"require": ["iss", "sub", "aud", "exp", "iat", "nonce"]})
        assert claims["nonce"] == self.nonce, claims
        return claims
