"""Live server 7: bad input (docs/contract.md §2 errors, §4 "Bad input"): a clear 4xx in the error shape
{"status", "trace_id", "message"}, the client's trace_id echoed, never a 500, nothing lost."""

import json

import pytest

from support import ADMIN_TOKEN, assert_error

LIMIT = 64 * 1024

# Every JSON route, with the credentials it needs (None: a device route).
ROUTES = [
    ("/api/umfa/registration/options", None),
    ("/api/umfa/registration/verify", None),
    ("/api/umfa/authentication/options", None),
    ("/api/umfa/authentication/verify", None),
    ("/api/umfa/unenroll", None),
    ("/api/umfa/validate-token", "api_key"),
    ("/api/umfa/enrollment-tokens", "api_key"),
    ("/api/admin/applications", "admin"),
]


def bearer(server, kind):
    return {None: None, "api_key": server.api_key, "admin": ADMIN_TOKEN}[kind]


@pytest.fixture
def enrolled(device):
    """alice enrolled with a valid login token: what bad input must not damage."""
    device.register("alice")
    return device


def still_works(server, device):
    token = device.login("alice")["token"]
    server.ok("POST", "/api/umfa/validate-token", {"application_id": server.app_id, "user_id": "alice",
                                                   "token": token}, bearer=server.api_key)


def each_route(server, check):
    """Runs check(path, bearer) for every route; reports every route that fails."""
    failures = []
    for path, kind in ROUTES:
        try:
            check(path, bearer(server, kind))
        except AssertionError as error:
            failures.append(f"{path}: {error}")
    assert not failures, "\n".join(failures)


def test_not_json_is_400(server, enrolled):
    def check(path, key):
        for body in (b"{not json", b"", b"[1, 2]", b'"a string"', b"\xff\xfe", b"{\"application_id\": "):
            assert_error(server.post(path, data=body, bearer=key), 400)
        assert_error(server.post(path + "?trace_id=not-json", data=b"{oops", bearer=key), 400, trace_id="not-json")
    each_route(server, check)
    still_works(server, enrolled)


def test_wrong_types_are_400_with_trace_id_echoed(server, enrolled):
    bodies = [
        {"application_id": 123, "user_id": "alice", "name": 5, "rp_id": [], "origins": "x"},
        {"application_id": server.app_id, "user_id": ["alice"], "token": 1, "credential": "x", "name": "n",
         "rp_id": "localhost", "origins": [1]},
        {"application_id": server.app_id, "user_id": {"a": 1}, "credential": [], "token": {}, "name": None,
         "rp_id": None, "origins": None},
    ]

    def check(path, key):
        for number, body in enumerate(bodies):
            trace_id = f"bad-types-{number}"
            assert_error(server.post(path, dict(body, trace_id=trace_id), bearer=key), 400, trace_id=trace_id)
    each_route(server, check)
    still_works(server, enrolled)


def test_body_over_64_kib_is_413(server, enrolled):
    body = json.dumps({"application_id": server.app_id, "user_id": "alice", "pad": "x" * LIMIT})
    assert len(body) > LIMIT

    def check(path, key):
        assert_error(server.post(path + "?trace_id=big-body", data=body, bearer=key), 413, trace_id="big-body")
        assert_error(server.post(path, data=body, bearer=key), 413)
        # Chunked, without a Content-Length.
        chunks = (body[i:i + 4096].encode() for i in range(0, len(body), 4096))
        assert_error(server.post(path, data=chunks, bearer=key), 413)
    each_route(server, check)
    still_works(server, enrolled)


def test_a_body_just_under_the_limit_is_judged(server, enrolled):
    body = {"application_id": server.app_id, "user_id": "alice", "trace_id": "padded"}
    body["pad"] = "x" * (LIMIT - len(json.dumps(body)) - 20)
    response = server.post("/api/umfa/authentication/options", body)
    assert response.status_code == 200, response.text
    assert response.json()["trace_id"] == "padded"


def test_trace_id_echoed_or_generated(server):
    # Echoed on success and on errors.
    out = server.ok("POST", "/api/umfa/authentication/options",
                    {"application_id": server.app_id, "user_id": "x", "trace_id": "t-ok"})
    assert out["trace_id"] == "t-ok", out
    response = server.post("/api/umfa/authentication/options", {"application_id": "not-a-uuid", "trace_id": "t-bad"})
    assert_error(response, 400, trace_id="t-bad")
    response = server.post("/api/umfa/validate-token", {"application_id": server.app_id, "user_id": "a",
                                                        "token": "x", "trace_id": "t-401"}, bearer="wrong")
    assert_error(response, 401, trace_id="t-401")
    # Generated when absent: a fresh one each time.
    first = assert_error(server.post("/api/umfa/authentication/options", {"application_id": "nope"}), 400)
    second = assert_error(server.post("/api/umfa/authentication/options", {"application_id": "nope"}), 400)
    assert first["trace_id"] != second["trace_id"], (first, second)


def test_missing_fields_and_unknown_application(server):
    assert_error(server.post("/api/umfa/registration/options", {"application_id": server.app_id}), 400)
    assert_error(server.post("/api/umfa/validate-token", {"application_id": server.app_id, "user_id": "a"},
                             bearer=server.api_key), 400)
    assert_error(server.post("/api/umfa/validate-token", {"application_id": "not-a-uuid", "user_id": "a",
                                                          "token": "t"}, bearer=server.api_key), 400)
    response = server.post("/api/umfa/validate-token", {"application_id": server.app_id, "user_id": "a",
                                                        "token": "t", "token_type": "saml"}, bearer=server.api_key)
    assert_error(response, 400)
    assert_error(server.post("/api/umfa/registration/options", {"application_id": server.app_id,
                                                                "user_id": "x" * 257}), 400)
    assert_error(server.post("/api/umfa/registration/options", {"application_id": server.app_id,
                                                                "user_id": ""}), 400)
