"""Live server 1: the whole device flow over HTTP (docs/contract.md §2, device-facing routes) against the
development application `umfa serve` prints, with `umfa authenticator register / assert
--origin http://localhost:PORT --state DIR` as the device."""

import threading

import requests

from support import UUID, Device, VirtualAuthenticator, assert_error


def test_banner_names_the_development_app(server):
    assert UUID.match(server.app_id), server.logs()
    assert server.api_key.strip(), server.logs()
    assert f"origin {server.origin}" in server.stdout, server.logs()
    assert "Admin token" not in server.stdout, "UMFA_ADMIN_TOKEN was given, yet a token was generated"


def test_register_then_log_in(server, device, authenticator):
    # Registration: options -> register -> verify -> token.
    options = device.registration_options("alice")
    public_key = options["publicKey"]
    assert public_key["rp"]["id"] == "localhost", options
    assert public_key["user"]["name"] == "alice", options
    assert public_key["user"]["id"] != "alice", "the WebAuthn user handle must not be the user_id"
    assert len(public_key["challenge"]) >= 43, "challenge shorter than 32 bytes"
    created = authenticator.register(options, origin=server.origin)
    registered = server.ok("POST", "/api/umfa/registration/verify",
                           {"application_id": server.app_id, "user_id": "alice", "credential": created.data})
    assert registered["user_id"] == "alice", registered
    assert registered["credential_id"] == created.data["id"], registered
    assert registered["token"].count(".") == 2, registered

    # The same registration response again: its challenge is spent.
    again = server.post("/api/umfa/registration/verify",
                        {"application_id": server.app_id, "user_id": "alice", "credential": created.data})
    assert again.status_code in (400, 401, 409), again.text
    assert_error(again, again.status_code)

    # Authentication: options -> assert -> verify -> token.
    options = server.ok("POST", "/api/umfa/authentication/options",
                        {"application_id": server.app_id, "user_id": "alice"})
    allowed = [c["id"] for c in options["publicKey"].get("allowCredentials", [])]
    assert registered["credential_id"] in allowed, options
    assertion = authenticator.get(options, origin=server.origin)
    logged_in = server.ok("POST", "/api/umfa/authentication/verify",
                          {"application_id": server.app_id, "user_id": "alice", "credential": assertion.data})
    assert logged_in["user_id"] == "alice", logged_in
    assert logged_in["credential_id"] == registered["credential_id"], logged_in
    assert logged_in["token"].count(".") == 2 and logged_in["token"] != registered["token"], logged_in

    # Replaying the assertion fails: the challenge was consumed.
    replay = server.post("/api/umfa/authentication/verify",
                         {"application_id": server.app_id, "user_id": "alice", "credential": assertion.data})
    assert_error(replay, 401)

    # Both tokens validate with the development app's API key.
    for token in (registered["token"], logged_in["token"]):
        server.ok("POST", "/api/umfa/validate-token",
                  {"application_id": server.app_id, "user_id": "alice", "token": token}, bearer=server.api_key)


def test_login_again_and_trace_id_echoed(server, device):
    device.register("bob")
    first = device.login("bob")
    second = device.login("bob")
    assert first["token"] != second["token"]
    out = server.ok("POST", "/api/umfa/authentication/options",
                    {"application_id": server.app_id, "user_id": "bob", "trace_id": "trace-123"})
    assert out["trace_id"] == "trace-123", out


def test_assertion_for_another_user_is_refused(server, device):
    device.register("carol")
    assertion = device.assertion("carol")
    response = server.post("/api/umfa/authentication/verify",
                           {"application_id": server.app_id, "user_id": "mallory", "credential": assertion.data})
    assert_error(response, 401)


def test_wrong_origin_is_refused(server, device, authenticator):
    options = device.registration_options("dave")
    created = authenticator.register(options, origin="http://localhost:1")
    response = server.post("/api/umfa/registration/verify",
                           {"application_id": server.app_id, "user_id": "dave", "credential": created.data})
    assert_error(response, 401)


def test_an_assertion_sent_concurrently_succeeds_exactly_once(server, device):
    device.register("erin")
    assertion = device.assertion("erin")
    body = {"application_id": server.app_id, "user_id": "erin", "credential": assertion.data}
    statuses = []

    def send():
        statuses.append(requests.post(server.base + "/api/umfa/authentication/verify", json=body, timeout=15).status_code)

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] + [401] * 7, statuses


def test_unknown_user_looks_like_a_known_one(server, device):
    device.register("frank")
    known = server.ok("POST", "/api/umfa/authentication/options",
                      {"application_id": server.app_id, "user_id": "frank"})["publicKey"]
    first, second = (server.ok("POST", "/api/umfa/authentication/options",
                               {"application_id": server.app_id, "user_id": "nobody"})["publicKey"]
                     for _ in range(2))
    assert set(first) == set(known), (first, known)
    assert first["challenge"] != second["challenge"]
    ids = [c["id"] for c in first["allowCredentials"]]
    assert ids and ids == [c["id"] for c in second["allowCredentials"]], "unknown user's ids are not stable"
    assert [len(i) for i in ids] == [len(c["id"]) for c in known["allowCredentials"]], (first, known)
    assert {tuple(sorted(c)) for c in first["allowCredentials"]} == {tuple(sorted(c)) for c in known["allowCredentials"]}


def test_open_policy_second_device_needs_a_grant(server, device, umfa, write_json, tmp_path):
    token = device.register("gina")["token"]
    phone = Device(server, VirtualAuthenticator(umfa, write_json, tmp_path / "phone"), server.app_id)
    response = server.post("/api/umfa/registration/options", {"application_id": server.app_id, "user_id": "gina"})
    assert_error(response, 403)
    # A recent login token of gina's is a grant...
    phone.register("gina", token=token)
    # ...and an enrollment token from the backend is another, used once.
    grant = server.ok("POST", "/api/umfa/enrollment-tokens", {"application_id": server.app_id, "user_id": "gina"},
                      status=201, bearer=server.api_key)["enrollment_token"]
    tablet = Device(server, VirtualAuthenticator(umfa, write_json, tmp_path / "tablet"), server.app_id)
    tablet.register("gina", enrollment_token=grant)
    response = server.post("/api/umfa/registration/options",
                           {"application_id": server.app_id, "user_id": "gina", "enrollment_token": grant})
    assert response.status_code in (401, 403), response.text
    # Another user's login token is no grant for gina.
    hank = Device(server, VirtualAuthenticator(umfa, write_json, tmp_path / "hank"), server.app_id)
    hank_token = hank.register("hank")["token"]
    response = server.post("/api/umfa/registration/options",
                           {"application_id": server.app_id, "user_id": "gina", "token": hank_token})
    assert response.status_code in (401, 403), response.text
