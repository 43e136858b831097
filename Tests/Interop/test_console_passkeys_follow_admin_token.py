"""Live server: console passkeys (docs/security-reviews.md, "Console passkeys that outlived the
admin token"), checked over HTTP from outside against running `umfa serve` processes. An operator
passkey of the admin console stands for the admin token it was enrolled with, and for nothing after
that token changes:

- a passkey enrolled with admin token T1, and the console session it opened, open neither the
  console nor the admin API once the server restarts with T2 (a restart with T1 keeps both);
- the admin API (`/api/admin/console/credentials`, `/api/admin/console/sessions`) and
  `umfa admin` list them and remove a passkey, which ends its sessions, or one session;
- a fresh data directory (admin token generated, stored hashed) keeps its passkeys across
  restarts, and ends them when UMFA_ADMIN_TOKEN is set to another token.

Passkeys come from the virtual authenticator (`umfa authenticator register / assert --uv`) on
the console's origin, http://localhost:<port>."""

import secrets
from pathlib import Path

import requests

from support import ADMIN_TOKEN, VirtualAuthenticator, assert_error

OTHER_TOKEN = "umfa_admin_interop_other_" + secrets.token_urlsafe(24)


class Operator:
    """An operator with a virtual authenticator of their own, and the console session they hold."""

    def __init__(self, umfa, write_json, state: Path):
        self.authenticator = VirtualAuthenticator(umfa, write_json, state)
        self.cookie: str | None = None
        self.csrf: str | None = None
        self.credential_id: str | None = None

    def _started(self, server, response: requests.Response) -> None:
        assert response.status_code == 200, response.text
        self.cookie = response.cookies.get("umfa_console")
        assert self.cookie and self.cookie.startswith("umfa_cs_"), response.headers
        self.csrf = response.json()["csrf_token"]

    def enroll(self, server, token: str, name: str) -> None:
        options = server.ok("POST", "/admin/session/enroll-options", {"admin_token": token})
        credential = self.authenticator.register(options, origin=server.origin, uv=True)
        self.credential_id = credential.data["id"]
        response = requests.post(server.base + "/admin/session/enroll", timeout=15, json={
            "admin_token": token, "credential": credential.data, "name": name})
        self._started(server, response)

    def sign_in(self, server) -> requests.Response:
        options = server.ok("POST", "/admin/session/options")
        assertion = self.authenticator.get(options, origin=server.origin, uv=True)
        response = requests.post(server.base + "/admin/session", json={"credential": assertion.data}, timeout=15)
        if response.status_code == 200:
            self._started(server, response)
        return response

    def call(self, server, method: str, path: str) -> requests.Response:
        """An admin call made with the console session (cookie and X-CSRF-Token), as the page
        makes it; no cookie jar, so only the cookie named here is sent."""
        return requests.request(method, server.base + path, timeout=15,
                                headers={"Cookie": f"umfa_console={self.cookie}", "X-CSRF-Token": self.csrf})


def operator(umfa, write_json, tmp_path: Path, name: str) -> Operator:
    return Operator(umfa, write_json, tmp_path / f"operator-{name}")


def events(server, action: str, token: str) -> list[dict]:
    return server.ok("GET", f"/api/admin/audit-events?action={action}&limit=1000", bearer=token)["events"]


def test_passkey_of_the_old_admin_token_opens_nothing_after_the_token_changes(serve, umfa, write_json, tmp_path):
    first = serve(admin_token=ADMIN_TOKEN)
    ops = operator(umfa, write_json, tmp_path, "ops")
    ops.enroll(first, ADMIN_TOKEN, "Ops laptop")
    assert ops.call(first, "GET", "/api/admin/applications").status_code == 200
    first.stop()

    # A restart with the same token keeps the passkey and its session: what follows is the token.
    same = serve(data_dir=first.data_dir, admin_token=ADMIN_TOKEN, port=first.port)
    assert ops.call(same, "GET", "/api/admin/applications").status_code == 200
    assert events(same, "admin.passkeys_revoked", ADMIN_TOKEN) == []
    same.stop()

    # The attack: the admin token is changed (it leaked, an operator left) and the server restarts.
    rotated = serve(data_dir=first.data_dir, admin_token=OTHER_TOKEN, port=first.port)
    assert_error(ops.call(rotated, "GET", "/api/admin/applications"), 401)
    assert_error(ops.call(rotated, "GET", "/api/admin/audit-events"), 401)
    assert_error(requests.get(rotated.base + "/admin/session", timeout=15,
                              headers={"Cookie": f"umfa_console={ops.cookie}"}), 401)
    refused = ops.sign_in(rotated)
    assert_error(refused, 401)
    assert refused.json()["message"] == "Sign-in failed"
    assert_error(rotated.get("/api/admin/applications", bearer=ADMIN_TOKEN), 401)
    assert rotated.ok("GET", "/api/admin/console/credentials", bearer=OTHER_TOKEN)["credentials"] == []
    assert rotated.ok("GET", "/api/admin/console/sessions", bearer=OTHER_TOKEN)["sessions"] == []
    revoked = events(rotated, "admin.passkeys_revoked", OTHER_TOKEN)
    assert len(revoked) == 1, revoked
    assert revoked[0]["details"] == {"reason": "admin_token_changed", "passkeys": 1, "sessions": 1}, revoked
    # The new token enrolls a passkey of its own, which works.
    new = operator(umfa, write_json, tmp_path, "new")
    new.enroll(rotated, OTHER_TOKEN, "New laptop")
    assert new.call(rotated, "GET", "/api/admin/applications").status_code == 200
    assert ADMIN_TOKEN not in rotated.logs() and OTHER_TOKEN not in rotated.logs()


def test_list_and_remove_console_passkeys_and_sessions(server, umfa, write_json, tmp_path):
    alice = operator(umfa, write_json, tmp_path, "alice")
    bob = operator(umfa, write_json, tmp_path, "bob")
    alice.enroll(server, ADMIN_TOKEN, "Alice's laptop")
    bob.enroll(server, ADMIN_TOKEN, "Bob's laptop")
    alice_first = (alice.cookie, alice.csrf)
    assert alice.sign_in(server).status_code == 200

    assert_error(server.get("/api/admin/console/credentials"), 401)
    assert_error(server.get("/api/admin/console/sessions", bearer="umfa-wrong-admin-token"), 401)
    listed = server.ok("GET", "/api/admin/console/credentials", bearer=ADMIN_TOKEN)["credentials"]
    assert [(c["name"], c["sessions"]) for c in listed] == [("Alice's laptop", 2), ("Bob's laptop", 1)], listed
    assert [c["credential_id"] for c in listed] == [alice.credential_id, bob.credential_id]
    sessions = bob.call(server, "GET", "/api/admin/console/sessions")
    assert sessions.status_code == 200, sessions.text
    rows = sessions.json()["sessions"]
    assert [(s["passkey_name"], s["current"]) for s in rows] == [
        ("Alice's laptop", False), ("Bob's laptop", True), ("Alice's laptop", False)], rows
    assert alice.cookie not in sessions.text and alice.csrf not in sessions.text

    # `umfa admin` lists the same passkeys and ends Alice's newest session.
    env = {"UMFA_ADMIN_TOKEN": ADMIN_TOKEN}
    cli = umfa.run_env(env, "admin", "list-console-credentials", "--server", server.base)
    assert cli.code == 0, cli
    assert [c["credential_id"] for c in cli.json()["credentials"]] == [alice.credential_id, bob.credential_id]
    cli = umfa.run_env(env, "admin", "list-console-sessions", "--server", server.base)
    assert len(cli.json()["sessions"]) == 3, cli
    ended = umfa.run_env(env, "admin", "delete-console-session", "--server", server.base,
                         "--session-id", rows[2]["session_id"])
    assert ended.code == 0 and ended.json()["removed"] is True, ended
    assert_error(alice.call(server, "GET", "/api/admin/applications"), 401)
    alice.cookie, alice.csrf = alice_first
    assert alice.call(server, "GET", "/api/admin/applications").status_code == 200

    # Removing Alice's passkey (over the admin API) ends her other session and her sign-ins.
    removed = server.ok("DELETE", f"/api/admin/console/credentials/{alice.credential_id}", bearer=ADMIN_TOKEN)
    assert removed["removed"] is True and removed["sessions_ended"] == 1, removed
    assert_error(alice.call(server, "GET", "/api/admin/applications"), 401)
    assert_error(alice.sign_in(server), 401)
    assert_error(server.request("DELETE", f"/api/admin/console/credentials/{alice.credential_id}",
                                bearer=ADMIN_TOKEN), 404)
    assert bob.call(server, "GET", "/api/admin/applications").status_code == 200
    # Bob removes his own passkey with the CLI; his session ends with it.
    gone = umfa.run_env(env, "admin", "delete-console-credential", "--server", server.base,
                        "--credential-id", bob.credential_id)
    assert gone.code == 0 and gone.json()["sessions_ended"] == 1, gone
    assert_error(bob.call(server, "GET", "/api/admin/applications"), 401)
    missing = umfa.run_env(env, "admin", "delete-console-credential", "--server", server.base,
                           "--credential-id", bob.credential_id)
    assert missing.code == 1 and "HTTP 404" in missing.stderr, missing
    assert server.ok("GET", "/api/admin/console/credentials", bearer=ADMIN_TOKEN)["credentials"] == []

    audited = [event["action"] for event in
               server.ok("GET", "/api/admin/audit-events?limit=1000", bearer=ADMIN_TOKEN)["events"]]
    assert [a for a in audited if a in ("admin.passkey_removed", "admin.session_ended")] == [
        "admin.session_ended", "admin.passkey_removed", "admin.passkey_removed"], audited


def test_generated_admin_token_keeps_its_passkeys_until_another_token_is_set(serve, umfa, write_json, tmp_path):
    first = serve(admin_token=None)
    generated = first.admin_token
    ops = operator(umfa, write_json, tmp_path, "ops")
    ops.enroll(first, generated, "Ops laptop")
    first.stop()

    again = serve(data_dir=first.data_dir, admin_token=None, port=first.port)
    assert ops.call(again, "GET", "/api/admin/applications").status_code == 200
    assert ops.sign_in(again).status_code == 200
    again.stop()

    configured = serve(data_dir=first.data_dir, admin_token=OTHER_TOKEN, port=first.port)
    assert_error(ops.call(configured, "GET", "/api/admin/applications"), 401)
    assert_error(ops.sign_in(configured), 401)
    assert len(events(configured, "admin.passkeys_revoked", OTHER_TOKEN)) == 1
