"""Live server: security rules of docs/contract.md §4 (docs/security-reviews.md, "The second
review"), checked over HTTP from outside against a running `umfa serve`:

- identifiers are bytes: "jos\\u00e9" (NFC) and "jose\\u0301" (NFD) are two users. A
  challenge, a registration or a login token of one spelling never serves the other, and a
  user_id of more than 256 UTF-8 bytes is 400, however few characters it looks like.
- no user enumeration: every failed sign-in or unenroll answers the same 401, whether
  the user exists or not; an unknown user's pseudo allowCredentials is stable and shaped like a
  real user's list in the same application.
- sign-count race: of two assertions carrying one counter value, at most one is
  accepted, also when they arrive together.
- input and limits: a body must be UTF-8 JSON without NUL throughout, including
  members the route ignores; wrong API keys and admin tokens get 429 once an address keeps
  guessing, but the valid admin token and API key are still served from that address.

`SoftKey` below is a minimal ES256 passkey in Python (fmt "none"), used where a test needs what
the virtual authenticator does not offer: a chosen sign count, credential id length or
transports, or a signature by the wrong key."""

import hashlib
import json
import secrets
import threading
import urllib.parse

import cbor2
import pytest
import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url

from support import ADMIN_TOKEN, Device, VirtualAuthenticator, assert_error

NFC = "jos\u00e9"  # é as one code point
NFD = "jose\u0301"  # e followed by COMBINING ACUTE ACCENT
assert NFC != NFD and NFC.encode() != NFD.encode()

AUTH_FAILED = {"status": 401, "message": "Authentication failed"}
REGISTRATION_FAILED = {"status": 401, "message": "Registration failed"}
NOT_UTF8 = {"status": 400, "message": "The request body is not valid UTF-8 JSON"}
USER_ID_TOO_LONG = {"status": 400, "message": "user_id must be 1 to 256 bytes of UTF-8"}
TOKEN_FOR_ANOTHER_USER = ("Validate token failed with: MFA login JWT was invalid: "
                          "Invalid JWT: the user_id claim does not match the user")


# -- a passkey in Python ---------------------------------------------------------------------


class SoftKey:
    """An ES256 credential with a chosen id length and transports; it signs whatever sign count
    it is told to, so a test can replay a counter value or sign with the wrong key."""

    def __init__(self, server, id_length: int = 32, transports: tuple[str, ...] = ("internal",)):
        self.rp_id = "localhost"  # the development application's
        self.origin = server.origin
        self.id = secrets.token_bytes(id_length)
        self.transports = list(transports)
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.user_handle: str | None = None

    @property
    def id_b64u(self) -> str:
        return bytes_to_base64url(self.id)

    def _client_data(self, kind: str, options: dict) -> bytes:
        return json.dumps({"type": kind, "challenge": options["publicKey"]["challenge"], "origin": self.origin,
                           "crossOrigin": False}, separators=(",", ":")).encode()

    def registration(self, options: dict) -> dict:
        """A RegistrationResponseJSON (attestation "none", sign count 0) for creation options."""
        self.user_handle = options["publicKey"]["user"]["id"]
        numbers = self.key.public_key().public_numbers()
        cose = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")},
                           canonical=True)
        auth_data = (hashlib.sha256(self.rp_id.encode()).digest() + bytes([0x41]) + (0).to_bytes(4, "big")
                     + bytes(16) + len(self.id).to_bytes(2, "big") + self.id + cose)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data}, canonical=True)
        return {"id": self.id_b64u, "rawId": self.id_b64u, "type": "public-key", "clientExtensionResults": {},
                "response": {"clientDataJSON": bytes_to_base64url(self._client_data("webauthn.create", options)),
                             "attestationObject": bytes_to_base64url(attestation),
                             "transports": self.transports}}

    def assertion(self, options: dict, sign_count: int, wrong_key: bool = False) -> dict:
        """An AuthenticationResponseJSON over the options' challenge carrying `sign_count`;
        `wrong_key` signs with a fresh key instead (a well-formed but wrong signature)."""
        client_data = self._client_data("webauthn.get", options)
        auth_data = hashlib.sha256(self.rp_id.encode()).digest() + bytes([0x01]) + sign_count.to_bytes(4, "big")
        signer = ec.generate_private_key(ec.SECP256R1()) if wrong_key else self.key
        signature = signer.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        response = {"clientDataJSON": bytes_to_base64url(client_data),
                    "authenticatorData": bytes_to_base64url(auth_data), "signature": bytes_to_base64url(signature)}
        if self.user_handle:
            response["userHandle"] = self.user_handle
        return {"id": self.id_b64u, "rawId": self.id_b64u, "type": "public-key", "clientExtensionResults": {},
                "response": response}


# -- helpers ---------------------------------------------------------------------------------


def error_body(response: requests.Response, status: int) -> dict:
    """The documented error shape with `status`; the body without its trace_id."""
    body = assert_error(response, status)
    return {k: v for k, v in body.items() if k != "trace_id"}


def registration_options(server, user_id: str, **extra) -> dict:
    return server.ok("POST", "/api/umfa/registration/options",
                     {"application_id": server.app_id, "user_id": user_id, **extra})


def authentication_options(server, user_id: str | None) -> dict:
    body = {"application_id": server.app_id}
    if user_id is not None:
        body["user_id"] = user_id
    return server.ok("POST", "/api/umfa/authentication/options", body)


def register_soft(server, user_id: str, key: SoftKey, **extra) -> dict:
    """registration/options -> SoftKey -> registration/verify, which must succeed."""
    credential = key.registration(registration_options(server, user_id, **extra))
    return server.ok("POST", "/api/umfa/registration/verify",
                     {"application_id": server.app_id, "user_id": user_id, "credential": credential})


def verify_login(server, user_id: str | None, credential: dict) -> requests.Response:
    body = {"application_id": server.app_id, "credential": credential}
    if user_id is not None:
        body["user_id"] = user_id
    return server.post("/api/umfa/authentication/verify", body)


def allowing(options: dict, credential_ids: list[str]) -> dict:
    """The options with allowCredentials replaced, to make an authenticator sign a challenge
    with a credential the server did not list."""
    public_key = dict(options["publicKey"], allowCredentials=[{"type": "public-key", "id": i} for i in credential_ids])
    return dict(options, publicKey=public_key)


def credential_ids(server, user_id: str) -> list[str]:
    """The user's credential ids through the API-key route (user id percent-encoded)."""
    path = f"/api/umfa/users/{urllib.parse.quote(user_id, safe='')}/credentials?application_id={server.app_id}"
    return [c["credential_id"] for c in server.ok("GET", path, bearer=server.api_key)["credentials"]]


def validate_token(server, user_id: str, token: str, key: str | None = None) -> requests.Response:
    return server.post("/api/umfa/validate-token", {"application_id": server.app_id, "user_id": user_id,
                                                    "token": token}, bearer=key or server.api_key)


def shape(allow_credentials: list[dict]) -> list[tuple[int, list[str]]]:
    """What a pseudo list copies of a real one: the count, each id's length and transports."""
    return [(len(base64url_to_bytes(c["id"])), c.get("transports")) for c in allow_credentials]


# -- identifiers are bytes -------------------------------------------------------------------


@pytest.fixture
def victim(server, device):
    """NFC "josé" with a passkey on the `authenticator` fixture: (credential id, login token)."""
    out = device.register(NFC)
    return out["credential_id"], out["token"]


@pytest.fixture
def attacker(server, umfa, write_json, tmp_path):
    """A second virtual authenticator, as a device of the development application."""
    return Device(server, VirtualAuthenticator(umfa, write_json, tmp_path / "attacker-state"), server.app_id)


def test_registration_for_the_nfd_spelling_never_lands_on_the_nfc_user(server, victim, attacker, umfa, write_json,
                                                                       tmp_path):
    victim_key, _ = victim
    third = VirtualAuthenticator(umfa, write_json, tmp_path / "third-state")

    # NFD has no passkey, so its options need no grant; verified as NFC, they must not add a
    # key to NFC (who has one already and would need a grant).
    created = third.register(registration_options(server, NFD), origin=server.origin)
    response = server.post("/api/umfa/registration/verify",
                           {"application_id": server.app_id, "user_id": NFC, "credential": created.data})
    assert error_body(response, 401) == REGISTRATION_FAILED
    assert credential_ids(server, NFC) == [victim_key]
    assert credential_ids(server, NFD) == []  # the options made the user, no key landed

    # NFD's own registration lands on NFD only.
    nfd = attacker.register(NFD)
    assert credential_ids(server, NFD) == [nfd["credential_id"]]
    assert credential_ids(server, NFC) == [victim_key]

    # With NFD's login token as the grant, options for NFD verified as NFC: refused too.
    created = third.register(registration_options(server, NFD, token=nfd["token"]), origin=server.origin)
    response = server.post("/api/umfa/registration/verify",
                           {"application_id": server.app_id, "user_id": NFC, "credential": created.data})
    assert error_body(response, 401) == REGISTRATION_FAILED
    assert credential_ids(server, NFC) == [victim_key]
    assert credential_ids(server, NFD) == [nfd["credential_id"]]


def test_a_challenge_or_passkey_of_one_spelling_never_signs_in_the_other(server, device, victim, attacker):
    victim_key, _ = victim
    nfd_key = attacker.register(NFD)["credential_id"]

    # The NFC user's passkey over a challenge issued for NFD, named as either spelling (§7.2
    # step 5 refuses this as well: NFD's list never holds NFC's passkey).
    for named in (NFD, NFC):
        options = allowing(authentication_options(server, NFD), [victim_key])
        assertion = device.authenticator.get(options, origin=server.origin)
        assert error_body(verify_login(server, named, assertion.data), 401) == AUTH_FAILED, named

    # NFD's passkey over NFD's own challenge, claimed as NFC: the challenge's user is compared
    # as bytes.
    assertion = attacker.authenticator.get(authentication_options(server, NFD), origin=server.origin)
    assert error_body(verify_login(server, NFC, assertion.data), 401) == AUTH_FAILED
    # NFD's passkey over a challenge for no user (a discoverable sign-in), claimed as NFC: the
    # named user is compared with the passkey's owner as bytes.
    assertion = attacker.authenticator.get(authentication_options(server, None), origin=server.origin)
    assert error_body(verify_login(server, NFC, assertion.data), 401) == AUTH_FAILED

    # Each passkey still signs in its own user, and no other.
    assertion = attacker.authenticator.get(authentication_options(server, None), origin=server.origin)
    out = server.ok("POST", "/api/umfa/authentication/verify",
                    {"application_id": server.app_id, "credential": assertion.data})
    assert (out["user_id"], out["credential_id"]) == (NFD, nfd_key), out
    assert attacker.login(NFD)["credential_id"] == nfd_key
    assert device.login(NFC)["credential_id"] == victim_key


def test_a_login_token_validates_only_for_its_own_spelling(server, victim, attacker):
    _, nfc_token = victim
    nfd_token = attacker.register(NFD)["token"]

    assert server.ok("POST", "/api/umfa/validate-token", {"application_id": server.app_id, "user_id": NFC,
                                                           "token": nfc_token}, bearer=server.api_key)["user_id"] == NFC
    assert server.ok("POST", "/api/umfa/validate-token", {"application_id": server.app_id, "user_id": NFD,
                                                           "token": nfd_token}, bearer=server.api_key)["user_id"] == NFD
    for user_id, token in ((NFD, nfc_token), (NFC, nfd_token)):
        body = error_body(validate_token(server, user_id, token), 401)
        assert body == {"status": 401, "message": TOKEN_FOR_ANOTHER_USER}, (user_id, body)


def test_user_id_limit_is_256_utf8_bytes_not_characters(server):
    one_character = "e" + "\u0301" * 300  # one grapheme, 601 bytes
    just_over = "e" + "\u0301" * 128  # one grapheme, 257 bytes
    at_limit = "e" + "\u0301" * 127 + "x"  # two graphemes, 256 bytes
    assert (len(one_character.encode()), len(just_over.encode()), len(at_limit.encode())) == (601, 257, 256)

    for user_id in (one_character, just_over):
        for path in ("/api/umfa/registration/options", "/api/umfa/authentication/options"):
            response = server.post(path, {"application_id": server.app_id, "user_id": user_id})
            assert error_body(response, 400) == USER_ID_TOO_LONG, path
        assert error_body(validate_token(server, user_id, "x"), 400) == USER_ID_TOO_LONG
        response = server.post("/api/umfa/enrollment-tokens", {"application_id": server.app_id, "user_id": user_id},
                               bearer=server.api_key)
        assert error_body(response, 400) == USER_ID_TOO_LONG
        path = f"/api/umfa/users/{urllib.parse.quote(user_id, safe='')}/credentials?application_id={server.app_id}"
        assert error_body(server.get(path, bearer=server.api_key), 400) == USER_ID_TOO_LONG

    # 256 bytes is allowed and kept whole: the user made by its options is found by exactly that id.
    options = registration_options(server, at_limit)
    assert options["publicKey"]["user"]["name"] == at_limit
    assert credential_ids(server, at_limit) == []
    response = server.get(f"/api/umfa/users/{urllib.parse.quote(at_limit[:-1], safe='')}/credentials"
                          f"?application_id={server.app_id}", bearer=server.api_key)
    assert error_body(response, 404) == {"status": 404, "message": "Unknown user"}

    # display_name is limited in bytes the same way.
    response = server.post("/api/umfa/registration/options", {"application_id": server.app_id, "user_id": "dana",
                                                              "display_name": "e" + "\u0301" * 128})
    assert error_body(response, 400) == {"status": 400, "message": "display_name must be at most 256 bytes of UTF-8"}


# -- no user enumeration ---------------------------------------------------------------------


def test_failed_sign_ins_read_the_same_for_unknown_and_real_users(server):
    alice, bob, stranger = SoftKey(server), SoftKey(server), SoftKey(server)  # the stranger is never registered
    register_soft(server, "alice", alice)
    register_soft(server, "bob", bob)

    def attempt(route: str, user_id: str, key: SoftKey, wrong_key: bool = False) -> requests.Response:
        options = authentication_options(server, user_id)
        credential = key.assertion(options, sign_count=secrets.randbelow(1000) + 100, wrong_key=wrong_key)
        return server.post(route, {"application_id": server.app_id, "user_id": user_id, "credential": credential})

    failures = {}
    for route in ("/api/umfa/authentication/verify", "/api/umfa/unenroll"):
        failures.update({
            (route, "unknown user, unregistered credential"): attempt(route, "nobody", stranger),
            (route, "unknown user, another user's credential"): attempt(route, "nobody-else", alice),
            (route, "real user, wrong signature"): attempt(route, "alice", alice, wrong_key=True),
            (route, "real user, unregistered credential"): attempt(route, "alice", stranger),
            (route, "real user, another user's credential"): attempt(route, "alice", bob),
        })

    def seen(response: requests.Response) -> tuple:
        headers = {k.lower(): v for k, v in response.headers.items() if k.lower() != "date"}
        return response.status_code, error_body(response, 401), headers

    answers = {case: seen(response) for case, response in failures.items()}
    first = next(iter(answers.values()))
    assert first[1] == AUTH_FAILED
    different = {case: answer for case, answer in answers.items() if answer != first}
    assert not different, f"failures that tell themselves apart from {first}: {different}"

    # The real users are untouched: both still sign in.
    for user_id, key in (("alice", alice), ("bob", bob)):
        credential = key.assertion(authentication_options(server, user_id), sign_count=5000)
        assert server.ok("POST", "/api/umfa/authentication/verify", {"application_id": server.app_id,
                                                                      "user_id": user_id,
                                                                      "credential": credential})["user_id"] == user_id


def test_pseudo_credentials_are_stable_and_shaped_like_a_real_users_list(server):
    def allow(user_id: str) -> list[dict]:
        return authentication_options(server, user_id)["publicKey"]["allowCredentials"]

    # An application without credentials: the shape of a single platform passkey.
    assert shape(allow("nobody")) == [(32, ["hybrid", "internal"])]

    # alice has two passkeys of unusual shapes, oldest first.
    first, second = SoftKey(server, 16, ("usb",)), SoftKey(server, 48, ("ble", "nfc"))
    token = register_soft(server, "alice", first)["token"]
    register_soft(server, "alice", second, token=token)
    real = allow("alice")
    assert [c["id"] for c in real] == [first.id_b64u, second.id_b64u]
    assert shape(real) == [(16, ["usb"]), (48, ["ble", "nfc"])]
    # A user who asked for options but never finished registering has no credential either.
    registration_options(server, "carol")

    lists = {}
    for user_id in ("nobody", "mallory", "x" * 256, NFC, "carol"):
        pseudo = allow(user_id)
        assert shape(pseudo) == shape(real), (user_id, pseudo)
        assert all(c["type"] == "public-key" for c in pseudo), pseudo
        assert pseudo == allow(user_id), f"{user_id!r} got another list the second time"
        lists[user_id] = [c["id"] for c in pseudo]
    ids = [i for listed in lists.values() for i in listed]
    assert len(set(ids)) == len(ids), f"pseudo ids repeat across users: {lists}"
    assert not set(ids) & {first.id_b64u, second.id_b64u}

    # With another real user of another shape, an unknown user's list is shaped like one of them.
    bob = SoftKey(server, 24, ("hybrid",))
    register_soft(server, "bob", bob)
    real_shapes = [shape(real), [(24, ["hybrid"])]]
    for number in range(12):
        assert shape(allow(f"unknown-{number}")) in real_shapes


# -- sign-count race -------------------------------------------------------------------------


@pytest.fixture
def alice_soft(server):
    """alice with a SoftKey passkey (stored sign count 0)."""
    key = SoftKey(server)
    register_soft(server, "alice", key)
    return key


def stored_sign_count(server, user_id: str) -> int:
    path = f"/api/umfa/users/{user_id}/credentials?application_id={server.app_id}"
    (credential,) = server.ok("GET", path, bearer=server.api_key)["credentials"]
    return credential["sign_count"]


def test_two_assertions_with_one_sign_count_sent_together_only_one_passes(server, alice_soft):
    url = server.base + "/api/umfa/authentication/verify"
    for count in range(1, 7):  # several rounds: a lost race must never let both through
        bodies = [{"application_id": server.app_id, "user_id": "alice",
                   "credential": alice_soft.assertion(authentication_options(server, "alice"), sign_count=count)}
                  for _ in range(2)]
        answers = [None, None]
        start = threading.Barrier(2)

        def send(index: int) -> None:
            start.wait()
            answers[index] = requests.post(url, json=bodies[index], timeout=15)

        threads = [threading.Thread(target=send, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        statuses = sorted(a.status_code for a in answers)
        assert statuses == [200, 401], f"round {count}: {[(a.status_code, a.text[:100]) for a in answers]}"
        refused = next(a for a in answers if a.status_code == 401)
        assert error_body(refused, 401) == AUTH_FAILED
        assert stored_sign_count(server, "alice") == count


def test_a_second_assertion_with_the_same_sign_count_is_refused(server, alice_soft):
    first = alice_soft.assertion(authentication_options(server, "alice"), sign_count=7)
    replay = alice_soft.assertion(authentication_options(server, "alice"), sign_count=7)
    assert server.ok("POST", "/api/umfa/authentication/verify", {"application_id": server.app_id,
                                                                  "user_id": "alice", "credential": first})
    assert error_body(verify_login(server, "alice", replay), 401) == AUTH_FAILED
    lower = alice_soft.assertion(authentication_options(server, "alice"), sign_count=6)
    assert error_body(verify_login(server, "alice", lower), 401) == AUTH_FAILED
    assert stored_sign_count(server, "alice") == 7
    # The next value passes.
    after = alice_soft.assertion(authentication_options(server, "alice"), sign_count=8)
    assert verify_login(server, "alice", after).status_code == 200
    assert stored_sign_count(server, "alice") == 8


# -- UTF-8 throughout; limits stop guessing, not owners --------------------------------------


def test_json_bodies_must_be_utf8_without_nul_even_in_ignored_members(server):
    app = server.app_id.encode()
    good = b'{"application_id": "%s", "user_id": "bob", "junk": "fine"}' % app
    assert server.post("/api/umfa/authentication/options", data=good).status_code == 200

    bad_bodies = {
        "invalid UTF-8 in an ignored member": b'{"application_id": "%s", "user_id": "bob", "junk": "\xff\xfe"}' % app,
        "overlong encoding": b'{"application_id": "%s", "user_id": "bob", "junk": "\xc0\xaf"}' % app,
        "UTF-8 encoded surrogate": b'{"application_id": "%s", "user_id": "bob", "junk": "\xed\xa0\x80"}' % app,
        "NUL in an ignored member": b'{"application_id": "%s", "user_id": "bob", "junk": "a\x00b"}' % app,
        "NUL in user_id": b'{"application_id": "%s", "user_id": "b\x00ob"}' % app,
        "NUL between members": b'{"application_id": "%s",\x00 "user_id": "bob"}' % app,
        "UTF-16": json.dumps({"application_id": server.app_id, "user_id": "bob"}).encode("utf-16-le"),
    }
    routes = [
        ("/api/umfa/authentication/options", None),
        ("/api/umfa/registration/options", None),
        ("/api/umfa/validate-token", server.api_key),
        ("/api/admin/applications", ADMIN_TOKEN),
    ]
    failures = []
    for path, key in routes:
        for name, body in bad_bodies.items():
            response = server.post(path, data=body, bearer=key)
            try:
                assert error_body(response, 400) == NOT_UTF8
            except AssertionError as error:
                failures.append(f"{path}, {name}: {error}")
    assert not failures, "\n".join(failures)
    # Nothing was made of them: bob is still unknown.
    response = server.get(f"/api/umfa/users/bob/credentials?application_id={server.app_id}", bearer=server.api_key)
    assert error_body(response, 404) == {"status": 404, "message": "Unknown user"}


def test_a_guessing_address_is_limited_but_valid_secrets_still_work_from_it(serve):
    server = serve(env={"UMFA_LIMIT_ADDRESS_FAILURES": "3", "UMFA_LIMIT_CREDENTIAL_FAILURES": "3"})
    alice = SoftKey(server)
    token = register_soft(server, "alice", alice)["token"]

    def assert_limited(response: requests.Response) -> None:
        body = error_body(response, 429)
        seconds = int(response.headers["Retry-After"])
        assert 0 < seconds <= 30, response.headers
        assert body == {"status": 429, "message": f"Too many failed attempts; try again in {seconds} seconds"}

    # Failed sign-ins for three users reach the address limit; the fourth is not even judged.
    stranger = SoftKey(server)
    for number in range(3):
        user_id = f"user-{number}"
        credential = stranger.assertion(authentication_options(server, user_id), sign_count=1)
        assert error_body(verify_login(server, user_id, credential), 401) == AUTH_FAILED
    credential = stranger.assertion(authentication_options(server, "user-3"), sign_count=1)
    assert_limited(verify_login(server, "user-3", credential))

    # Wrong API keys and admin tokens from the same address: 401 up to the limit, then 429.
    wrong_key = "umfa_ak_" + secrets.token_urlsafe(32)
    wrong_admin = "umfa_admin_" + secrets.token_urlsafe(32)
    bad_key = {"status": 401, "message": "The API key is not valid for this application"}
    bad_admin = {"status": 401, "message": "Missing or invalid admin token"}
    assert error_body(validate_token(server, "alice", token, key=wrong_key), 401) == bad_key
    assert error_body(server.get("/api/admin/applications", bearer=wrong_admin), 401) == bad_admin
    assert error_body(validate_token(server, "alice", token, key=wrong_key + "x"), 401) == bad_key
    assert_limited(server.get("/api/admin/applications", bearer=wrong_admin))
    assert_limited(validate_token(server, "alice", token, key=wrong_key))

    # The valid admin token and API key are still served from this address...
    apps = server.ok("GET", "/api/admin/applications", bearer=ADMIN_TOKEN)
    assert server.app_id in json.dumps(apps), apps
    assert server.ok("POST", "/api/umfa/validate-token", {"application_id": server.app_id, "user_id": "alice",
                                                           "token": token}, bearer=server.api_key)["user_id"] == "alice"
    path = f"/api/umfa/users/alice/credentials?application_id={server.app_id}"
    assert server.ok("GET", path, bearer=server.api_key)["credentials"][0]["credential_id"] == alice.id_b64u
    # ...and using them does not lift the block for the guesses.
    assert_limited(server.get("/api/admin/applications", bearer=wrong_admin))
    assert_limited(validate_token(server, "alice", token, key=wrong_key))
