"""Liveness and readiness from outside (docs/operators/probes.md): `/health/ready` answers 503
while the SQLite database cannot be written and while the server drains after SIGTERM, and
200 again by itself; `/health` stays 200. (PostgreSQL stopped and started:
test_postgres_instances.py.)"""

import signal
import subprocess
import time
from pathlib import Path

import pytest
import requests

from support import assert_error, wait_for_status


@pytest.fixture
def small_disk(tmp_path):
    """A 16 MiB tmpfs of its own (the suite runs as root in CI, as `.ci/run` does)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_makes_sqlite_not_ready_until_space_is_freed(serve, small_disk):
    database = small_disk / "umfa.sqlite"
    server = serve(env={"UMFA_DATABASE_URL": f"sqlite://{database}"})
    assert server.get("/health/ready").status_code == 200
    filler = small_disk / "filler"
    # dd stops with "No space left on device": the disk is full.
    subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=1M"], capture_output=True)
    wait_for_status(server, "/health/ready", 503)
    refusal = assert_error(server.get("/health/ready"), 503)
    assert refusal["message"] == "not ready: the database cannot be reached or written"
    assert str(small_disk) not in str(refusal)  # the details go to the log only
    assert server.get("/health").status_code == 200
    filler.unlink()
    wait_for_status(server, "/health/ready", 200)
    assert server.stderr.count("not ready: SQLite: no space is left") == 1  # once per change, not per probe
    assert server.stderr.count("ready again") == 1


def test_a_database_file_moved_away_makes_the_instance_not_ready(serve, tmp_path):
    database = tmp_path / "umfa.sqlite"
    server = serve(env={"UMFA_DATABASE_URL": f"sqlite://{database}"})
    assert server.get("/health/ready").status_code == 200
    moved = tmp_path / "elsewhere.sqlite"
    database.rename(moved)
    wait_for_status(server, "/health/ready", 503)
    moved.rename(database)
    wait_for_status(server, "/health/ready", 200)


def test_sigterm_drains_with_readiness_503_while_requests_are_still_served(serve):
    server = serve(env={"UMFA_DRAIN_SECONDS": "20"})
    assert server.get("/health/ready").status_code == 200
    sent = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    wait_for_status(server, "/health/ready", 503, within=15)
    refusal = assert_error(server.get("/health/ready"), 503)
    assert refusal["message"] == "not ready: the server is shutting down"
    # Still serving while it drains: liveness and a real request.
    assert server.get("/health").status_code == 200
    server.ok("POST", "/api/umfa/registration/options", {"application_id": server.app_id, "user_id": "late"})
    assert server.wait_exit(timeout=30) == 0
    # It kept serving for the drain period before it stopped.
    assert time.monotonic() - sent >= 20
    assert "draining" in server.stderr
    with pytest.raises(requests.ConnectionError):
        requests.get(server.base + "/health", timeout=2)
