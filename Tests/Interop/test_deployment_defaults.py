"""Deployment defaults (docs/threat-model.md, "Deployment defaults") on a real `umfa serve`: a
master.key that others may read stops the start; /metrics needs UMFA_METRICS_TOKEN (or
--metrics-token, or metrics_token in --config) when set, and otherwise answers only callers on this
machine; the token is never logged; a PostgreSQL URL with an unknown sslmode or an unreadable
sslrootcert stops the start naming the parameter, and plaintext to a host that is not loopback is a
warning in the log."""

import json
import stat

import requests

from support import assert_error

METRICS_TOKEN = "umfa-interop-metrics-token-5f1c0b7e"


def test_a_master_key_others_may_read_stops_the_start(serve, tmp_path):
    data = tmp_path / "data"
    serve(data_dir=data).stop()
    key = data / "master.key"
    before = key.read_bytes()
    key.chmod(0o644)
    server = serve(data_dir=data, start=False)
    assert server.wait_exit() != 0, server.logs()
    output = server.stdout + server.stderr
    assert f"chmod 600 {key}" in output, server.logs()
    assert key.read_bytes() == before, "the key file was replaced"
    key.chmod(0o600)
    serve(data_dir=data).stop()
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_metrics_token_is_required_and_never_logged(serve):
    server = serve(env={"UMFA_METRICS_TOKEN": METRICS_TOKEN, "UMFA_LOG_LEVEL": "trace"})
    assert_error(server.get("/metrics"), 401)
    assert_error(server.get("/metrics", bearer=METRICS_TOKEN + "x"), 401)
    metrics = server.get("/metrics", bearer=METRICS_TOKEN)
    assert metrics.status_code == 200, metrics.text
    assert "umfa_http_requests_total" in metrics.text
    server.stop()
    assert METRICS_TOKEN not in server.stdout + server.stderr, server.logs()


def test_metrics_token_from_the_flag_and_the_config_file(serve, tmp_path):
    flagged = serve(args=("--metrics-token", METRICS_TOKEN), data_dir=tmp_path / "flag")
    assert_error(flagged.get("/metrics"), 401)
    assert flagged.get("/metrics", bearer=METRICS_TOKEN).status_code == 200
    config = tmp_path / "umfa.json"
    config.write_text(json.dumps({"metrics_token": METRICS_TOKEN}))
    filed = serve(args=("--config", str(config)), data_dir=tmp_path / "file")
    assert_error(filed.get("/metrics"), 401)
    assert filed.get("/metrics", bearer=METRICS_TOKEN).status_code == 200


def test_metrics_without_a_token_answers_only_this_machine(server):
    assert server.get("/metrics").status_code == 200
    # A local reverse proxy says it forwards someone else's request: not this machine.
    forwarded = requests.get(server.base + "/metrics", headers={"X-Forwarded-For": "198.51.100.7"}, timeout=5)
    body = assert_error(forwarded, 403)
    assert "UMFA_METRICS_TOKEN" in body["message"], body


def _failed_start(serve, database: str):
    server = serve(args=("--database", database), start=False)
    assert server.wait_exit(timeout=30) != 0, server.logs()
    return server, server.stdout + server.stderr


def test_an_unknown_sslmode_stops_the_start_naming_it(serve):
    server, output = _failed_start(serve, "postgres://umfa@127.0.0.1:1/umfa?sslmode=verify_full")
    assert "sslmode" in output and "verify-full" in output, server.logs()


def test_an_unreadable_sslrootcert_stops_the_start_naming_it(serve, tmp_path):
    missing = tmp_path / "no-such-ca.pem"
    server, output = _failed_start(
        serve, f"postgres://umfa@db.example:5432/umfa?sslmode=verify-full&sslrootcert={missing}")
    assert "sslrootcert" in output and str(missing) in output, server.logs()


def test_plaintext_to_a_remote_database_is_a_warning_without_the_password(serve):
    # 192.0.2.1 (TEST-NET-1) never answers: the start fails, after the warning.
    server, output = _failed_start(
        serve, "postgres://umfa:pg-secret-pw@192.0.2.1:5432/umfa?sslmode=disable&connect_timeout=1")
    assert "without TLS" in output and "192.0.2.1:5432" in output, server.logs()
    assert "pg-secret-pw" not in output, server.logs()
