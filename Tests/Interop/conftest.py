"""Fixtures for the interop suite, which checks UMFA against py_webauthn (an independent
WebAuthn implementation). Run it through scripts/interop.sh, which sets UMFA_BIN to the freshly
built binary. Helpers live in support.py. The live-server fixtures (`serve`, `server`, `device`)
serve the test_server_* files."""

import shutil
from pathlib import Path
from typing import Callable

import pytest

from support import ADMIN_TOKEN, Device, JsonWriter, Server, Umfa, VirtualAuthenticator, umfa_binary


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


# -- live server ---------------------------------------------------------------------------------


@pytest.fixture
def serve(umfa_bin: Path, tmp_path: Path) -> Callable[..., Server]:
    """serve(data_dir=None, admin_token=ADMIN_TOKEN, env=None, args=(), port=None, start=True) ->
    a `umfa serve` on a free loopback port (or `port`) with its own data dir (tmp_path/"data"
    unless given), answering /health (start=False: launched only, for starts that must fail).
    admin_token=None leaves UMFA_ADMIN_TOKEN unset. A server still running at the end of the
    test is stopped with SIGTERM and must exit 0 within a few seconds."""
    servers: list[Server] = []

    def launch(data_dir: Path | None = None, admin_token: str | None = ADMIN_TOKEN, env: dict | None = None,
              args: tuple[str, ...] = (), port: int | None = None, start: bool = True) -> Server:
        env = dict(env or {})
        if admin_token is not None:
            env["UMFA_ADMIN_TOKEN"] = admin_token
        server = Server(umfa_bin, tmp_path, data_dir or tmp_path / "data", env, args, port)
        servers.append(server)
        return server.start() if start else server.launch()

    yield launch
    failures = []
    for server in servers:
        if server.running:
            try:
                server.stop()
            except AssertionError as error:
                failures.append(str(error))
        else:
            try:
                server.check_no_crash()
            except AssertionError as error:
                failures.append(str(error))
    assert not failures, "\n\n".join(failures)


@pytest.fixture
def server(serve) -> Server:
    """A `umfa serve` on a fresh data dir with UMFA_ADMIN_TOKEN=support.ADMIN_TOKEN."""
    return serve()


@pytest.fixture
def device(server: Server, authenticator: VirtualAuthenticator) -> Device:
    """The virtual authenticator as a device of the server's development application."""
    return Device(server, authenticator, server.app_id)
