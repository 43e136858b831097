"""The device commands (docs/contract.md §3): `umfa enroll / authenticate / status / unenroll` run the
SDK as a device against a live `umfa serve` (its development application: policy open, rp_id
localhost, origin http://localhost:PORT). Each prints the SDK's result as one JSON object and
exits 0, or exits non-zero with the ZSMError (`code: message`) on stderr."""

import base64
import json
import re
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cbor2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from jwt import PyJWKClient

from support import ADMIN_TOKEN, DeviceCLI, Server

ISSUER = "UMFA::Authenticator"
CREDENTIAL_ID = re.compile(r"^[A-Za-z0-9_-]{43}$")  # 32 random bytes, base64url without padding


@pytest.fixture
def cli(server: Server, umfa, tmp_path: Path) -> DeviceCLI:
    """The device commands with the device dir tmp_path/"device", for the development app."""
    return DeviceCLI(umfa, server.base, server.app_id, server.origin, tmp_path / "device")


def other_device(cli: DeviceCLI, directory: Path, app_id: str | None = None, origin: str | None = None) -> DeviceCLI:
    return DeviceCLI(cli.umfa, cli.server_url, app_id or cli.app_id, origin or cli.origin, directory)


def claims(server: Server, token: str, app_id: str) -> dict:
    """The login token's claims, its signature checked by PyJWT with the server's JWKS."""
    key = PyJWKClient(f"{server.base}/.well-known/jwks.json").get_signing_key_from_jwt(token)
    return jwt.decode(token, key.key, algorithms=["RS256"], audience=app_id, issuer=ISSUER)


def validate_token(umfa, server: Server, api_key: str, app_id: str, user: str, token: str):
    return umfa.run("validate-token", "--server", server.base, "--api-key", api_key, "--app", app_id,
                    "--user", user, "--token", token)


def server_credentials(server: Server, user: str, app_id: str | None = None, api_key: str | None = None) -> list[dict]:
    app_id = app_id or server.app_id
    return server.ok("GET", f"/api/umfa/users/{user}/credentials?application_id={app_id}",
                     bearer=api_key or server.api_key)["credentials"]


def grant(server: Server, user: str, app_id: str | None = None, api_key: str | None = None) -> str:
    """An enrollment token from POST /api/umfa/enrollment-tokens (the application's backend)."""
    return server.ok("POST", "/api/umfa/enrollment-tokens", {"application_id": app_id or server.app_id,
                                                             "user_id": user},
                     status=201, bearer=api_key or server.api_key)["enrollment_token"]


def credential_files(device_dir: Path) -> list[Path]:
    directory = device_dir / "credentials"
    return sorted(directory.iterdir()) if directory.exists() else []


def assert_zsm_error(result, code: str, *words: str) -> str:
    """stderr names the ZSMError code and, case-insensitively, each of `words`."""
    message = result.stderr.strip()
    assert code in message, f"expected {code}:\n{result}"
    for word in words:
        assert word.lower() in message.lower(), f"expected {word!r} in the message:\n{result}"
    return message


# -- the whole life of a passkey --------------------------------------------------------------


def test_enroll_status_authenticate_validate_unenroll(server, umfa, cli):
    assert cli.status("alice") == {"enrolled": False, "user_id": "alice"}

    enrolled = cli.enroll("alice", "--device-name", "laptop")
    assert enrolled["user_id"] == "alice", enrolled
    assert CREDENTIAL_ID.match(enrolled["credential_id"]), enrolled
    assert enrolled["token"].count(".") == 2, enrolled
    assert enrolled["user_verification"] == "none", enrolled
    credential_id = enrolled["credential_id"]

    status = cli.status("alice")
    assert status["enrolled"] is True and status["user_id"] == "alice", status
    assert status["credential_id"] == credential_id, status

    # The server holds the same credential, under the device name given.
    [stored] = server_credentials(server, "alice")
    assert stored["credential_id"] == credential_id, stored
    assert stored["device_name"] == "laptop", stored

    login = cli.authenticate("alice")
    assert login["user_id"] == "alice" and login["credential_id"] == credential_id, login
    assert login["token"].count(".") == 2 and login["token"] != enrolled["token"], login
    token_claims = claims(server, login["token"], server.app_id)
    assert token_claims["user_id"] == "alice" and token_claims["credential_id"] == credential_id, token_claims
    assert "pin" not in token_claims["amr"], f"no PIN was used, yet amr says so: {token_claims}"

    # The application's backend accepts the token for alice, and only for alice.
    accepted = validate_token(umfa, server, server.api_key, server.app_id, "alice", login["token"])
    assert accepted.code == 0, accepted
    assert accepted.json()["user_id"] == "alice", accepted
    refused = validate_token(umfa, server, server.api_key, server.app_id, "mallory", login["token"])
    assert refused.code != 0, refused

    removed = cli.unenroll("alice")
    assert removed == {"success": True, "user_id": "alice"}, removed
    assert cli.status("alice") == {"enrolled": False, "user_id": "alice"}
    assert server_credentials(server, "alice") == []
    assert credential_files(cli.device_dir) == [], "the passkey stayed on the device after unenroll"

    gone = cli.fails("authenticate", "alice")
    assert_zsm_error(gone, "notEnrolled", "enroll")
    assert gone.stdout.strip() == "", gone


def test_two_users_on_one_device_stay_apart(server, cli):
    first = cli.enroll("ann")["credential_id"]
    second = cli.enroll("ben")["credential_id"]
    assert first != second
    assert cli.authenticate("ann")["credential_id"] == first
    assert cli.authenticate("ben")["credential_id"] == second
    assert cli.unenroll("ann")["success"] is True
    assert cli.status("ann")["enrolled"] is False
    assert cli.status("ben")["credential_id"] == second
    assert cli.authenticate("ben")["credential_id"] == second


# -- PIN -------------------------------------------------------------------------------------


def test_pin_protects_the_passkey_and_locks_after_eight_wrong(server, cli):
    pin = "493817"
    enrolled = cli.enroll("pia", pin=pin)
    assert enrolled["user_verification"] == "pin", enrolled
    assert "pin" in claims(server, enrolled["token"], server.app_id)["amr"], enrolled

    login = cli.authenticate("pia", pin=pin)
    amr = claims(server, login["token"], server.app_id)["amr"]
    assert "pin" in amr and "swk" in amr, amr

    # No PIN at all, or an empty line: refused without counting as a wrong PIN.
    assert_zsm_error(cli.fails("authenticate", "pia"), "userVerificationFailed", "pin")
    assert_zsm_error(cli.fails("authenticate", "pia", pin=""), "cancelled", "pin")

    for left in range(7, 0, -1):
        assert_zsm_error(cli.fails("authenticate", "pia", pin=f"11111{left}"), "userVerificationFailed",
                         f"{left} attempts left")
    locked = cli.fails("authenticate", "pia", pin="999999")
    assert_zsm_error(locked, "lockedOut", "too many")
    # Locked means locked: the right PIN does not open it either.
    assert_zsm_error(cli.fails("authenticate", "pia", pin=pin), "lockedOut")
    assert cli.status("pia")["enrolled"] is True


def test_wrong_pins_tried_in_parallel_all_count(server, cli):
    """Three wrong PINs from processes started together, then a fourth: every one counts, so the
    fourth leaves 4 of the 8 attempts. (A count that loses parallel attempts lets a script that
    runs N guesses at a time try about 8 × N PINs before the passkey locks, instead of 8.)"""
    pin = "246810"
    cli.enroll("quinn", pin=pin)
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda i: cli.run("authenticate", "quinn", pin=f"0000{i:02d}"), range(3)))
    assert all(r.code != 0 and "userVerificationFailed" in r.stderr for r in results), results
    fourth = cli.fails("authenticate", "quinn", pin="000099")
    parallel = sorted(r.stderr.strip() for r in results)
    assert "4 attempts left" in fourth.stderr, (
        f"after 3 parallel wrong PINs and one more: {fourth.stderr.strip()!r}; the parallel ones said {parallel}")


# -- enrollment policy -----------------------------------------------------------------------


def test_second_device_of_a_user_needs_a_grant(server, cli, tmp_path):
    first = cli.enroll("gina")["credential_id"]

    phone = other_device(cli, tmp_path / "phone")
    refused = phone.fails("enroll", "gina")
    assert_zsm_error(refused, "enrollmentNotAllowed", "enrollment token")
    assert phone.status("gina") == {"enrolled": False, "user_id": "gina"}
    assert credential_files(phone.device_dir) == [], "a refused enrollment left a key on the device"

    token = grant(server, "gina")
    second = phone.enroll("gina", "--enrollment-token", token)
    assert second["user_id"] == "gina" and second["credential_id"] != first, second
    assert phone.authenticate("gina")["credential_id"] == second["credential_id"]
    assert cli.authenticate("gina")["credential_id"] == first
    assert {c["credential_id"] for c in server_credentials(server, "gina")} == {first, second["credential_id"]}

    # The grant was spent.
    tablet = other_device(cli, tmp_path / "tablet")
    assert_zsm_error(tablet.fails("enroll", "gina", "--enrollment-token", token), "verificationFailed",
                     "enrollment token")
    assert tablet.status("gina")["enrolled"] is False

    # UMFA_ENROLLMENT_TOKEN works like --enrollment-token.
    third = tablet.enroll("gina", env={"UMFA_ENROLLMENT_TOKEN": grant(server, "gina")})
    assert tablet.authenticate("gina")["credential_id"] == third["credential_id"]


def test_grant_policy_application(server, cli, tmp_path):
    app = server.ok("POST", "/api/admin/applications",
                    {"name": "Bank", "rp_id": "localhost", "origins": [server.origin], "enrollment_policy": "grant"},
                    status=201, bearer=ADMIN_TOKEN)
    app_id, api_key = app["application_id"], app["api_key"]
    bank = other_device(cli, tmp_path / "bank", app_id=app_id)

    refused = bank.fails("enroll", "ivan")
    assert_zsm_error(refused, "enrollmentNotAllowed", "enrollment token")
    assert bank.status("ivan")["enrolled"] is False
    assert credential_files(bank.device_dir) == []

    # A grant of another application is no grant here.
    foreign = grant(server, "ivan")
    assert bank.fails("enroll", "ivan", "--enrollment-token", foreign).code != 0
    assert bank.status("ivan")["enrolled"] is False

    enrolled = bank.enroll("ivan", "--enrollment-token", grant(server, "ivan", app_id, api_key))
    login = bank.authenticate("ivan")
    assert login["credential_id"] == enrolled["credential_id"], login
    accepted = validate_token(bank.umfa, server, api_key, app_id, "ivan", login["token"])
    assert accepted.code == 0, accepted
    # The development application's key cannot validate the bank's token.
    assert validate_token(bank.umfa, server, server.api_key, app_id, "ivan", login["token"]).code != 0
    assert bank.unenroll("ivan")["success"] is True


# -- failures --------------------------------------------------------------------------------


def test_unenroll_with_the_server_down_keeps_the_passkey(serve, umfa, tmp_path):
    server = serve()
    cli = DeviceCLI(umfa, server.base, server.app_id, server.origin, tmp_path / "device")
    credential_id = cli.enroll("ken")["credential_id"]
    server.stop()

    failed = cli.fails("unenroll", "ken")
    assert "could not be removed" in failed.stderr or "networkError" in failed.stderr, failed
    if failed.stdout.strip():
        assert failed.json().get("success") is False, failed
    status = cli.status("ken")
    assert status["enrolled"] is True and status["credential_id"] == credential_id, status
    assert len(credential_files(cli.device_dir)) == 1

    # Back up on the same data and port: the retry succeeds.
    serve(data_dir=server.data_dir, port=server.port)
    assert cli.unenroll("ken")["success"] is True
    assert cli.status("ken")["enrolled"] is False


def test_registration_refused_by_the_server_leaves_no_key(server, cli, tmp_path):
    stranger = other_device(cli, tmp_path / "stranger", origin="http://localhost:1")
    refused = stranger.fails("enroll", "olga")
    assert_zsm_error(refused, "verificationFailed")
    assert stranger.status("olga")["enrolled"] is False
    assert credential_files(stranger.device_dir) == [], "the refused passkey stayed on the device"
    assert server_credentials(server, "olga") == []


def _flip_sealed_key(path: Path) -> None:
    data = json.loads(path.read_text())
    sealed = bytearray(base64.urlsafe_b64decode(data["sealedPrivateKey"] + "=="))
    sealed[20] ^= 0x01
    data["sealedPrivateKey"] = base64.urlsafe_b64encode(bytes(sealed)).rstrip(b"=").decode()
    path.write_text(json.dumps(data))


DAMAGES = {
    "garbage": lambda path: path.write_bytes(b"\x00\xffnot json at all"),
    "truncated": lambda path: path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2]),
    "empty": lambda path: path.write_bytes(b""),
    "wrong types": lambda path: path.write_text('{"id": 7, "rpID": ["x"], "signCount": "many"}'),
    "sealed key altered": _flip_sealed_key,
}


def test_damaged_credential_file_fails_cleanly(server, cli, tmp_path):
    for index, (name, damage) in enumerate(DAMAGES.items()):
        device = other_device(cli, tmp_path / f"damaged-{index}")
        user = f"dora{index}"
        credential_id = device.enroll(user)["credential_id"]
        [path] = credential_files(device.device_dir)
        damage(path)
        failed = device.fails("authenticate", user)
        assert_zsm_error(failed, "keyStoreDamaged")
        assert failed.stdout.strip() == "", f"{name}: {failed}"
        # The device's own record is intact, and the damaged key is still on disk for recovery.
        assert device.status(user)["credential_id"] == credential_id, name
        assert path.exists(), name
        # The server still holds the credential: nothing was removed on a failed assertion.
        assert [c["credential_id"] for c in server_credentials(server, user)] == [credential_id], name


def test_damaged_device_records_fail_cleanly(cli):
    cli.enroll("eva")
    (cli.device_dir / "enrollments.json").write_text("[{broken")
    assert_zsm_error(cli.fails("status", "eva"), "keyStoreDamaged", "enrollments.json")
    assert_zsm_error(cli.fails("authenticate", "eva"), "keyStoreDamaged")
    (cli.device_dir / "device.key").write_bytes(b"short")
    assert_zsm_error(cli.fails("authenticate", "eva"), "keyStoreDamaged", "device.key")


# -- what the device dir holds ---------------------------------------------------------------


def _decodings(data: bytes) -> list[bytes]:
    """The file itself plus every base64url / base64 / hex run in it, decoded."""
    out = [data]
    text = data.decode("latin-1")
    for run in re.findall(r"[A-Za-z0-9_+/=-]{16,}", text):
        for candidate in (run, run.replace("-", "+").replace("_", "/")):
            try:
                out.append(base64.b64decode(candidate.rstrip("=") + "=" * (-len(candidate.rstrip("=")) % 4)))
            except ValueError:
                pass
        if re.fullmatch(r"[0-9a-fA-F]+", run) and len(run) % 2 == 0:
            out.append(bytes.fromhex(run))
    return out


def _private_key_in_clear(blobs: list[bytes], public_xs: set[int]) -> bool:
    """Whether any 32-byte window of any blob is a P-256 private scalar for one of the keys."""
    order = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
    for blob in blobs:
        for start in range(0, max(0, len(blob) - 31)):
            scalar = int.from_bytes(blob[start:start + 32], "big")
            if 0 < scalar < order:
                x = ec.derive_private_key(scalar, ec.SECP256R1()).public_key().public_numbers().x
                if x in public_xs:
                    return True
    return False


def test_device_dir_is_private_and_holds_no_secret_in_clear(server, cli):
    pin = "58204716"
    enrollment_token = grant(server, "lena")
    tokens = [cli.enroll("lena", "--enrollment-token", enrollment_token, pin=pin)["token"],
              cli.authenticate("lena", pin=pin)["token"],
              cli.enroll("max")["token"], cli.authenticate("max")["token"]]
    cli.fails("authenticate", "lena", pin="12345678")  # leaves an attempt count behind

    root = cli.device_dir
    paths = [root, *root.rglob("*")]
    for path in paths:
        mode = stat.S_IMODE(path.stat().st_mode)
        expected = 0o700 if path.is_dir() else 0o600
        assert mode == expected, f"{path.relative_to(root.parent)} has mode {oct(mode)}, expected {oct(expected)}"
        assert ".tmp-" not in path.name, f"leftover temporary file {path}"
    files = [p for p in paths if p.is_file()]
    assert len(credential_files(root)) == 2, files

    secrets_in_clear = {"PIN": pin.encode(), "enrollment token": enrollment_token.encode()}
    for index, token in enumerate(tokens):
        secrets_in_clear[f"login token {index}"] = token.encode()
        secrets_in_clear[f"login token {index} signature"] = token.rsplit(".", 1)[1].encode()
    public_xs = set()
    for path in credential_files(root):
        cose = cbor2.loads(base64.urlsafe_b64decode(json.loads(path.read_text())["publicKey"] + "=="))
        public_xs.add(int.from_bytes(cose[-2], "big"))
    assert len(public_xs) == 2

    for path in files:
        blobs = _decodings(path.read_bytes())
        for name, secret in secrets_in_clear.items():
            assert not any(secret in blob for blob in blobs), f"the {name} is stored in {path.relative_to(root)}"
        assert not _private_key_in_clear(blobs, public_xs), f"a private key is in clear in {path.relative_to(root)}"
