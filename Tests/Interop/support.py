"""Helpers for the interop suite: run `umfa`, write JSON files, drive the virtual
authenticator, and build WebAuthn options with py_webauthn (an independent implementation)."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
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

    def run(self, *args: Any) -> Result:
        argv = [str(a) for a in args]
        done = subprocess.run(
            [str(self.binary), *argv], cwd=self.cwd, capture_output=True, text=True, timeout=30
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
