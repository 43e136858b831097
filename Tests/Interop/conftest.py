"""Fixtures for the interop suite, which checks UMFA against py_webauthn (an independent
WebAuthn implementation). Run it through scripts/interop.sh, which sets UMFA_BIN to the freshly
built binary. Helpers live in support.py."""

import shutil
from pathlib import Path

import pytest

from support import JsonWriter, Umfa, VirtualAuthenticator, umfa_binary


@pytest.fixture(scope="session")
def umfa_bin(tmp_path_factory) -> Path:
    """A private copy of the binary, so a rebuild during the run cannot swap it mid-suite."""
    copy = tmp_path_factory.mktemp("bin") / "umfa"
    shutil.copy2(umfa_binary(), copy)
    return copy


@pytest.fixture
def umfa(umfa_bin: Path, tmp_path: Path) -> Umfa:
    """Runs `umfa` in tmp_path; every run fails the test if the process crashed."""
    return Umfa(umfa_bin, tmp_path)


@pytest.fixture
def write_json(tmp_path: Path) -> JsonWriter:
    """write_json(value, name) -> path of a new JSON file in tmp_path (strings are written as is)."""
    return JsonWriter(tmp_path)


@pytest.fixture
def authenticator(umfa: Umfa, write_json: JsonWriter, tmp_path: Path) -> VirtualAuthenticator:
    """The virtual authenticator with a fresh state directory in tmp_path."""
    return VirtualAuthenticator(umfa, write_json, tmp_path / "state")
