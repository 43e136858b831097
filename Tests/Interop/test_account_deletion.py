"""Deleting a whole account (docs/contract.md §8, "Deleting an account"), over HTTP from outside
against a running `umfa serve`: by the admin, by the application's backend with its API key, and by
the user with a fresh login token (`DELETE /api/umfa/me`).

After the deletion nothing of the user works any more: the refresh token is `invalid_grant`, the
access token 401 at userinfo and inactive at introspection, the SSO cookie no longer signs in, the
login token is refused by validate-token, the recovery codes redeem nothing, and the email address
is free for another account. The audit log has `user.deleted` and the application's webhook receives
an event with the user id and nothing else. Another user of the same application keeps everything.

The attacks: an API key deleting a user of another application, deleting twice, and a self-service
deletion with a token that is not the user's own."""

import json
import uuid

import pytest
import requests

from support import ADMIN_TOKEN, Device, VirtualAuthenticator
from test_out_of_band_delivery import Receiver, signed_with
from test_passkey_deletion_ends_sessions import (  # noqa: F401 (registered_client is a fixture)
    Browser,
    Client,
    assert_alive,
    assert_ended,
    registered_client,
    signed_in,
)

WAYS = ["admin", "api_key", "self_service"]


def delete_account(server, how: str, device: Device, user_id: str) -> requests.Response:
    if how == "admin":
        return server.request("DELETE", f"/api/admin/applications/{server.app_id}/users/{user_id}",
                              bearer=ADMIN_TOKEN)
    if how == "api_key":
        return server.request("DELETE", f"/api/umfa/users/{user_id}?application_id={server.app_id}",
                              bearer=server.api_key)
    return server.request("DELETE", "/api/umfa/me", bearer=device.login(user_id)["token"])


def set_email(server, user_id: str, email: str) -> requests.Response:
    return server.request("PATCH", f"/api/umfa/users/{user_id}/profile",
                          {"application_id": server.app_id, "email": email, "email_verified": True},
                          bearer=server.api_key)


def validates(server, user_id: str, token: str) -> int:
    answer = server.request("POST", "/api/umfa/validate-token",
                            {"application_id": server.app_id, "user_id": user_id, "token": token},
                            bearer=server.api_key)
    return answer.status_code


def audit(server, action: str, user_id: str) -> list[dict]:
    return server.ok("GET", f"/api/admin/audit-events?application_id={server.app_id}&action={action}"
                            f"&user_id={user_id}", bearer=ADMIN_TOKEN)["events"]


@pytest.mark.parametrize("how", WAYS)
def test_deleting_an_account_ends_everything_of_the_user_and_nothing_of_another(
        server, device, registered_client, umfa, write_json, tmp_path, how):
    receiver = Receiver()
    receiver.gate.set()
    try:
        hooked = server.ok("PATCH", f"/api/admin/applications/{server.app_id}", {"webhook_url": receiver.url},
                           bearer=ADMIN_TOKEN)
        secret = hooked["webhook_secret"]
        client = Client(server, registered_client)
        user_id = f"ada-{uuid.uuid4().hex[:8]}"
        email = f"{user_id}@example.com"
        device.register(user_id, uv=True)
        assert set_email(server, user_id, email).status_code == 200
        login = device.login(user_id)["token"]
        codes = server.ok("POST", "/api/umfa/me/recovery-codes", status=201, bearer=login)["recovery_codes"]
        browser = Browser(server, registered_client, device)
        tokens = signed_in(client, browser, user_id)
        assert_alive(client, browser, tokens)
        assert validates(server, user_id, login) == 200

        # Another user of the same application, signed in too.
        other_id = f"bob-{uuid.uuid4().hex[:8]}"
        other = Device(server, VirtualAuthenticator(umfa, write_json, tmp_path / "other"), server.app_id)
        other.register(other_id, uv=True)
        other_login = other.login(other_id)["token"]
        other_browser = Browser(server, registered_client, other)
        other_tokens = signed_in(client, other_browser, other_id)

        answer = delete_account(server, how, device, user_id)
        assert answer.status_code == 204 and answer.content == b"", (answer.status_code, answer.text)

        assert_ended(client, browser, tokens)
        assert validates(server, user_id, login) == 401
        credentials = server.request("GET", f"/api/umfa/users/{user_id}/credentials?application_id={server.app_id}",
                                     bearer=server.api_key)
        assert credentials.status_code == 404, credentials.text
        found = server.ok("GET", f"/api/admin/applications/{server.app_id}/users?query={user_id}",
                          bearer=ADMIN_TOKEN)["users"]
        assert found == [], found
        redeemed = server.post("/api/umfa/recovery",
                               {"application_id": server.app_id, "user_id": user_id, "recovery_code": codes[0]})
        assert redeemed.status_code == 401, redeemed.text
        # The address is free: another account takes it at once.
        newcomer = f"cy-{uuid.uuid4().hex[:8]}"
        Device(server, VirtualAuthenticator(umfa, write_json, tmp_path / "new"), server.app_id).register(newcomer)
        assert set_email(server, newcomer, email).status_code == 200

        [event] = audit(server, "user.deleted", user_id)
        assert event["details"] == {"via": how}, event
        assert event["actor"] == {"admin": "admin", "self_service": f"user:{user_id}"}.get(how, event["actor"])
        if how == "api_key":
            assert event["actor"].startswith("api_key:"), event
        receiver.wait(lambda r: any(json.loads(d["body"])["type"] == "user.deleted" for d in r.answered), 30,
                      "the user.deleted webhook")
        [delivery] = [d for d in receiver.answered if json.loads(d["body"])["type"] == "user.deleted"]
        assert signed_with(delivery, secret), delivery
        body = json.loads(delivery["body"])
        assert set(body) == {"type", "userId", "occurredAt"} and body["userId"] == user_id, body
        assert email not in delivery["body"], "the webhook names the user and nothing else of theirs"

        # Nothing of the other user changed.
        assert validates(server, other_id, other_login) == 200
        assert_alive(client, other_browser, other_tokens)

        # The account is gone: a second deletion finds nothing.
        again = server.request("DELETE", f"/api/admin/applications/{server.app_id}/users/{user_id}",
                               bearer=ADMIN_TOKEN)
        assert again.status_code == 404, again.text
    finally:
        receiver.close()


def test_an_api_key_deletes_only_users_of_its_own_application(server, device):
    user_id = f"dee-{uuid.uuid4().hex[:8]}"
    device.register(user_id)
    other = server.ok("POST", "/api/admin/applications",
                      {"name": "Other shop", "rp_id": "localhost", "origins": [server.origin]},
                      status=201, bearer=ADMIN_TOKEN)

    # The other application's key names this application, or its own: never this user.
    foreign = server.request("DELETE", f"/api/umfa/users/{user_id}?application_id={server.app_id}",
                             bearer=other["api_key"])
    assert foreign.status_code == 401, foreign.text
    own = server.request("DELETE", f"/api/umfa/users/{user_id}?application_id={other['application_id']}",
                         bearer=other["api_key"])
    assert own.status_code == 404, own.text
    # No key at all, or the admin route with an API key.
    assert server.request("DELETE", f"/api/umfa/users/{user_id}?application_id={server.app_id}").status_code == 401
    admin_route = server.request("DELETE", f"/api/admin/applications/{server.app_id}/users/{user_id}",
                                 bearer=server.api_key)
    assert admin_route.status_code == 401, admin_route.text

    assert validates(server, user_id, device.login(user_id)["token"]) == 200
    assert audit(server, "user.deleted", user_id) == []


def test_the_user_deletes_only_their_own_account(server, device, umfa, write_json, tmp_path):
    mallory, victim = f"mal-{uuid.uuid4().hex[:8]}", f"vic-{uuid.uuid4().hex[:8]}"
    device.register(mallory)
    victim_device = Device(server, VirtualAuthenticator(umfa, write_json, tmp_path / "victim"), server.app_id)
    victim_device.register(victim)

    # No token, a made-up one, or the API key: refused. Mallory's own token deletes Mallory only.
    assert server.request("DELETE", "/api/umfa/me").status_code == 401
    assert server.request("DELETE", "/api/umfa/me", bearer="not.a.token").status_code == 401
    assert server.request("DELETE", "/api/umfa/me", bearer=server.api_key).status_code == 401
    answer = server.request("DELETE", f"/api/umfa/me?user_id={victim}", bearer=device.login(mallory)["token"])
    assert answer.status_code == 204, answer.text

    assert validates(server, victim, victim_device.login(victim)["token"]) == 200
    assert [e["user_id"] for e in audit(server, "user.deleted", mallory)] == [mallory]
    assert audit(server, "user.deleted", victim) == []


def test_the_cli_deletes_a_user(server, device, umfa):
    user_id = f"eve-{uuid.uuid4().hex[:8]}"
    device.register(user_id)
    deleted = umfa.run("admin", "delete-user", "--server", server.base, "--admin-token", ADMIN_TOKEN,
                       "--app", server.app_id, "--user", user_id)
    assert deleted.code == 0 and deleted.stdout == "", deleted
    again = umfa.run("admin", "delete-user", "--server", server.base, "--admin-token", ADMIN_TOKEN,
                     "--app", server.app_id, "--user", user_id)
    assert again.code == 1 and "HTTP 404: Unknown user" in again.stderr, again
