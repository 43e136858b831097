"""Live server 6: secrets (docs/contract.md §3 `serve` and §4 "Secrets"): the generated admin token is
printed once and works; the generated master key file has mode 0600; no admin token, API key,
enrollment token, login token or challenge is stored or logged in clear; UMFA_MASTER_KEY is
checked and, when given, used instead of a key file."""

import base64
import secrets
import stat

import pytest

from support import ADMIN_BANNER, KEY_BANNER, Device, VirtualAuthenticator, assert_error


def data_files(directory):
    return [p for p in directory.rglob("*") if p.is_file()]


def test_generated_admin_token_and_no_secret_in_clear(serve, authenticator, umfa, write_json, tmp_path):
    data = tmp_path / "data"
    # The most talkative log level: no level may log a secret.
    server = serve(data_dir=data, admin_token=None, env={"UMFA_LOG_LEVEL": "trace"})
    admin_token = server.admin_token
    assert len(admin_token) >= 32, "a generated admin token shorter than 32 characters"

    # The printed admin token works, and only it.
    apps = server.ok("GET", "/api/admin/applications", bearer=admin_token)["applications"]
    assert [a["application_id"] for a in apps] == [server.app_id], apps
    wrong = admin_token[:-1] + ("A" if admin_token[-1] != "A" else "B")
    assert_error(server.get("/api/admin/applications", bearer=wrong), 401)

    # The generated master key: a file of mode 0600 in the data dir.
    master_key = data / "master.key"
    assert master_key.is_file(), f"no master.key in {sorted(p.name for p in data.iterdir())}"
    assert stat.S_IMODE(master_key.stat().st_mode) == 0o600, oct(master_key.stat().st_mode)

    # Secrets of every kind go through the server.
    dev = Device(server, authenticator, server.app_id)
    challenge = dev.registration_options("alice")["publicKey"]["challenge"]
    registered = dev.register("alice")
    logged_in = dev.login("alice")
    dev_enrollment = server.ok("POST", "/api/umfa/enrollment-tokens",
                               {"application_id": server.app_id, "user_id": "alice"},
                               status=201, bearer=server.api_key)["enrollment_token"]
    # A second device of alice's needs a grant even under open.
    phone = VirtualAuthenticator(umfa, write_json, tmp_path / "phone-state")
    Device(server, phone, server.app_id).register("alice", enrollment_token=dev_enrollment)
    shop = server.ok("POST", "/api/admin/applications", {"name": "shop", "rp_id": "localhost",
                                                        "origins": [server.origin]}, status=201, bearer=admin_token)
    second_key = server.ok("POST", f"/api/admin/applications/{shop['application_id']}/api-keys",
                           status=201, bearer=admin_token)["api_key"]
    shop_enrollment = server.ok("POST", "/api/umfa/enrollment-tokens",
                                {"application_id": shop["application_id"], "user_id": "bob"},
                                status=201, bearer=second_key)["enrollment_token"]
    shop_login = Device(server, authenticator, shop["application_id"]).register(
        "bob", enrollment_token=shop_enrollment)["token"]
    for token in (registered["token"], logged_in["token"]):
        server.ok("POST", "/api/umfa/validate-token", {"application_id": server.app_id, "user_id": "alice",
                                                       "token": token}, bearer=server.api_key)
    # Failed attempts with secrets in them are logged too, perhaps.
    server.post("/api/umfa/validate-token", {"application_id": server.app_id, "user_id": "mallory",
                                             "token": logged_in["token"]}, bearer=second_key)
    server.get("/api/admin/applications", bearer=shop["api_key"])
    metrics = server.get("/metrics")
    assert metrics.status_code == 200, metrics.text
    server.stop()

    stored_secrets = {
        "admin token": admin_token,
        "development API key": server.api_key,
        "created API key": shop["api_key"],
        "added API key": second_key,
        "enrollment token (open app)": dev_enrollment,
        "enrollment token (grant app)": shop_enrollment,
        "login token": logged_in["token"],
        "login token signature": logged_in["token"].rsplit(".", 1)[1],
        "registration token": registered["token"],
        "grant-app login token": shop_login,
    }
    found = [f"{name} in {path.relative_to(data)}" for path in data_files(data)
             for name, value in stored_secrets.items() if value.encode() in path.read_bytes()]
    assert not found, f"secrets stored in clear: {found}"

    # The output: stdout after the start banner, and all of stderr (the log).
    stdout = server.stdout
    banner_end = KEY_BANNER.search(stdout).end()
    assert ADMIN_BANNER.search(stdout[:banner_end]), stdout
    logged = {"stdout after the banner": stdout[banner_end:], "stderr": server.stderr, "GET /metrics": metrics.text}
    logged_secrets = dict(stored_secrets, challenge=challenge)
    found = [f"{name} in {where}" for where, text in logged.items()
             for name, value in logged_secrets.items() if value in text]
    assert not found, f"secrets in the server's output: {found}\n{server.logs()}"


def test_master_key_not_base64_stops_the_start(serve, tmp_path):
    data = tmp_path / "data"
    server = serve(data_dir=data, env={"UMFA_MASTER_KEY": "not base64"}, start=False)
    code = server.wait_exit()
    assert code != 0, server.logs()
    assert "UMFA_MASTER_KEY" in server.stdout + server.stderr, server.logs()
    assert not (data / "master.key").exists(), "a key file was created although UMFA_MASTER_KEY was given"


@pytest.mark.parametrize("length", [16, 31, 33, 64])
def test_master_key_of_the_wrong_length_stops_the_start(serve, tmp_path, length):
    key = base64.b64encode(secrets.token_bytes(length)).decode()
    server = serve(data_dir=tmp_path / "data", env={"UMFA_MASTER_KEY": key}, start=False)
    code = server.wait_exit()
    assert code != 0, f"started with a {length}-byte master key\n{server.logs()}"
    assert "UMFA_MASTER_KEY" in server.stdout + server.stderr, server.logs()
    assert key not in server.stdout + server.stderr, "the master key was echoed"


def urlsafe_only_key() -> str:
    """32 random bytes whose URL-safe base64 differs from the standard one."""
    while True:
        key = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()
        if "-" in key or "_" in key:
            return key


def test_given_master_key_is_used_without_a_key_file(serve, authenticator, tmp_path):
    data = tmp_path / "data"
    raw = secrets.token_bytes(32)
    env = {"UMFA_MASTER_KEY": base64.b64encode(raw).decode()}
    first = serve(data_dir=data, env=env)
    app_id, api_key = first.app_id, first.api_key
    token = Device(first, authenticator, app_id).register("alice")["token"]
    assert not (data / "master.key").exists(), sorted(p.name for p in data.iterdir())
    first.stop()
    for path in data_files(data):
        assert raw not in path.read_bytes() and env["UMFA_MASTER_KEY"].encode() not in path.read_bytes(), path
    assert env["UMFA_MASTER_KEY"] not in first.stdout + first.stderr, "the master key was logged"

    # Restart with the same key in URL-safe spelling: everything decrypts.
    env = {"UMFA_MASTER_KEY": base64.urlsafe_b64encode(raw).decode().rstrip("=")}
    second = serve(data_dir=data, env=env, port=first.port)
    second.ok("POST", "/api/umfa/validate-token", {"application_id": app_id, "user_id": "alice", "token": token},
              bearer=api_key)
    Device(second, authenticator, app_id).login("alice")
    assert not (data / "master.key").exists()


def test_url_safe_master_key_is_accepted(serve, tmp_path):
    data = tmp_path / "data"
    server = serve(data_dir=data, env={"UMFA_MASTER_KEY": urlsafe_only_key()})
    assert server.get("/health").status_code == 200
    assert not (data / "master.key").exists()
    assert any(data.iterdir()), "nothing stored"


# -- after a full run, nothing anywhere in clear (issue #9) ----------------------------------------

PRIVATE_KEY_MARKERS = {
    "PEM private key": b"PRIVATE KEY-----",
    "PKCS#8 P-256 key (DER)": bytes.fromhex("308187020100301306072a8648ce3d020106082a8648ce3d030107"),
    "SEC1 P-256 key (DER)": bytes.fromhex("30770201010420"),
    "PKCS#8 RSA key (DER)": bytes.fromhex("020100300d06092a864886f70d0101010500"),
    "JWK private member": b'"d":"',
}


def encodings(value: str | bytes) -> dict[str, bytes]:
    """A secret as it could leak: raw, base64, base64url (padded or not), hex (either case)."""
    raw = value.encode() if isinstance(value, str) else value
    forms = {
        "raw": raw,
        "base64": base64.b64encode(raw),
        "base64url": base64.urlsafe_b64encode(raw).rstrip(b"="),
        "hex": raw.hex().encode(),
        "HEX": raw.hex().upper().encode(),
    }
    if isinstance(value, str):
        try:  # a base64url secret (umfa_ak_…): its decoded bytes too
            body = value.rsplit("_", 1)[-1]
            decoded = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
            if len(decoded) >= 16:
                forms["decoded"] = decoded
                forms["decoded hex"] = decoded.hex().encode()
        except ValueError:
            pass
    return forms


def test_no_secret_in_clear_in_data_dir_device_dirs_or_logs(serve, umfa, authenticator, write_json, tmp_path):
    """A full run: admin token, master key, API keys, enrollment token, two PIN devices
    through `umfa enroll/authenticate`, the virtual authenticator, login
    tokens, failed attempts. Then every file of the data dir and both device dirs, and the
    server's stdout after the banner and stderr at trace level, are searched for each secret
    in raw, base64, base64url and hex form, and for private keys in PEM, DER or JWK form."""
    from support import DeviceCLI

    data = tmp_path / "data"
    master_key = secrets.token_bytes(32)
    server = serve(data_dir=data, admin_token=None, env={
        "UMFA_LOG_LEVEL": "trace", "UMFA_MASTER_KEY": base64.b64encode(master_key).decode()})
    admin_token = server.admin_token
    shop = server.ok("POST", "/api/admin/applications",
                     {"name": "shop", "rp_id": "localhost", "origins": [server.origin], "enrollment_policy": "grant"},
                     status=201, bearer=admin_token)
    shop_key = shop["api_key"]
    # The CLI takes PINs (at least 4 digits); the second device has a long one.
    pin, password = "493817", "2048091735"
    grants, tokens = [], []
    device_dirs = [tmp_path / "pin-device", tmp_path / "password-device"]
    for directory, user, secret in zip(device_dirs, ["pia", "pat"], [pin, password]):
        grant = server.ok("POST", "/api/umfa/enrollment-tokens", {"application_id": shop["application_id"],
                                                                  "user_id": user}, status=201,
                          bearer=shop_key)["enrollment_token"]
        grants.append(grant)
        cli = DeviceCLI(umfa, server.base, shop["application_id"], server.origin, directory)
        tokens.append(cli.enroll(user, "--enrollment-token", grant, pin=secret)["token"])
        tokens.append(cli.authenticate(user, pin=secret)["token"])
        wrong = cli.run("authenticate", user, pin=secret[::-1])
        assert wrong.code != 0, wrong
    dev = Device(server, authenticator, server.app_id)
    tokens.append(dev.register("vera")["token"])
    tokens.append(dev.login("vera")["token"])
    for token in tokens[:2]:
        server.ok("POST", "/api/umfa/validate-token", {"application_id": shop["application_id"], "user_id": "pia",
                                                       "token": token}, bearer=shop_key)
    server.get("/api/admin/applications", bearer=shop_key)  # a wrong admin token: an API key
    server.post("/api/umfa/validate-token", {"application_id": shop["application_id"], "user_id": "pia",
                                             "token": tokens[0]}, bearer=server.api_key)  # another app's key
    server.stop()

    named = {"admin token": admin_token, "development API key": server.api_key, "shop API key": shop_key,
             "PIN": pin, "password": password, "master key": master_key,
             **{f"enrollment token {i}": grant for i, grant in enumerate(grants)},
             **{f"login token {i}": token for i, token in enumerate(tokens)},
             **{f"login token signature {i}": token.rsplit(".", 1)[1] for i, token in enumerate(tokens)}}
    places = {f"data/{p.relative_to(data)}": p.read_bytes() for p in data_files(data)}
    for directory in device_dirs + [tmp_path / "state"]:
        places.update({f"{directory.name}/{p.relative_to(directory)}": p.read_bytes()
                       for p in data_files(directory)})
    assert any(name.startswith("pin-device/") for name in places), "the PIN device stored nothing"
    stdout = server.stdout
    places["server stdout after the banner"] = stdout[KEY_BANNER.search(stdout).end():].encode()
    places["server stderr (trace log)"] = server.stderr.encode()
    assert "trace" in server.stderr.lower() or len(server.stderr) > 0, "no log at trace level to search"

    found = [f"{name} ({form}) in {where}" for name, value in named.items()
             for form, needle in encodings(value).items() if len(needle) >= 6
             for where, content in places.items() if needle in content]
    found += [f"{kind} in {where}" for kind, marker in PRIVATE_KEY_MARKERS.items()
              for where, content in places.items() if marker in content]
    assert not found, "secrets in clear:\n" + "\n".join(found)
