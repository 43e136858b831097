"""Crash safety (issue #9): `umfa serve` on SQLite is killed with SIGKILL in the middle of a
registration load and restarted on the same data directory. Every registration that was
answered 200 must be stored and sign in; the database must pass `PRAGMA integrity_check`."""

import sqlite3
import threading
import time

import requests

from support import Device, VirtualAuthenticator


def integrity(database) -> list[str]:
    connection = sqlite3.connect(database)
    try:
        return [row[0] for row in connection.execute("PRAGMA integrity_check")]
    finally:
        connection.close()


def test_kill_9_during_registrations_loses_no_answered_registration(serve, umfa, write_json, tmp_path):
    data = tmp_path / "data"
    server = serve(data_dir=data)
    app_id, api_key = server.app_id, server.api_key
    workers = 4
    answered: list[tuple[int, str, str]] = []  # (worker, user, credential id) answered 200
    errors: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()
    killed = threading.Event()  # set before SIGKILL: errors after it are the kill's, not the server's
    authenticators = [VirtualAuthenticator(umfa, write_json, tmp_path / f"state-{n}") for n in range(workers)]

    def worker(number: int) -> None:
        device = Device(server, authenticators[number], app_id)
        count = 0
        while not stop.is_set():
            user = f"load-{number}-{count}"
            count += 1
            try:
                out = device.register(user)
            except (requests.RequestException, AssertionError, OSError) as error:
                if not killed.is_set():
                    with lock:
                        errors.append(f"{user}: {error}")
                return
            with lock:
                answered.append((number, user, out["credential_id"]))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(workers)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 120
    while len(answered) < 24 and time.monotonic() < deadline and not errors:
        time.sleep(0.05)
    killed.set()
    server.process.kill()  # SIGKILL: no shutdown, no flush, requests in flight
    server.process.wait()
    stop.set()
    for thread in threads:
        thread.join(60)
    assert not errors, f"registrations failed before the kill: {errors[:3]}"
    assert len(answered) >= 24, f"only {len(answered)} registrations before the deadline"

    database = data / "umfa.sqlite"
    assert integrity(database) == ["ok"], "the database is damaged after SIGKILL"

    again = serve(data_dir=data, port=server.port)  # the development application's origin names the port
    for number, user, credential_id in answered:
        listed = again.ok("GET", f"/api/umfa/users/{user}/credentials?application_id={app_id}", bearer=api_key)
        ids = [credential["credential_id"] for credential in listed["credentials"]]
        assert ids == [credential_id], f"{user}: answered 200 with {credential_id}, stored {ids}"
    # Every answered registration signs in with the device that made it.
    for number, user, credential_id in answered:
        out = Device(again, authenticators[number], app_id).login(user)
        assert out["credential_id"] == credential_id, out
    again.stop()
    assert integrity(database) == ["ok"]
