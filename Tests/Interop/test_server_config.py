"""`umfa serve --config FILE` and the one settings reader: flags win over the environment,
which wins over the file; a value that does not parse, from any source, stops the start with a
message naming the setting and its source."""

import json

import requests

from support import ADMIN_TOKEN


def _config(tmp_path, settings) -> str:
    path = tmp_path / "umfa.json"
    path.write_text(json.dumps(settings))
    return str(path)


def test_a_setting_from_the_file_applies(serve, tmp_path):
    config = _config(tmp_path, {"limit_credential_failures": 1, "limit_block_seconds": 60})
    server = serve(args=("--config", config))
    wrong = {"Authorization": "Bearer wrong-admin-token"}
    first = requests.get(server.base + "/api/admin/applications", headers=wrong, timeout=5)
    assert first.status_code == 401, first.text
    second = requests.get(server.base + "/api/admin/applications", headers=wrong, timeout=5)
    assert second.status_code == 429, f"the file's limit of 1 was not applied: {second.status_code} {second.text}"
    assert second.headers.get("Retry-After"), second.headers


def test_the_environment_wins_over_the_file(serve, tmp_path):
    config = _config(tmp_path, {"idle_timeout_seconds": "not a number"})
    server = serve(args=("--config", config), env={"UMFA_IDLE_TIMEOUT_SECONDS": "30"})
    assert requests.get(server.base + "/health", timeout=5).status_code == 200


def test_a_bad_value_in_the_file_stops_the_start_naming_it(serve, tmp_path):
    config = _config(tmp_path, {"body_timeout_seconds": -1})
    server = serve(args=("--config", config), start=False)
    assert server.wait_exit() != 0, server.logs()
    output = server.stdout + server.stderr
    assert "UMFA_BODY_TIMEOUT_SECONDS" in output and config in output, server.logs()


def test_an_unknown_key_in_the_file_stops_the_start(serve, tmp_path):
    config = _config(tmp_path, {"limit_user_failure": 3})
    server = serve(args=("--config", config), start=False)
    assert server.wait_exit() != 0, server.logs()
    assert "limit_user_failure" in server.stdout + server.stderr, server.logs()


def test_a_bad_environment_value_stops_the_start_instead_of_being_ignored(serve, tmp_path):
    server = serve(env={"UMFA_TRUST_FORWARDED_FOR": "perhaps"}, start=False)
    assert server.wait_exit() != 0, server.logs()
    output = server.stdout + server.stderr
    assert "UMFA_TRUST_FORWARDED_FOR" in output and "environment" in output, server.logs()


def test_a_config_file_that_is_not_json_stops_the_start(serve, tmp_path):
    path = tmp_path / "umfa.json"
    path.write_text("port = 8080\n")
    server = serve(args=("--config", str(path)), start=False)
    assert server.wait_exit() != 0, server.logs()
    assert "--config" in server.stdout + server.stderr, server.logs()
    assert ADMIN_TOKEN not in server.stdout + server.stderr


def test_limit_options_requests_from_the_file_applies(serve, tmp_path):
    """`limit_options_requests` was refused as an unknown key although
    UMFA_LIMIT_OPTIONS_REQUESTS worked; every setting the server reads is a known key."""
    config = _config(tmp_path, {"limit_options_requests": 3})
    server = serve(args=("--config", config))
    body = {"application_id": server.app_id, "user_id": "alice"}
    statuses = [server.request("POST", "/api/umfa/authentication/options", body).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429], statuses
