"""The independent check of the device commands: a tiny relying party written here with
py_webauthn 3.0.1 (an independent WebAuthn implementation) serves the device routes of
docs/contract.md §2, and `umfa enroll / authenticate / unenroll` run against it. py_webauthn must accept
the SDK authenticator's registration and assertions (UV set with a PIN, the sign count rising),
the signed `uvm` extension must name the PIN, and a relying party that expects another
challenge must make `umfa authenticate` fail with verificationFailed."""

from __future__ import annotations

import io
import json
import secrets
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import cbor2
import pytest
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from support import DeviceCLI, free_port

RP_ID = "localhost"
PIN_UVM = {"uvm": [[4, 1, 1]]}  # USER_VERIFY_PASSCODE_INTERNAL, KEY_PROTECTION_SOFTWARE, MATCHER_PROTECTION_SOFTWARE


def authenticator_data_parts(auth_data: bytes) -> tuple[int, int, Any]:
    """(flags, sign count, decoded extensions or None), parsed with cbor2 byte by byte: the
    attested credential data (when AT is set), then the extensions (when ED is set), and
    nothing may be left over."""
    flags, sign_count = auth_data[32], int.from_bytes(auth_data[33:37], "big")
    stream = io.BytesIO(auth_data[37:])
    if flags & 0x40:
        stream.read(16)  # aaguid
        stream.read(int.from_bytes(stream.read(2), "big"))  # credential id
        cbor2.CBORDecoder(stream).decode()  # credential public key
    extensions = cbor2.CBORDecoder(stream).decode() if flags & 0x80 else None
    assert stream.read() == b"", f"bytes left over in authenticator data {auth_data.hex()}"
    return flags, sign_count, extensions


@dataclass
class Event:
    """One ceremony as the relying party saw it."""

    route: str
    user_id: str
    verified: Any = None  # py_webauthn's VerifiedRegistration / VerifiedAuthentication
    error: str | None = None
    flags: int = 0
    sign_count: int = 0
    extensions: Any = None

    @property
    def uv(self) -> bool:
        return bool(self.flags & 0x04)


@dataclass
class StoredCredential:
    user_id: str
    public_key: bytes
    sign_count: int


@dataclass
class IndependentRP:
    """The relying party: state, and py_webauthn doing every verification."""

    require_uv: bool
    port: int = field(default_factory=free_port)
    app_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    tamper_challenge: bool = False  # verify against another challenge than the one issued
    handles: dict[str, bytes] = field(default_factory=dict)
    credentials: dict[str, StoredCredential] = field(default_factory=dict)
    challenges: dict[bytes, tuple[str, str]] = field(default_factory=dict)  # challenge -> (user, ceremony)
    events: list[Event] = field(default_factory=list)
    assertion_counts: list[int] = field(default_factory=list)  # every assertion's counter, as received
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def origin(self) -> str:
        return f"http://localhost:{self.port}"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def user_verification(self) -> UserVerificationRequirement:
        return UserVerificationRequirement.REQUIRED if self.require_uv else UserVerificationRequirement.PREFERRED

    def last(self, route: str) -> Event:
        return [e for e in self.events if e.route == route][-1]

    def user_credentials(self, user_id: str) -> list[str]:
        return [cid for cid, c in self.credentials.items() if c.user_id == user_id]

    # -- routes ----------------------------------------------------------------------------

    def handle(self, path: str, body: dict) -> tuple[int, dict]:
        trace_id = body.get("trace_id") or str(uuid.uuid4())
        if body.get("application_id") != self.app_id or not isinstance(body.get("user_id"), str):
            return 400, {"status": 400, "trace_id": trace_id, "message": "unknown application or no user_id"}
        user_id = body["user_id"]
        routes = {
            "/api/umfa/registration/options": self.registration_options,
            "/api/umfa/registration/verify": self.registration_verify,
            "/api/umfa/authentication/options": self.authentication_options,
            "/api/umfa/authentication/verify": self.authentication_verify,
            "/api/umfa/unenroll": self.unenroll,
        }
        if path not in routes:
            return 404, {"status": 404, "trace_id": trace_id, "message": "no such route"}
        with self.lock:
            try:
                answer = routes[path](user_id, body)
            except Exception as error:  # py_webauthn's refusal, or a missing challenge
                route = path.removeprefix("/api/umfa/").replace("/verify", "")
                self.events.append(Event(route, user_id, error=f"{type(error).__name__}: {error}"))
                return 401, {"status": 401, "trace_id": trace_id, "message": f"py_webauthn refused: {error}"}
        return 200, {"trace_id": trace_id, **answer}

    def _issue(self, challenge: bytes, user_id: str, kind: str) -> None:
        self.challenges[challenge] = (user_id, kind)

    def _expected(self, user_id: str, kind: str, credential: dict) -> bytes:
        """The challenge this RP issued for the user and ceremony that the response names,
        consumed now; with tamper_challenge, another one."""
        client_data = json.loads(base64url_to_bytes(credential["response"]["clientDataJSON"]))
        challenge = base64url_to_bytes(client_data["challenge"])
        if self.challenges.pop(challenge, None) != (user_id, kind):
            raise ValueError("challenge not issued by this RP for this user and ceremony")
        return secrets.token_bytes(32) if self.tamper_challenge else challenge

    def registration_options(self, user_id: str, body: dict) -> dict:
        handle = self.handles.setdefault(user_id, secrets.token_bytes(16))
        options = generate_registration_options(
            rp_id=RP_ID, rp_name="Independent RP", user_name=user_id, user_id=handle,
            user_display_name=body.get("display_name") or user_id,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.DISCOURAGED, user_verification=self.user_verification),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c))
                                 for c in self.user_credentials(user_id)],
        )
        self._issue(options.challenge, user_id, "registration")
        public_key = json.loads(options_to_json(options))
        public_key["extensions"] = {"uvm": True}
        return {"publicKey": public_key}

    def registration_verify(self, user_id: str, body: dict) -> dict:
        credential = body["credential"]
        verified = verify_registration_response(
            credential=json.dumps(credential), expected_challenge=self._expected(user_id, "registration", credential),
            expected_origin=self.origin, expected_rp_id=RP_ID, require_user_verification=self.require_uv)
        credential_id = bytes_to_base64url(verified.credential_id)
        assert credential_id == credential["id"], (credential_id, credential["id"])
        self.credentials[credential_id] = StoredCredential(user_id, verified.credential_public_key,
                                                           verified.sign_count)
        auth_data = cbor2.loads(base64url_to_bytes(credential["response"]["attestationObject"]))["authData"]
        flags, sign_count, extensions = authenticator_data_parts(auth_data)
        self.events.append(Event("registration", user_id, verified, None, flags, sign_count, extensions))
        return {"user_id": user_id, "credential_id": credential_id, "token": "n/a"}

    def authentication_options(self, user_id: str, body: dict) -> dict:
        options = generate_authentication_options(
            rp_id=RP_ID, user_verification=self.user_verification,
            allow_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c))
                               for c in self.user_credentials(user_id)])
        self._issue(options.challenge, user_id, "authentication")
        public_key = json.loads(options_to_json(options))
        public_key["extensions"] = {"uvm": True}
        return {"publicKey": public_key}

    def _verify_assertion(self, route: str, user_id: str, body: dict) -> str:
        credential = body["credential"]
        flags, sign_count, extensions = authenticator_data_parts(
            base64url_to_bytes(credential["response"]["authenticatorData"]))
        self.assertion_counts.append(sign_count)
        expected = self._expected(user_id, "authentication", credential)
        stored = self.credentials.get(credential.get("id"))
        if stored is None or stored.user_id != user_id:
            raise ValueError("unknown credential for this user")
        user_handle = credential["response"].get("userHandle")
        if user_handle and base64url_to_bytes(user_handle) != self.handles[user_id]:
            raise ValueError("userHandle is not this user's")
        verified = verify_authentication_response(
            credential=json.dumps(credential), expected_challenge=expected, expected_origin=self.origin,
            expected_rp_id=RP_ID, credential_public_key=stored.public_key,
            credential_current_sign_count=stored.sign_count, require_user_verification=self.require_uv)
        stored.sign_count = verified.new_sign_count
        self.events.append(Event(route, user_id, verified, None, flags, sign_count, extensions))
        return credential["id"]

    def authentication_verify(self, user_id: str, body: dict) -> dict:
        credential_id = self._verify_assertion("authentication", user_id, body)
        return {"user_id": user_id, "credential_id": credential_id, "token": "n/a"}

    def unenroll(self, user_id: str, body: dict) -> dict:
        credential_id = self._verify_assertion("unenroll", user_id, body)
        del self.credentials[credential_id]
        return {"user_id": user_id, "credential_id": credential_id, "removed": True}


def start(rp: IndependentRP) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                status, answer = rp.handle(self.path, body if isinstance(body, dict) else {})
            except ValueError:
                status, answer = 400, {"status": 400, "trace_id": str(uuid.uuid4()), "message": "malformed JSON"}
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", rp.port), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


@pytest.fixture
def relying_party():
    """relying_party(require_uv) -> a running IndependentRP on a free loopback port."""
    servers = []

    def make(require_uv: bool) -> IndependentRP:
        rp = IndependentRP(require_uv=require_uv)
        servers.append(start(rp))
        return rp

    yield make
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


def device(umfa, rp: IndependentRP, directory: Path) -> DeviceCLI:
    return DeviceCLI(umfa, rp.base, rp.app_id, rp.origin, directory)


def test_py_webauthn_accepts_the_device_without_pin(relying_party, umfa, tmp_path):
    rp = relying_party(require_uv=False)
    cli = device(umfa, rp, tmp_path / "device")

    enrolled = cli.enroll("alice")
    assert enrolled == {**enrolled, "user_id": "alice", "token": "n/a"}, enrolled
    registration = rp.last("registration")
    assert registration.verified is not None, registration
    assert enrolled["credential_id"] == bytes_to_base64url(registration.verified.credential_id)
    assert registration.verified.user_verified is False, "UV claimed without any verification"
    assert registration.verified.sign_count == 0
    assert registration.extensions is None, f"uvm without a verified user: {registration.extensions}"

    for expected_count in (1, 2):
        login = cli.authenticate("alice")
        assert login["credential_id"] == enrolled["credential_id"] and login["token"] == "n/a", login
        event = rp.last("authentication")
        assert event.verified.new_sign_count == expected_count, event
        assert event.verified.user_verified is False and event.extensions is None, event

    assert cli.unenroll("alice") == {"success": True, "user_id": "alice"}
    assert rp.last("unenroll").verified.new_sign_count == 3
    assert rp.credentials == {}
    assert cli.status("alice")["enrolled"] is False


def test_py_webauthn_accepts_the_device_with_pin_and_reads_uvm(relying_party, umfa, tmp_path):
    rp = relying_party(require_uv=True)
    cli = device(umfa, rp, tmp_path / "device")
    pin = "731904"

    # UV required and no PIN configured: the device refuses before anything reaches the RP.
    refused = cli.fails("enroll", "bob")
    assert "userVerificationFailed" in refused.stderr, refused
    assert rp.credentials == {} and not [e for e in rp.events if e.route == "registration"]

    enrolled = cli.enroll("bob", pin=pin)
    registration = rp.last("registration")
    assert registration.verified.user_verified is True, registration
    assert registration.uv and registration.flags & 0x01, f"flags {registration.flags:#04x}"
    assert registration.extensions == PIN_UVM, registration.extensions
    assert enrolled["credential_id"] == bytes_to_base64url(registration.verified.credential_id)

    counts = []
    for _ in range(2):
        login = cli.authenticate("bob", pin=pin)
        event = rp.last("authentication")
        assert login["credential_id"] == enrolled["credential_id"], login
        assert event.verified.user_verified is True and event.uv, event
        assert event.extensions == PIN_UVM, event.extensions
        counts.append(event.verified.new_sign_count)
    assert counts == [1, 2], counts

    # A wrong PIN never reaches the RP as an assertion.
    before = len(rp.events)
    assert "userVerificationFailed" in cli.fails("authenticate", "bob", pin="000000").stderr
    assert len(rp.events) == before

    assert cli.unenroll("bob", pin=pin)["success"] is True
    unenroll = rp.last("unenroll")
    assert unenroll.verified.user_verified is True and unenroll.extensions == PIN_UVM, unenroll
    assert unenroll.verified.new_sign_count == 3
    assert rp.credentials == {}
    assert cli.status("bob")["enrolled"] is False


def test_rp_expecting_another_challenge_refuses(relying_party, umfa, tmp_path):
    rp = relying_party(require_uv=False)
    cli = device(umfa, rp, tmp_path / "device")
    credential_id = cli.enroll("carol")["credential_id"]
    cli.authenticate("carol")

    rp.tamper_challenge = True
    failed = cli.fails("authenticate", "carol")
    assert "verificationFailed" in failed.stderr, failed
    assert failed.stdout.strip() == "", failed
    assert "challenge" in rp.events[-1].error.lower(), rp.events[-1]
    assert "challenge" in failed.stderr.lower(), f"the RP's reason did not reach the user:\n{failed}"

    # An unenroll over a refused assertion removes nothing, anywhere.
    assert cli.fails("unenroll", "carol").code != 0
    assert credential_id in rp.credentials
    assert cli.status("carol")["credential_id"] == credential_id

    # A registration the RP refuses leaves no key on the device.
    other = device(umfa, rp, tmp_path / "other")
    assert "verificationFailed" in other.fails("enroll", "dan").stderr
    assert other.status("dan")["enrolled"] is False
    assert list((other.device_dir / "credentials").iterdir()) == []

    # Honest again: the counter moved on during the refused attempts, and only forward.
    rp.tamper_challenge = False
    before = rp.credentials[credential_id].sign_count
    cli.authenticate("carol")
    assert rp.last("authentication").verified.new_sign_count > before + 1


def test_parallel_sign_ins_never_reuse_a_counter(relying_party, umfa, tmp_path):
    """Several `umfa authenticate` processes on one device dir at once (two terminals, a script):
    every signature must carry its own counter value (WebAuthn L3 §6.1.1: the counter is
    incremented for each assertion), since a relying party takes a repeated value for a cloned
    authenticator and refuses it."""
    rp = relying_party(require_uv=False)
    cli = device(umfa, rp, tmp_path / "device")
    cli.enroll("erin")
    runs = 6
    with ThreadPoolExecutor(runs) as pool:
        results = list(pool.map(lambda _: cli.run("authenticate", "erin"), range(runs)))
    counts = sorted(rp.assertion_counts)
    assert len(counts) == runs, (counts, results)
    [path] = (cli.device_dir / "credentials").iterdir()
    stored = json.loads(path.read_text())["signCount"]
    refused = [r.stderr.strip() for r in results if r.code != 0]
    assert len(set(counts)) == runs and stored == runs, (
        f"{runs} parallel sign-ins signed with counters {counts}; the device's counter ends at {stored}; "
        f"the relying party refused {len(refused)}: {refused}")
