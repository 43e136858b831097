"""Live server 3: `umfa validate-token` (docs/contract.md §3) against a running server: exit 0 and the
response body on 200, exit 1 and the server's 401 message on stderr otherwise; the credential
token type is single use."""

import json

import pytest

from support import ADMIN_TOKEN, UUID


@pytest.fixture
def alice(device):
    """alice registered on the development app; her login token."""
    device.register("alice")
    return device.login("alice")["token"]


def validate(umfa, server, *, key=None, app=None, user="alice", token, token_type=None):
    args = ["validate-token", "--server", server.base, "--api-key", key or server.api_key,
            "--app", app or server.app_id, "--user", user, "--token", token]
    if token_type:
        args += ["--token-type", token_type]
    return umfa.run(*args)


def assert_refused(result, message_part):
    """Exit 1; the server's 401 body on stdout, its message on stderr."""
    assert result.code == 1, f"expected exit 1:\n{result}"
    body = result.json()
    assert body["status"] == 401 and message_part in body["message"], result
    assert "401" in result.stderr and body["message"] in result.stderr, f"no 401 message on stderr:\n{result}"


def test_valid_token_exits_0_with_user_and_trace_id(umfa, server, alice):
    result = validate(umfa, server, token=alice)
    assert result.code == 0, result
    out = result.json()
    assert out["user_id"] == "alice", out
    assert isinstance(out["trace_id"], str) and out["trace_id"], out
    assert not result.stderr.strip(), result


def test_wrong_user_is_refused(umfa, server, alice):
    result = validate(umfa, server, user="bob", token=alice)
    assert_refused(result, "Validate token failed with: MFA login JWT was invalid")


def test_wrong_api_key_is_refused(umfa, server, alice):
    assert_refused(validate(umfa, server, key=server.api_key + "x", token=alice), "API key")
    assert_refused(validate(umfa, server, key="umfa_ak_" + "A" * 43, token=alice), "API key")


def test_another_apps_key_is_refused(umfa, server, alice):
    other = server.ok("POST", "/api/admin/applications",
                      {"name": "other", "rp_id": "localhost", "origins": [server.origin]},
                      status=201, bearer=ADMIN_TOKEN)
    assert UUID.match(other["application_id"]) and other["application_id"] != server.app_id, other
    # Other app's key, development app's id and token.
    assert_refused(validate(umfa, server, key=other["api_key"], token=alice), "API key")
    # Other app's key and id with the development app's token: issued for another application.
    result = validate(umfa, server, key=other["api_key"], app=other["application_id"], token=alice)
    assert_refused(result, "Validate token failed with")


def test_garbage_token_is_refused(umfa, server, alice):
    result = validate(umfa, server, token="not.a.jwt")
    assert_refused(result, "Validate token failed with")


def test_credential_token_is_single_use(umfa, server, device, alice, write_json):
    assertion = device.assertion("alice")
    path = write_json(assertion.data, "credential-token")
    first = validate(umfa, server, token=f"@{path}", token_type="credential")
    assert first.code == 0, first
    assert first.json()["user_id"] == "alice", first

    again = validate(umfa, server, token=f"@{path}", token_type="credential")
    assert again.code == 1, f"a credential token was accepted twice:\n{again}"
    assert_refused(again, "")


def test_credential_token_as_text_and_for_another_user(umfa, server, device, alice):
    # alice's assertion named as bob's: refused.
    assertion = device.assertion("alice")
    refused = validate(umfa, server, user="bob", token=json.dumps(assertion.data), token_type="credential")
    assert_refused(refused, "")
    # A fresh one as JSON text on the command line: accepted.
    fresh = device.assertion("alice")
    ok = validate(umfa, server, token=json.dumps(fresh.data), token_type="credential")
    assert ok.code == 0, ok
    assert ok.json()["user_id"] == "alice", ok
