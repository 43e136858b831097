"""`umfa admin rotate-master-key` from outside (docs/operators/keys.md), on SQLite and on
PostgreSQL: every sealed value is re-sealed under the new key (checked here by opening the
stored values with Python's own AES-GCM, not UMFA's), a rotation stopped by --limit or killed
part-way is finished by running it again, no server starts while it is unfinished, signing keys
keep their kid (tokens signed before still validate), the old key opens nothing afterwards, and
the audit log records master_key.rotated."""

import base64
import json
import os
import secrets
import shlex
import sqlite3
import subprocess
import time

import pytest
import requests
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from support import ADMIN_TOKEN, Device

# Each sealed column, its key column, and the AEAD context of a row (Sources/UMFAStorage/Keys).
SEALED = {
    ("signing_keys", "sealed_private_key"): ("kid", lambda kid: "signing-key:" + kid),
    ("oauth_clients", "sealed_secret"): ("client_id", lambda client: "client-secret:" + client),
    ("applications", "sealed_webhook_secret"): ("id", lambda _: "umfa-webhook-secret"),
}


def b64u(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def opens(key: bytes, sealed: bytes, context: str) -> bytes | None:
    """What swift-crypto's AES.GCM combined box (nonce ‖ ciphertext ‖ tag) holds, or None."""
    try:
        return AESGCM(key).decrypt(sealed[:12], sealed[12:], context.encode())
    except Exception:
        return None


class Database:
    """The server's database, read without UMFA: the SQLite file or a PostgreSQL schema."""

    def __init__(self, engine: str, tmp_path):
        self.engine = engine
        if engine == "sqlite":
            self.path = tmp_path / "umfa.sqlite"
            self.url = f"sqlite://{self.path}"
        else:
            self.schema = "rot_" + secrets.token_hex(6)
            self.psql = shlex.split(os.environ["UMFA_TEST_PSQL"])
            subprocess.run(self.psql + ["-qc", f"CREATE SCHEMA {self.schema}", "umfa_test"], check=True,
                           capture_output=True)
            base = os.environ["UMFA_TEST_POSTGRES_URL"]
            self.url = f"{base}?search_path={self.schema}"

    def rows(self, table: str, key: str, column: str) -> list[tuple[str, str]]:
        sql = f"SELECT {key}, {column} FROM {table} WHERE {column} IS NOT NULL ORDER BY {key}"
        if self.engine == "sqlite":
            with sqlite3.connect(self.path) as connection:
                return list(connection.execute(sql))
        out = subprocess.run(self.psql + ["-At", "-F", "\t", "-c", f"SET search_path TO {self.schema}; {sql}",
                                          "umfa_test"], check=True, capture_output=True, text=True).stdout
        return [tuple(line.split("\t")) for line in out.splitlines() if "\t" in line]

    def setting(self, name: str) -> str | None:
        rows = self.rows("settings", "name", "value")
        return dict(rows).get(name)

    def sealed(self) -> dict[tuple[str, str, str], tuple[bytes, str]]:
        """Every sealed value of the columns above: (table, column, row key) -> (bytes, context)."""
        values = {}
        for (table, column), (key, context) in SEALED.items():
            for row_key, text in self.rows(table, key, column):
                values[(table, column, row_key)] = (b64u(text), context(row_key))
        return values


class Holder:
    """Holds what the rotation's next write needs: PostgreSQL, a lock on the last application
    row (in key order); SQLite, the database's write lock."""

    def __init__(self, database: Database):
        self.database = database
        if database.engine == "sqlite":
            self.connection = sqlite3.connect(database.path, isolation_level=None, timeout=30)
            self.connection.execute("BEGIN IMMEDIATE")
            return
        last = database.rows("applications", "id", "sealed_webhook_secret")[-1][0]
        self.session = subprocess.Popen(database.psql + ["-q", "-At", "umfa_test"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self.session.stdin.write(f"SET search_path TO {database.schema};\nBEGIN;\n"
                                 f"SELECT 'locked' FROM applications WHERE id = '{last}' FOR UPDATE;\n")
        self.session.stdin.flush()
        assert self.session.stdout.readline().strip() == "locked"

    def wait_for_waiter(self, within: float = 60) -> None:
        """Returns once the rotation waits for what is held (on SQLite: once it is running)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self.database.engine == "sqlite":
                time.sleep(1)  # nothing to observe; it cannot write before release in any case
                return
            out = subprocess.run(self.database.psql + ["-At", "-c", "SELECT count(*) FROM pg_stat_activity "
                                                       "WHERE wait_event_type = 'Lock' "
                                                       "AND query LIKE 'UPDATE applications%'", "umfa_test"],
                                 check=True, capture_output=True, text=True).stdout
            if out.strip() not in ("", "0"):
                return
            time.sleep(0.1)
        raise AssertionError("the rotation never reached the locked row")

    def release(self) -> None:
        if self.database.engine == "sqlite":
            self.connection.execute("ROLLBACK")
            self.connection.close()
            return
        self.session.stdin.write("ROLLBACK;\n")
        self.session.stdin.close()
        self.session.wait(30)


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request):
    return request.param


def rotate(umfa, database, data_dir, key_file, env, *extra):
    return umfa.run_env(env, "admin", "rotate-master-key", "--database", database.url, "--data-dir", str(data_dir),
                        "--new-key-file", str(key_file), *extra)


def test_rotation_reseals_everything_resumes_after_a_stop_and_a_kill_and_retires_the_old_key(
        serve, umfa, umfa_bin, authenticator, tmp_path, engine):
    database = Database(engine, tmp_path)
    data_dir = tmp_path / "data"
    old_key = secrets.token_bytes(32)
    # SQLite: the key in master.key, which the rotation replaces. PostgreSQL: UMFA_MASTER_KEY,
    # which the operator changes after it.
    server_env = {"UMFA_DATABASE_URL": database.url}
    tool_env = {}
    if engine == "sqlite":
        data_dir.mkdir(mode=0o700)
        (data_dir / "master.key").write_bytes(old_key)
        os.chmod(data_dir / "master.key", 0o600)
    else:
        server_env["UMFA_MASTER_KEY"] = tool_env["UMFA_MASTER_KEY"] = base64.b64encode(old_key).decode()
    server = serve(data_dir=data_dir, env=server_env)

    # Sealed values of every kind this test reads back: two signing keys, a client_secret_jwt
    # client's secret, webhook secrets of several applications.
    device = Device(server, authenticator, server.app_id)
    device.register("ada")
    token = device.login("ada")["token"]
    server.ok("POST", "/api/admin/signing-keys", bearer=ADMIN_TOKEN, status=201)
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "HMAC", "grant_types": ["client_credentials"], "response_types": [],
                        "token_endpoint_auth_method": "client_secret_jwt", "scope": "orders:read"},
                       bearer=ADMIN_TOKEN, status=201)
    webhook_secrets = {}
    for number in range(12):
        app = server.ok("POST", "/api/admin/applications",
                        {"name": f"App {number}", "rp_id": "example.com", "origins": ["https://example.com"]},
                        bearer=ADMIN_TOKEN, status=201)
        hooked = server.ok("PATCH", f"/api/admin/applications/{app['application_id']}",
                           {"webhook_url": "https://hooks.example.com/umfa"}, bearer=ADMIN_TOKEN)
        webhook_secrets[app["application_id"]] = hooked["webhook_secret"]
    jwks = requests.get(server.base + "/.well-known/jwks.json").json()
    server.stop()

    before = database.sealed()
    assert len([k for k in before if k[0] == "signing_keys"]) >= 2 and len(before) >= 15, before.keys()
    assert all(opens(old_key, sealed, context) is not None for sealed, context in before.values())
    assert opens(old_key, *before[("oauth_clients", "sealed_secret", client["client_id"])]) == \
        client["client_secret"].encode()

    new_key = secrets.token_bytes(32)
    key_file = tmp_path / "new.key"
    key_file.write_text(base64.b64encode(new_key).decode() + "\n")  # base64 is taken as well as raw bytes
    os.chmod(key_file, 0o600)

    keys_in_text = [base64.b64encode(k).decode() for k in (old_key, new_key)] + [k.hex() for k in (old_key, new_key)]

    # A wrong current key is refused before anything changes (no marker: servers still start).
    wrong = rotate(umfa, database, data_dir, key_file,
                   {**tool_env, "UMFA_MASTER_KEY": base64.b64encode(secrets.token_bytes(32)).decode()})
    assert wrong.code != 0 and "nothing was changed" in wrong.stdout + wrong.stderr, wrong
    assert database.setting("master_key_rotation") is None
    assert database.sealed() == before

    # A run stopped by --limit: some values are new, the rest old, and no server starts meanwhile.
    partial = rotate(umfa, database, data_dir, key_file, tool_env, "--limit", "3")
    assert partial.code == 0, partial
    assert partial.json()["status"] == "partial"
    partial_old_id = database.setting("master_key_rotation").split(" ")[0]
    mixed = database.sealed()
    assert sum(opens(new_key, s, c) is not None for s, c in mixed.values()) == 3
    refused = serve(data_dir=data_dir, env=server_env, start=False)
    assert refused.wait_exit(timeout=60) != 0
    assert "master-key rotation" in refused.logs() and "unfinished" in refused.logs()

    # A run killed part-way. It is first made to wait, so that the kill finds it unfinished
    # whatever the machine's speed: on PostgreSQL a row lock on the last application holds it
    # in the middle of the webhook secrets (the values before are re-sealed by then); on SQLite
    # the database's write lock holds it before its first write.
    holder = Holder(database)
    killed = subprocess.Popen([str(umfa_bin), "admin", "rotate-master-key", "--database", database.url,
                               "--data-dir", str(data_dir), "--new-key-file", str(key_file)],
                              env={**os.environ, **tool_env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        holder.wait_for_waiter()
        killed.kill()
        killed.wait()
        if engine == "postgres":
            # Read before the lock goes: the killed client's waiting UPDATE may still commit then
            # (PostgreSQL notices a gone client only when it answers), which the rotation allows for.
            webhooks = [v for k, v in database.sealed().items() if k[:2] == ("applications", "sealed_webhook_secret")]
            assert opens(new_key, *webhooks[0]) is not None and opens(old_key, *webhooks[-1]) is not None, \
                "the kill did not find the rotation half-way through the webhook secrets"
    finally:
        if killed.poll() is None:
            killed.kill()
            killed.wait()
        holder.release()

    # Another key cannot start a rotation while this one is unfinished.
    other_file = tmp_path / "other.key"
    other_file.write_bytes(secrets.token_bytes(32))
    os.chmod(other_file, 0o600)
    other = rotate(umfa, database, data_dir, other_file, tool_env)
    assert other.code != 0 and "unfinished" in other.stdout + other.stderr

    if engine == "sqlite":
        # The state a crash leaves between the new master.key and the rotation's last step: the
        # new key in master.key, the old one in master.key.previous, the marker still there.
        # (Here values are still under the old key too; the rerun must finish them as well.)
        (data_dir / "master.key.previous").write_bytes(old_key)
        os.chmod(data_dir / "master.key.previous", 0o600)
        (data_dir / "master.key").write_bytes(new_key)
    finished = rotate(umfa, database, data_dir, key_file, tool_env)
    assert finished.code == 0, finished
    report = finished.json()
    assert report["status"] == "rotated"
    assert report["sealed_values"]["signing_keys.sealed_private_key"] == len(
        [k for k in before if k[0] == "signing_keys"])
    assert database.setting("master_key_rotation") is None
    assert not (data_dir / "master.key.previous").exists()
    for result in (partial, wrong, other, finished):
        for text in keys_in_text:
            assert text not in result.stdout + result.stderr, "a key reached the command's output"

    after = database.sealed()
    assert after.keys() == before.keys()
    for where, (sealed, context) in after.items():
        assert opens(old_key, sealed, context) is None, f"{where} still opens with the old key"
        assert opens(new_key, sealed, context) == opens(old_key, *before[where]), f"{where} changed its content"
    for app_id, secret in webhook_secrets.items():
        assert opens(new_key, *after[("applications", "sealed_webhook_secret", app_id)]) == secret.encode()

    # The server: with the old key, nothing opens; with the new one alone, everything works.
    if engine == "sqlite":
        assert (data_dir / "master.key").read_bytes() == new_key
        assert oct(os.stat(data_dir / "master.key").st_mode & 0o777) == "0o600"
        stale_env = {**server_env, "UMFA_MASTER_KEY": base64.b64encode(old_key).decode()}
        new_env = server_env
    else:
        assert "UMFA_MASTER_KEY" in report["next"]
        stale_env = server_env
        new_env = {**server_env, "UMFA_MASTER_KEY": base64.b64encode(new_key).decode()}
    stale = serve(data_dir=data_dir, env=stale_env, start=False)
    assert stale.wait_exit(timeout=60) != 0
    assert "does not open with this master key" in stale.logs()

    restarted = serve(data_dir=data_dir, env=new_env)
    assert requests.get(restarted.base + "/.well-known/jwks.json").json() == jwks  # same keys, same kids
    restarted.ok("POST", "/api/umfa/validate-token", {"application_id": server.app_id,
                                                    "user_id": "ada", "token": token}, bearer=server.api_key)
    from authlib.integrations.requests_client import OAuth2Session
    from authlib.oauth2.rfc7523 import ClientSecretJWT
    token_url = f"{restarted.origin}/oidc/{server.app_id}/token"
    session = OAuth2Session(client["client_id"], client["client_secret"],
                            token_endpoint_auth_method=ClientSecretJWT(token_url), scope="orders:read")
    assert session.fetch_token(token_url, grant_type="client_credentials")["scope"] == "orders:read"
    events = restarted.ok("GET", "/api/admin/audit-events?action=master_key.rotated", bearer=ADMIN_TOKEN)["events"]
    assert len(events) == 1, events
    details = events[0]["details"]
    assert events[0]["actor"] == "admin" and events[0]["client_address"] == "command-line"
    assert details["old_key_id"] == partial_old_id and details["new_key_id"] == report["new_key_id"]
    assert details["old_key_id"] != details["new_key_id"]
    assert details["sealed_values"] == report["sealed_values"]
    assert base64.b64encode(new_key).decode() not in json.dumps(events)
