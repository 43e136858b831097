"""Several `umfa serve` processes on one PostgreSQL database behave as one server, and survive
a PostgreSQL restart under load. Needs UMFA_TEST_POSTGRES_URL (scripts/with-postgres.sh sets it,
and scripts/test.sh runs the suite under it); without it these tests fail rather than skip."""

import base64
import os
import secrets
import shlex
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from support import ADMIN_TOKEN, VirtualAuthenticator, assert_error, wait_for_status

MASTER_KEY = base64.b64encode(secrets.token_bytes(32)).decode()


def postgres_url() -> str:
    url = os.environ.get("UMFA_TEST_POSTGRES_URL")
    assert url, "UMFA_TEST_POSTGRES_URL is not set: run the suite through scripts/with-postgres.sh"
    return url


@pytest.fixture
def database() -> str:
    """A fresh schema in the test database, as a URL with search_path."""
    schema = "s_" + secrets.token_hex(6)
    subprocess.run(shlex.split(os.environ["UMFA_TEST_PSQL"]) + ["-qc", f"CREATE SCHEMA {schema}", "umfa_test"],
                   check=True, capture_output=True)
    return f"{postgres_url()}?search_path={schema}"


@pytest.fixture
def pair(serve, tmp_path, database):
    """Instance A (with the development application) and B, same database and master key."""
    env = {"UMFA_DATABASE_URL": database, "UMFA_MASTER_KEY": MASTER_KEY, "UMFA_SIGNING_KEY_REFRESH_SECONDS": "1",
           "UMFA_VALIDATION_CACHE_SECONDS": "1"}
    first = serve(data_dir=tmp_path / "a", env=env)
    second = serve(data_dir=tmp_path / "b", env=env, args=("--no-default-app",))
    return first, second


def register(server, options_server, authenticator: VirtualAuthenticator, app_id: str, origin: str, user: str):
    options = options_server.ok("POST", "/api/umfa/registration/options", {"application_id": app_id, "user_id": user})
    response = authenticator.register(options, origin=origin)
    return server.ok("POST", "/api/umfa/registration/verify",
                     {"application_id": app_id, "user_id": user, "credential": response.data})


def assertion(server, authenticator: VirtualAuthenticator, app_id: str, origin: str, user: str):
    options = server.ok("POST", "/api/umfa/authentication/options", {"application_id": app_id, "user_id": user})
    return authenticator.get(options, origin=origin).data


def test_a_ceremony_started_on_one_instance_finishes_on_the_other(pair, authenticator):
    first, second = pair
    app, origin = first.app_id, first.origin
    assert "application_id" not in second.stdout  # B did not create a second development app
    registered = register(second, first, authenticator, app, origin, "alice")
    login = second.ok("POST", "/api/umfa/authentication/verify",
                      {"application_id": app, "user_id": "alice",
                       "credential": assertion(first, authenticator, app, origin, "alice")})
    assert login["credential_id"] == registered["credential_id"]
    # Tokens from either instance validate on the other; both publish the same keys.
    for issuer, validator in ((first, second), (second, first)):
        token = issuer.ok("POST", "/api/umfa/authentication/verify",
                          {"application_id": app, "user_id": "alice",
                           "credential": assertion(issuer, authenticator, app, origin, "alice")})["token"]
        validator.ok("POST", "/api/umfa/validate-token",
                     {"application_id": app, "user_id": "alice", "token": token}, bearer=first.api_key)
    assert requests.get(first.base + "/.well-known/jwks.json").json() == \
        requests.get(second.base + "/.well-known/jwks.json").json()


def test_one_assertion_sent_to_both_instances_at_once_succeeds_exactly_once(pair, authenticator):
    first, second = pair
    app, origin = first.app_id, first.origin
    register(first, first, authenticator, app, origin, "bob")
    credential = assertion(first, authenticator, app, origin, "bob")
    body = {"application_id": app, "user_id": "bob", "credential": credential}
    barrier = threading.Barrier(20)

    def send(index: int) -> int:
        target = first if index % 2 else second
        barrier.wait()
        return requests.post(target.base + "/api/umfa/authentication/verify", json=body, timeout=30).status_code

    with ThreadPoolExecutor(20) as pool:
        statuses = list(pool.map(send, range(20)))
    assert statuses.count(200) == 1, statuses
    assert statuses.count(401) == 19, statuses


def test_revocations_on_one_instance_take_effect_on_the_other(pair, authenticator):
    first, second = pair
    app, origin = first.app_id, first.origin
    registered = register(first, first, authenticator, app, origin, "carol")
    token = registered["token"]
    body = {"application_id": app, "user_id": "carol", "token": token}
    extra = second.ok("POST", f"/api/admin/applications/{app}/api-keys", status=201, bearer=ADMIN_TOKEN)
    first.ok("POST", "/api/umfa/validate-token", body, bearer=extra["api_key"])
    second.ok("DELETE", f"/api/admin/applications/{app}/api-keys/{extra['key_id']}",
              bearer=ADMIN_TOKEN)
    # The instance that revoked the key refuses it at once; the other, which validated with it
    # a moment ago, within UMFA_VALIDATION_CACHE_SECONDS (1 here).
    assert_error(second.request("POST", "/api/umfa/validate-token", body, bearer=extra["api_key"]), 401)
    time.sleep(1.5)
    assert_error(first.request("POST", "/api/umfa/validate-token", body, bearer=extra["api_key"]), 401)
    # A credential deleted through B no longer signs in on A, even with an assertion made before.
    credential_id = registered["credential_id"]
    signed_before = assertion(first, authenticator, app, origin, "carol")
    second.ok("DELETE", f"/api/umfa/users/carol/credentials/{credential_id}?application_id={app}",
              bearer=first.api_key)
    assert_error(first.request("POST", "/api/umfa/authentication/verify",
                               {"application_id": app, "user_id": "carol", "credential": signed_before}), 401)


def test_a_rotated_key_signs_on_both_and_old_tokens_keep_validating(pair, authenticator):
    first, second = pair
    app, origin = first.app_id, first.origin
    old = register(first, first, authenticator, app, origin, "dave")["token"]
    kid = first.ok("POST", "/api/admin/signing-keys", status=201, bearer=ADMIN_TOKEN)["kid"]
    time.sleep(1.5)  # instances pick up a rotated key within UMFA_SIGNING_KEY_REFRESH_SECONDS
    new = second.ok("POST", "/api/umfa/authentication/verify",
                    {"application_id": app, "user_id": "dave",
                     "credential": assertion(second, authenticator, app, origin, "dave")})["token"]
    header = new.split(".")[0]
    assert kid in base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)).decode()
    for token in (old, new):
        for server in (first, second):
            server.ok("POST", "/api/umfa/validate-token", {"application_id": app, "user_id": "dave", "token": token},
                      bearer=first.api_key)
    keys = requests.get(second.base + "/.well-known/jwks.json").json()["keys"]
    rsa = {key["kid"] for key in keys if key["alg"] == "RS256"}
    # The old and the new key of each algorithm (RS256, ES256, EdDSA): a rotation renews all three.
    assert kid in rsa and len(rsa) == 2 and len(keys) == 6, keys


def test_postgres_restart_under_load(pair, authenticator):
    """Registrations run against both instances while PostgreSQL restarts: requests in the gap
    fail cleanly (503 in the error shape, never a crash), the servers recover by themselves,
    and every registration that was answered 200 is present afterwards.

    A registration answered 503 may be stored all the same (no write is replayed): its insert
    committed, then the database ended the connection before the server could confirm the
    commit, so the server answered 503 ("could not be confirmed" in its log) and, rightly, did
    not send the insert again. A 503 says "not known to be stored", never "not stored". So:
    answered ⊆ stored ⊆ answered ∪ sent-but-not-answered-200, one credential per user."""
    first, second = pair
    app, origin = first.app_id, first.origin
    answered: list[str] = []
    unanswered: list[str] = []  # verify sent, answered otherwise than 200 (or not at all)
    failures: list[int] = []
    stop = threading.Event()

    def worker(number: int) -> None:
        target = (first, second)[number % 2]
        count = 0
        while not stop.is_set():
            user = f"load-{number}-{count}"
            count += 1
            try:
                options = target.request("POST", "/api/umfa/registration/options",
                                         {"application_id": app, "user_id": user})
                if options.status_code != 200:
                    failures.append(options.status_code)
                    assert_error(options, options.status_code)
                    time.sleep(0.05)
                    continue
                response = authenticator.register(options.json(), origin=origin)
                unanswered.append(user)
                verified = target.request("POST", "/api/umfa/registration/verify",
                                          {"application_id": app, "user_id": user, "credential": response.data})
                if verified.status_code == 200:
                    unanswered.remove(user)
                    answered.append(user)
                else:
                    failures.append(verified.status_code)
                    assert_error(verified, verified.status_code)
            except requests.RequestException:
                failures.append(0)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(2)
    before = len(answered)
    pg_ctl = shlex.split(os.environ["UMFA_TEST_PGCTL"])
    subprocess.run(pg_ctl + ["-m", "fast", "stop"], check=True, capture_output=True)
    time.sleep(8)
    subprocess.run(pg_ctl + ["start"], check=True, capture_output=True)
    time.sleep(4)
    stop.set()
    for thread in threads:
        thread.join(30)
    assert not any(thread.is_alive() for thread in threads), "a worker still runs: the rows below could change"
    after_restart = [user for user in answered[before:]]
    assert before > 0, "no registration succeeded before the restart"
    assert failures, "PostgreSQL was down for 8 s but no request failed"
    assert set(failures) <= {503, 401}, failures  # 401: a challenge issued before the gap was lost with it
    assert 503 in failures, failures
    assert after_restart, "the servers did not recover after PostgreSQL came back"
    # Every registration answered 200 is present (its owner can sign in).
    for user in answered[:: max(1, len(answered) // 10)]:
        options = first.ok("POST", "/api/umfa/authentication/options", {"application_id": app, "user_id": user})
        assert len(options["publicKey"]["allowCredentials"]) == 1, user
    psql = shlex.split(os.environ["UMFA_TEST_PSQL"])
    schema = first.env["UMFA_DATABASE_URL"].split("search_path=")[1]
    stored = subprocess.run(psql + ["-tAc", f"SELECT user_id FROM {schema}.credentials", "umfa_test"],
                            check=True, capture_output=True, text=True).stdout.split()
    assert len(stored) == len(set(stored)), "a user has two credentials: a registration was stored twice"
    assert set(answered) <= set(stored), ("answered 200 but not stored", set(answered) - set(stored))
    assert set(stored) <= set(answered) | set(unanswered), \
        ("stored without a registration sent for it", set(stored) - set(answered) - set(unanswered))
    assert first.running and second.running
    # Graceful shutdown still works after the outage (connections are re-established or closed).
    first.stop(timeout=30)
    second.stop(timeout=30)


def test_a_pool_that_lost_connections_in_an_outage_serves_concurrent_requests(serve, tmp_path, database):
    """PostgreSQL stops under concurrent requests and starts again: connections close while
    leased and idle, and reconnections fail while it is down, so the pools come back with fewer
    connections open than they may hold. Concurrent requests then need more: the pool must open
    them, never stop the process. (PostgresNIO traps when a request finds fewer connections than
    the pool's minimum, so UMFA's pools keep none: docs/operators/postgresql.md.)"""
    server = serve(env={"UMFA_DATABASE_URL": f"{database}&pool_size=8", "UMFA_MASTER_KEY": MASTER_KEY})
    app = server.app_id
    statuses: list[int | None] = []
    stop = threading.Event()

    def options(user: str) -> int | None:
        try:
            answer = server.request("POST", "/api/umfa/registration/options",
                                    {"application_id": app, "user_id": user})
        except requests.RequestException:  # the process ended under the request
            return None
        if answer.status_code != 200:
            assert_error(answer, answer.status_code)
        return answer.status_code

    def worker(number: int) -> None:
        count = 0
        while not stop.is_set():
            count += 1
            statuses.append(options(f"load-{number}-{count}"))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    time.sleep(1)
    pg_ctl = shlex.split(os.environ["UMFA_TEST_PGCTL"])
    subprocess.run(pg_ctl + ["-m", "fast", "stop"], check=True, capture_output=True)
    try:
        time.sleep(3)
    finally:
        subprocess.run(pg_ctl + ["start"], check=True, capture_output=True)
    deadline = time.monotonic() + 60
    while statuses[-24:] != [200] * 24 and time.monotonic() < deadline and server.running:
        time.sleep(0.2)
    stop.set()
    for thread in threads:
        thread.join(60)
    assert server.running, f"the server stopped in or after the outage:\n{server.logs()}"
    assert set(statuses) <= {200, 503}, statuses
    assert 503 in statuses and statuses[-24:] == [200] * 24, "no refusal in the outage, or no recovery after it"
    # A transaction holds the challenges table for two seconds, so each request holds its
    # connection while it waits: sixteen at once need every connection the pools may open.
    psql = shlex.split(os.environ["UMFA_TEST_PSQL"])
    schema = database.split("search_path=")[1]
    holder = subprocess.Popen(psql + ["-qc", f"BEGIN; LOCK TABLE {schema}.challenges; SELECT pg_sleep(2); COMMIT;",
                                      "umfa_test"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(0.5)
    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(options, [f"after-{n}" for n in range(16)]))
    assert holder.wait(30) == 0, holder.stderr.read() if holder.stderr else ""
    assert server.running, f"the server stopped after the outage:\n{server.logs()}"
    assert answers == [200] * 16


def test_failures_on_two_instances_share_one_budget(serve, tmp_path, database, authenticator):
    """Limits stop guessing across instances (docs/contract.md §4): the abuse counters live in the
    database, so alternating between two instances does not double an attacker's attempts."""
    env = {"UMFA_DATABASE_URL": database, "UMFA_MASTER_KEY": MASTER_KEY,
           "UMFA_LIMIT_USER_FAILURES": "3", "UMFA_LIMIT_CREDENTIAL_FAILURES": "4"}
    first = serve(data_dir=tmp_path / "a", env=env)
    second = serve(data_dir=tmp_path / "b", env=env, args=("--no-default-app",))
    app, origin = first.app_id, first.origin
    register(first, second, authenticator, app, origin, "alice")

    def failed_sign_in(server) -> requests.Response:
        credential = assertion(server, authenticator, app, origin, "alice")
        signature = bytearray(base64.urlsafe_b64decode(credential["response"]["signature"] + "=="))
        signature[-1] ^= 1
        credential["response"]["signature"] = base64.urlsafe_b64encode(bytes(signature)).rstrip(b"=").decode()
        return server.request("POST", "/api/umfa/authentication/verify",
                              {"application_id": app, "user_id": "alice", "credential": credential})

    for server in (first, second, first):
        assert_error(failed_sign_in(server), 401)
    for server in (second, first):
        refused = server.request("POST", "/api/umfa/authentication/verify",
                                 {"application_id": app, "user_id": "alice",
                                  "credential": assertion(server, authenticator, app, origin, "alice")})
        assert_error(refused, 429)
        assert int(refused.headers["Retry-After"]) > 0

    body = {"application_id": app, "user_id": "bob"}
    for server in (first, second, first, second):
        assert_error(server.request("POST", "/api/umfa/enrollment-tokens", body, bearer="umfa_sk_guess"), 401)
    for server in (first, second):
        assert_error(server.request("POST", "/api/umfa/enrollment-tokens", body, bearer="umfa_sk_guess"), 429)
        # The key's owner is never refused for what guessers did at the same address.
        server.ok("POST", "/api/umfa/enrollment-tokens", body, bearer=first.api_key, status=201)


def test_nul_in_identifiers_is_400_not_a_database_error(serve, tmp_path, database):
    """PostgreSQL text cannot hold U+0000: the server refuses it before the database does."""
    server = serve(data_dir=tmp_path / "a", env={"UMFA_DATABASE_URL": database, "UMFA_MASTER_KEY": MASTER_KEY})
    refused = server.request("POST", "/api/umfa/authentication/options",
                             {"application_id": server.app_id, "user_id": "al\u0000ice"})
    assert assert_error(refused, 400)["message"] == "Strings in the request body must not contain U+0000"
    listed = server.request("GET", f"/api/umfa/users/al%00ice/credentials?application_id={server.app_id}",
                            bearer=server.api_key)
    assert assert_error(listed, 400)["message"] == "user_id must not contain U+0000"
    server.ok("POST", "/api/umfa/authentication/options", {"application_id": server.app_id, "user_id": "alice"})


def test_readiness_follows_postgres_down_and_up_while_liveness_stays(serve, tmp_path, database):
    """/health/ready answers 503 while PostgreSQL is stopped and 200 again by itself once it is
    back; /health, the liveness answer, stays 200 throughout (docs/operators/probes.md)."""
    server = serve(env={"UMFA_DATABASE_URL": database, "UMFA_MASTER_KEY": MASTER_KEY})
    assert server.get("/health/ready").status_code == 200
    pg_ctl = shlex.split(os.environ["UMFA_TEST_PGCTL"])
    subprocess.run(pg_ctl + ["-m", "fast", "stop"], check=True, capture_output=True)
    try:
        wait_for_status(server, "/health/ready", 503)
        refusal = assert_error(server.get("/health/ready"), 503)
        assert refusal["message"] == "not ready: the database cannot be reached or written"
        assert "PostgreSQL" not in refusal["message"] and "127.0.0.1" not in str(refusal)
        assert server.get("/health").status_code == 200
    finally:
        subprocess.run(pg_ctl + ["start"], check=True, capture_output=True)
    wait_for_status(server, "/health/ready", 200)
    # Serving again, not only answering the probe.
    server.ok("POST", "/api/umfa/registration/options", {"application_id": server.app_id, "user_id": "back"})
    # Once per change, with its reason (no connection within the probe's 3 s: the pool waits
    # longer for one), never once per probe.
    assert server.stderr.count("not ready:") == 1 and server.stderr.count("ready again") == 1, server.stderr
