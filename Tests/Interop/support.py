"""Helpers for the interop suite: run `umfa`, write JSON files, drive the virtual
authenticator, build WebAuthn options with py_webauthn (an independent implementation), and run
a live `umfa serve` for the test_server_* files."""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

REPO = Path(__file__).resolve().parents[2]
RESOURCES = REPO / "Tests" / "UMFAWebAuthnTests" / "Resources"

RP_ID = "example.org"
ORIGIN = "https://example.org"
NATIVE_ORIGIN = "ios:bundle-id:com.example.app"

# What a crashing Swift process leaves on stderr, besides dying from a signal.
CRASH_MARKERS = ("Fatal error", "Stack dump", "Illegal instruction", "Segmentation fault", "Trace/breakpoint")


def umfa_binary() -> Path:
    path = os.environ.get("UMFA_BIN")
    if not path:
        bin_dir = subprocess.run(
            ["swift", "build", "--show-bin-path"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        path = os.path.join(bin_dir, "umfa")
    binary = Path(path)
    if not os.access(binary, os.X_OK):
        pytest.exit(f"umfa binary not found at {binary}; build it with `swift build --product umfa`", returncode=2)
    return binary


@dataclass
class Result:
    """One finished `umfa` run."""

    args: list[str]
    code: int
    stdout: str
    stderr: str

    def json(self) -> dict[str, Any]:
        try:
            return json.loads(self.stdout)
        except json.JSONDecodeError as error:
            raise AssertionError(f"no JSON on stdout ({error}):\n{self}") from None

    def __repr__(self) -> str:
        return (f"umfa {' '.join(self.args)}\nexit {self.code}\n"
                f"stdout: {self.stdout.strip()}\nstderr: {self.stderr.strip()}")

    __str__ = __repr__


class Umfa:
    """Runs the `umfa` binary. Every run is checked for crashes, whatever the test expects."""

    def __init__(self, binary: Path, cwd: Path):
        self.binary = binary
        self.cwd = cwd

    def run(self, *args: Any, input: str | None = None) -> Result:
        return self.run_env(None, *args, input=input)

    def run_env(self, env: dict[str, str] | None, *args: Any, input: str | None = None) -> Result:
        """Runs with `env` added to an environment without any inherited UMFA_* variable (None:
        the environment as inherited); `input`, when given, is piped to standard input."""
        argv = [str(a) for a in args]
        if env is not None:
            env = {**{k: v for k, v in os.environ.items() if not k.startswith("UMFA_")}, **env}
        done = subprocess.run(
            [str(self.binary), *argv], cwd=self.cwd, env=env, capture_output=True, text=True, timeout=120,
            input=input,
        )
        result = Result(argv, done.returncode, done.stdout, done.stderr)
        assert done.returncode >= 0, f"killed by signal {-done.returncode}:\n{result}"
        for marker in CRASH_MARKERS:
            assert marker not in done.stderr, f"crashed:\n{result}"
        return result

    def ok(self, *args: Any) -> Result:
        """Runs and requires exit 0."""
        result = self.run(*args)
        assert result.code == 0, f"expected exit 0:\n{result}"
        return result

    def refused(self, *args: Any) -> dict[str, Any]:
        """Runs a verify command that must refuse: exit 1 and the failure JSON on stdout."""
        result = self.run(*args)
        assert result.code == 1, f"expected exit 1:\n{result}"
        out = result.json()
        assert out.get("valid") is False, result
        assert isinstance(out.get("error"), str) and re.fullmatch(r"[A-Za-z]+", out["error"]), result
        assert result.stderr.strip(), f"no message on stderr:\n{result}"
        return out


def b64u_arg(option: str, value: bytes | str) -> str:
    """`--option=VALUE` for base64url values. A base64url value may begin with "-" (one random
    challenge in 64 does); `umfa` then reads `--option -xyz` as a missing value (see
    test_cli_contract.py::test_base64url_value_starting_with_dash), so the suite passes them in
    the `=` form everywhere else."""
    if isinstance(value, bytes):
        value = bytes_to_base64url(value)
    return f"{option}={value}"


def _origin_args(origins: list[str] | str) -> list[str]:
    return [a for origin in ([origins] if isinstance(origins, str) else origins) for a in ("--origin", origin)]


def registration_args(
    response: Path, challenge: bytes | str, origins: list[str] | str = ORIGIN, rp_id: str = RP_ID,
    require_uv: bool = False,
) -> list[str]:
    """Arguments of `umfa verify registration`."""
    args = ["verify", "registration", "--response", str(response), b64u_arg("--challenge", challenge),
            "--rp-id", rp_id, *_origin_args(origins)]
    return args + (["--require-uv"] if require_uv else [])


def authentication_args(
    response: Path, challenge: bytes | str, public_key: bytes | str, sign_count: int = 0,
    origins: list[str] | str = ORIGIN, rp_id: str = RP_ID, require_uv: bool = False,
) -> list[str]:
    """Arguments of `umfa verify authentication`."""
    args = ["verify", "authentication", "--response", str(response), b64u_arg("--challenge", challenge),
            "--rp-id", rp_id, *_origin_args(origins), b64u_arg("--public-key", public_key),
            "--sign-count", str(sign_count)]
    return args + (["--require-uv"] if require_uv else [])


class JsonWriter:
    """Writes values as JSON files (or raw text) under one directory, with unique names."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.count = 0

    def __call__(self, value: Any, name: str = "data") -> Path:
        text = value if isinstance(value, str) else json.dumps(value)
        return self.text(text, name)

    def text(self, text: str, name: str = "data") -> Path:
        self.count += 1
        path = self.directory / f"{self.count:03d}-{name}.json"
        path.write_text(text)
        return path


# -- the virtual authenticator -------------------------------------------------------------


class VirtualAuthenticator:
    """`umfa authenticator register / assert` with one state directory."""

    def __init__(self, umfa: Umfa, writer: JsonWriter, state: Path):
        self.umfa = umfa
        self.writer = writer
        self.state = state

    def _run(self, command: str, options: Any, origin: str, uv: bool) -> Result:
        path = self.writer(options if isinstance(options, (str, dict)) else options_to_json(options), command + "-options")
        args = ["authenticator", command, "--options", path, "--origin", origin, "--state", self.state]
        if uv:
            args.append("--uv")
        return self.umfa.run(*args)

    def try_register(self, options: Any, origin: str = ORIGIN, uv: bool = False) -> Result:
        return self._run("register", options, origin, uv)

    def try_assert(self, options: Any, origin: str = ORIGIN, uv: bool = False) -> Result:
        return self._run("assert", options, origin, uv)

    def register(self, options: Any, origin: str = ORIGIN, uv: bool = False) -> "Response":
        result = self.try_register(options, origin, uv)
        assert result.code == 0, f"authenticator register failed\n{result}"
        return Response(result.stdout, self.writer(result.stdout, "registration-response"))

    def get(self, options: Any, origin: str = ORIGIN, uv: bool = False) -> "Response":
        result = self.try_assert(options, origin, uv)
        assert result.code == 0, f"authenticator assert failed\n{result}"
        return Response(result.stdout, self.writer(result.stdout, "authentication-response"))


@dataclass
class Response:
    """A response JSON as the authenticator printed it, and the file holding it."""

    text: str
    path: Path
    data: dict[str, Any] = field(init=False)

    def __post_init__(self):
        self.data = json.loads(self.text)

    @property
    def raw_id(self) -> bytes:
        return base64url_to_bytes(self.data["rawId"])


# -- relying-party side (py_webauthn) --------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """One way a relying party asks for a credential."""

    name: str
    attestation: AttestationConveyancePreference
    user_verification: UserVerificationRequirement
    resident_key: ResidentKeyRequirement
    uv: bool  # whether the authenticator reports a verified user

    @property
    def expected_fmt(self) -> str:
        return "none" if self.attestation == AttestationConveyancePreference.NONE else "packed"

    @property
    def expected_attestation_type(self) -> str:
        return "none" if self.expected_fmt == "none" else "self"

    @property
    def discoverable(self) -> bool:
        return self.resident_key == ResidentKeyRequirement.REQUIRED

    @property
    def require_uv(self) -> bool:
        return self.user_verification == UserVerificationRequirement.REQUIRED


A, UV, RK = AttestationConveyancePreference, UserVerificationRequirement, ResidentKeyRequirement
VARIANTS = [
    Variant("none-uv-preferred", A.NONE, UV.PREFERRED, RK.DISCOURAGED, uv=False),
    Variant("direct-uv-preferred", A.DIRECT, UV.PREFERRED, RK.DISCOURAGED, uv=False),
    Variant("none-uv-required", A.NONE, UV.REQUIRED, RK.PREFERRED, uv=True),
    Variant("direct-uv-required-rk-required", A.DIRECT, UV.REQUIRED, RK.REQUIRED, uv=True),
    Variant("none-uv-preferred-rk-required", A.NONE, UV.PREFERRED, RK.REQUIRED, uv=False),
]


def registration_options(
    variant: Variant | None = None, rp_id: str = RP_ID, user_name: str = "alice",
    user_id: bytes | None = None, exclude: list[bytes] | None = None, challenge: bytes | None = None,
):
    variant = variant or VARIANTS[0]
    return generate_registration_options(
        rp_id=rp_id,
        challenge=challenge,
        rp_name="Example",
        user_name=user_name,
        user_id=user_id or secrets.token_bytes(16),
        attestation=variant.attestation,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=variant.resident_key, user_verification=variant.user_verification
        ),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=i) for i in (exclude or [])],
    )


def authentication_options(
    allow: list[bytes] | None = None, rp_id: str = RP_ID,
    user_verification: UserVerificationRequirement = UV.PREFERRED, challenge: bytes | None = None,
):
    return generate_authentication_options(
        rp_id=rp_id,
        challenge=challenge,
        allow_credentials=[PublicKeyCredentialDescriptor(id=i) for i in (allow or [])],
        user_verification=user_verification,
    )


@dataclass
class Enrollment:
    """A credential the virtual authenticator created and py_webauthn accepted."""

    variant: Variant
    options: Any
    response: Response
    verified: Any  # py_webauthn VerifiedRegistration

    @property
    def public_key_b64u(self) -> str:
        return bytes_to_base64url(self.verified.credential_public_key)


def enroll(authenticator: VirtualAuthenticator, variant: Variant, origin: str = ORIGIN, **options_args) -> Enrollment:
    options = registration_options(variant, **options_args)
    response = authenticator.register(options, origin=origin, uv=variant.uv)
    verified = verify_registration_response(
        credential=response.text,
        expected_challenge=options.challenge,
        expected_origin=origin,
        expected_rp_id=RP_ID,
        require_user_verification=variant.require_uv,
    )
    return Enrollment(variant, options, response, verified)


# -- a live `umfa serve` (the test_server_* files) -------------------------------------------

# The admin token the live-server tests set through UMFA_ADMIN_TOKEN (unless a test wants one
# generated and printed).
ADMIN_TOKEN = "umfa_admin_interop_" + secrets.token_urlsafe(24)
SERVER_ENV = ("UMFA_HOST", "UMFA_PORT", "UMFA_DATABASE_URL", "UMFA_DATA_DIR", "UMFA_ADMIN_TOKEN",
              "UMFA_MASTER_KEY", "UMFA_LOG_LEVEL", "UMFA_API_KEY")
# Lines `umfa serve` prints once, on a fresh data dir.
ADMIN_BANNER = re.compile(r"^Admin token \(shown once, stored hashed\): (\S+)$", re.M)
APP_BANNER = re.compile(r"^  application_id: (\S+)$", re.M)
KEY_BANNER = re.compile(r"^  api_key \(shown once, stored hashed\): (\S+)$", re.M)
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def assert_error(response: requests.Response, status: int, trace_id: str | None = None) -> dict[str, Any]:
    """The wire contract's error shape: {"status", "trace_id", "message"} with the HTTP status."""
    assert response.status_code == status, f"expected HTTP {status}, got {response.status_code}: {response.text}"
    try:
        body = response.json()
    except ValueError:
        raise AssertionError(f"error body is not JSON: {response.text!r}") from None
    assert isinstance(body, dict) and body.get("status") == status, body
    assert isinstance(body.get("message"), str) and body["message"].strip(), body
    assert isinstance(body.get("trace_id"), str) and body["trace_id"], body
    if trace_id is not None:
        assert body["trace_id"] == trace_id, f"trace_id not echoed: {body}"
    return body


def wait_for_status(server: "Server", path: str, status: int, within: float = 60) -> list[int]:
    """Polls GET `path` until it answers `status` (a state reached, whatever the machine's
    speed); the statuses seen, ending with it."""
    seen: list[int] = []
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        seen.append(server.get(path).status_code)
        if seen[-1] == status:
            return seen
        time.sleep(0.2)
    raise AssertionError(f"{path} never answered {status} within {within} s: {seen[-10:]}\n{server.logs()}")


class Server:
    """One `umfa serve` process on a free loopback port; output goes to files next to the data
    dir (never inside it), so the tests can search it."""

    count = 0

    def __init__(self, binary: Path, workdir: Path, data_dir: Path, env: dict[str, str] | None = None,
                 args: tuple[str, ...] = (), port: int | None = None):
        Server.count += 1
        self.binary, self.workdir, self.data_dir = binary, workdir, data_dir
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.origin = f"http://localhost:{self.port}"  # the development application's origin
        self.env = {k: v for k, v in os.environ.items() if k not in SERVER_ENV and not k.startswith("OTEL_")}
        self.env.update(env or {})
        self.args = [str(binary), "serve", "--host", "127.0.0.1", "--port", str(self.port),
                     "--data-dir", str(data_dir), *args]
        self.out_path = workdir / f"server-{Server.count}.stdout"
        self.err_path = workdir / f"server-{Server.count}.stderr"
        self.process: subprocess.Popen | None = None
        self.http = requests.Session()

    # -- process ---------------------------------------------------------------------------

    def launch(self) -> "Server":
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.process = subprocess.Popen(self.args, cwd=self.workdir, env=self.env, stdout=out, stderr=err,
                                            stdin=subprocess.DEVNULL)
        return self

    def start(self, timeout: float = 20) -> "Server":
        """Launches and waits for GET /health to answer 200."""
        self.launch()
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"umfa serve exited with {self.process.returncode} before /health answered\n"
                                     f"{self.logs()}")
            try:
                if requests.get(self.base + "/health", timeout=1).status_code == 200:
                    return self
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"/health did not answer within {timeout} s\n{self.logs()}")
            time.sleep(0.03)

    def wait_exit(self, timeout: float = 10) -> int:
        """For a start that must fail: the exit code."""
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"umfa serve still running after {timeout} s\n{self.logs()}") from None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 5) -> None:
        """SIGTERM; a graceful shutdown exits 0 within `timeout` seconds."""
        self.http.close()
        if not self.running:
            code = None if self.process is None else self.process.returncode
            raise AssertionError(f"umfa serve was not running at stop (exit {code})\n{self.logs()}")
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"umfa serve did not exit within {timeout} s of SIGTERM\n{self.logs()}") from None
        assert code == 0, f"umfa serve exited with {code} after SIGTERM\n{self.logs()}"
        self.check_no_crash()

    def check_no_crash(self) -> None:
        for marker in CRASH_MARKERS:
            assert marker not in self.stderr, f"umfa serve crashed:\n{self.logs()}"

    # -- output ----------------------------------------------------------------------------

    @property
    def stdout(self) -> str:
        return self.out_path.read_text(errors="replace")

    @property
    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")

    def logs(self) -> str:
        return f"--- stdout\n{self.stdout}--- stderr\n{self.stderr}"

    def _banner(self, pattern: re.Pattern) -> str:
        found = pattern.findall(self.stdout)
        assert len(found) == 1, f"expected the line {pattern.pattern!r} exactly once on stdout\n{self.logs()}"
        return found[0]

    @property
    def admin_token(self) -> str:
        """The generated admin token from the start banner."""
        return self._banner(ADMIN_BANNER)

    @property
    def app_id(self) -> str:
        """The development application's id from the start banner."""
        return self._banner(APP_BANNER)

    @property
    def api_key(self) -> str:
        """The development application's API key from the start banner."""
        return self._banner(KEY_BANNER)

    # -- HTTP ------------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Any = None, *, bearer: str | None = None,
                headers: dict[str, str] | None = None, data: Any = None) -> requests.Response:
        headers = dict(headers or {})
        if bearer is not None:
            headers["Authorization"] = f"Bearer {bearer}"
        if body is not None:
            data = json.dumps(body)
        if data is not None:
            headers.setdefault("Content-Type", "application/json")
        return self.http.request(method, self.base + path, data=data, headers=headers, timeout=15)

    def post(self, path: str, body: Any = None, **kwargs) -> requests.Response:
        return self.request("POST", path, body, **kwargs)

    def get(self, path: str, **kwargs) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def ok(self, method: str, path: str, body: Any = None, status: int = 200, **kwargs) -> dict[str, Any]:
        """A request that must answer `status` with a JSON object carrying a trace_id."""
        response = self.request(method, path, body, **kwargs)
        assert response.status_code == status, f"{method} {path}: HTTP {response.status_code} {response.text}"
        out = response.json()
        assert isinstance(out, dict) and isinstance(out.get("trace_id"), str) and out["trace_id"], out
        return out


class Device:
    """The virtual authenticator (`umfa authenticator register / assert --state DIR`) used as
    a device against a live server: the HTTP ceremonies of docs/contract.md §2."""

    def __init__(self, server: Server, authenticator: VirtualAuthenticator, app_id: str, origin: str | None = None):
        self.server = server
        self.authenticator = authenticator
        self.app_id = app_id
        self.origin = origin or server.origin

    def registration_options(self, user_id: str, **extra) -> dict[str, Any]:
        return self.server.ok("POST", "/api/umfa/registration/options",
                              {"application_id": self.app_id, "user_id": user_id, **extra})

    def register(self, user_id: str, uv: bool = False, **extra) -> dict[str, Any]:
        """registration/options -> authenticator register -> registration/verify."""
        options = self.registration_options(user_id, **extra)
        response = self.authenticator.register(options, origin=self.origin, uv=uv)
        out = self.server.ok("POST", "/api/umfa/registration/verify",
                             {"application_id": self.app_id, "user_id": user_id, "credential": response.data})
        assert out["user_id"] == user_id and out["credential_id"] == response.data["id"], out
        return out

    def assertion(self, user_id: str | None, uv: bool = False) -> Response:
        """authentication/options -> authenticator assert: a fresh AuthenticationResponseJSON."""
        body = {"application_id": self.app_id}
        if user_id is not None:
            body["user_id"] = user_id
        options = self.server.ok("POST", "/api/umfa/authentication/options", body)
        return self.authenticator.get(options, origin=self.origin, uv=uv)

    def login(self, user_id: str, uv: bool = False) -> dict[str, Any]:
        """authentication/options -> authenticator assert -> authentication/verify."""
        assertion = self.assertion(user_id, uv)
        out = self.server.ok("POST", "/api/umfa/authentication/verify",
                             {"application_id": self.app_id, "user_id": user_id, "credential": assertion.data})
        assert out["user_id"] == user_id and out["credential_id"] == assertion.data["id"], out
        return out


# -- the device commands (`umfa enroll / authenticate / status / unenroll`) ------------------


class DeviceCLI:
    """`umfa enroll / authenticate / status / unenroll` for one device directory against one
    server (a live `umfa serve` or any relying party speaking the device routes of docs/contract.md §2).

    `pin` pipes the PIN through `--pin-stdin`; `env` adds variables to an environment without
    inherited UMFA_* ones; extra arguments (`--enrollment-token T`, `--device-name N`) follow."""

    def __init__(self, umfa: Umfa, server_url: str, app_id: str, origin: str, device_dir: Path):
        self.umfa = umfa
        self.server_url = server_url
        self.app_id = app_id
        self.origin = origin
        self.device_dir = device_dir

    def run(self, command: str, user: str, *extra: Any, pin: str | None = None,
            env: dict[str, str] | None = None) -> Result:
        args = [command, "--server", self.server_url, "--app", self.app_id, "--user", user,
                "--device-dir", self.device_dir, "--origin", self.origin, *extra]
        if pin is not None:
            args.append("--pin-stdin")
        return self.umfa.run_env(env if env is not None else {}, *args,
                                 input=None if pin is None else pin + "\n")

    def ok(self, command: str, user: str, *extra: Any, **kwargs) -> dict[str, Any]:
        """Runs and requires exit 0 with one JSON object on stdout and nothing on stderr."""
        result = self.run(command, user, *extra, **kwargs)
        assert result.code == 0, f"expected exit 0:\n{result}"
        out = result.json()
        assert isinstance(out, dict), result
        return out

    def fails(self, command: str, user: str, *extra: Any, **kwargs) -> Result:
        """Runs and requires a non-zero exit with a message on stderr (the ZSMError)."""
        result = self.run(command, user, *extra, **kwargs)
        assert result.code != 0, f"expected a non-zero exit:\n{result}"
        assert result.stderr.strip(), f"no message on stderr:\n{result}"
        return result

    def enroll(self, user: str, *extra: Any, **kwargs) -> dict[str, Any]:
        return self.ok("enroll", user, *extra, **kwargs)

    def authenticate(self, user: str, *extra: Any, **kwargs) -> dict[str, Any]:
        return self.ok("authenticate", user, *extra, **kwargs)

    def status(self, user: str, **kwargs) -> dict[str, Any]:
        return self.ok("status", user, **kwargs)

    def unenroll(self, user: str, *extra: Any, **kwargs) -> dict[str, Any]:
        return self.ok("unenroll", user, *extra, **kwargs)
