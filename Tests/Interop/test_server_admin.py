"""Live server 4: the admin API from the shell (`umfa admin ...`, docs/contract.md §3) and the `grant`
enrollment policy over HTTP (docs/contract.md §2): enrollment tokens from the backend, several API keys."""

import json

import pytest

from support import ADMIN_TOKEN, UUID, Device, assert_error


def admin(umfa, server, *args, token=ADMIN_TOKEN):
    """`umfa admin ...` with the admin token in UMFA_ADMIN_TOKEN (not on the command line)."""
    umfa_env = {"UMFA_ADMIN_TOKEN": token}
    return umfa.run_env(umfa_env, "admin", args[0], "--server", server.base, *args[1:])


@pytest.fixture
def shop(umfa, server):
    """A `grant` application created with `umfa admin create-app`."""
    result = admin(umfa, server, "create-app", "--name", "shop", "--rp-id", "localhost",
                   "--origin", server.origin, "--policy", "grant")
    assert result.code == 0, result
    return result.json()


def test_create_app_prints_the_application_with_its_key(umfa, server, shop):
    assert UUID.match(shop["application_id"]) and shop["application_id"] != server.app_id, shop
    assert shop["api_key"] and shop["api_key"] != server.api_key, shop
    assert shop["name"] == "shop" and shop["rp_id"] == "localhost", shop
    assert shop["origins"] == [server.origin], shop
    assert shop["enrollment_policy"] == "grant", shop
    assert isinstance(shop["trace_id"], str), shop

    # The same call over HTTP answers 201.
    response = server.post("/api/admin/applications",
                           {"name": "raw", "rp_id": "localhost", "origins": [server.origin]}, bearer=ADMIN_TOKEN)
    assert response.status_code == 201, response.text
    assert response.json()["enrollment_policy"] == "grant", "grant is the default policy"


def test_admin_needs_the_admin_token(umfa, server):
    result = admin(umfa, server, "list-apps", token="umfa_admin_wrong")
    assert result.code != 0 and "401" in result.stderr, result
    assert_error(server.get("/api/admin/applications"), 401)
    assert_error(server.get("/api/admin/applications", bearer=server.api_key), 401)
    assert_error(server.post("/api/admin/applications", {"name": "x", "rp_id": "localhost",
                                                         "origins": [server.origin]}), 401)


def test_grant_flow_with_enrollment_tokens_and_a_second_key(umfa, server, authenticator, shop):
    app_id, first_key = shop["application_id"], shop["api_key"]
    device = Device(server, authenticator, app_id)

    # Without an enrollment token: 403 in the error shape.
    response = server.post("/api/umfa/registration/options",
                           {"application_id": app_id, "user_id": "alice", "trace_id": "t-grant"})
    assert_error(response, 403, trace_id="t-grant")

    # The backend asks for one with its API key; the device registers with it.
    grant = server.ok("POST", "/api/umfa/enrollment-tokens", {"application_id": app_id, "user_id": "alice"},
                      status=201, bearer=first_key)
    assert grant["enrollment_token"] and grant["expires_at"], grant
    registered = device.register("alice", enrollment_token=grant["enrollment_token"])

    # Not with the API key of the development application, nor without a key.
    assert_error(server.post("/api/umfa/enrollment-tokens", {"application_id": app_id, "user_id": "bob"},
                             bearer=server.api_key), 401)
    assert_error(server.post("/api/umfa/enrollment-tokens", {"application_id": app_id, "user_id": "bob"}), 401)
    # An enrollment token for alice does not enroll bob.
    other = server.ok("POST", "/api/umfa/enrollment-tokens", {"application_id": app_id, "user_id": "alice"},
                      status=201, bearer=first_key)
    response = server.post("/api/umfa/registration/options", {"application_id": app_id, "user_id": "bob",
                                                              "enrollment_token": other["enrollment_token"]})
    assert response.status_code in (401, 403), response.text

    # A second API key; both keys validate alice's token.
    added = admin(umfa, server, "add-api-key", "--app", app_id)
    assert added.code == 0, added
    second_key = added.json()["api_key"]
    assert second_key and second_key != first_key, added
    logged_in = device.login("alice")
    for key in (first_key, second_key):
        for token in (registered["token"], logged_in["token"]):
            out = server.ok("POST", "/api/umfa/validate-token",
                            {"application_id": app_id, "user_id": "alice", "token": token}, bearer=key)
            assert out["user_id"] == "alice", out
        server.ok("POST", "/api/umfa/enrollment-tokens", {"application_id": app_id, "user_id": "carol"},
                  status=201, bearer=key)
    # Neither key works for the development application.
    assert_error(server.post("/api/umfa/validate-token", {"application_id": server.app_id, "user_id": "alice",
                                                           "token": logged_in["token"]}, bearer=second_key), 401)


def test_show_list_and_update_app(umfa, server, shop):
    app_id = shop["application_id"]
    shown = admin(umfa, server, "show-app", "--app", app_id)
    assert shown.code == 0, shown
    app = shown.json()
    assert app["application_id"] == app_id and app["name"] == "shop", app
    assert "api_key" not in app, "show-app must not reveal an API key"

    listed = admin(umfa, server, "list-apps")
    assert listed.code == 0, listed
    apps = {a["application_id"]: a for a in listed.json()["applications"]}
    assert set(apps) == {server.app_id, app_id}, apps
    assert apps[server.app_id]["enrollment_policy"] == "open", apps
    assert not any("api_key" in a for a in apps.values()), "list-apps must not reveal API keys"

    assert app["user_verification"] != "required", app
    updated = admin(umfa, server, "update-app", "--app", app_id, "--user-verification", "required")
    assert updated.code == 0, updated
    assert updated.json()["user_verification"] == "required", updated
    assert updated.json()["name"] == "shop", "update-app changed a setting it was not given"
    assert admin(umfa, server, "show-app", "--app", app_id).json()["user_verification"] == "required"

    # The new setting reaches the ceremonies.
    grant = server.ok("POST", "/api/umfa/enrollment-tokens", {"application_id": app_id, "user_id": "alice"},
                      status=201, bearer=shop["api_key"])
    options = server.ok("POST", "/api/umfa/registration/options",
                        {"application_id": app_id, "user_id": "alice", "enrollment_token": grant["enrollment_token"]})
    assert options["publicKey"]["authenticatorSelection"]["userVerification"] == "required", options

    unknown = admin(umfa, server, "show-app", "--app", "00000000-0000-4000-8000-000000000000")
    assert unknown.code != 0 and "404" in unknown.stderr, unknown


def test_user_verification_required_refuses_a_device_without_uv(umfa, server, authenticator, shop):
    app_id = shop["application_id"]
    assert admin(umfa, server, "update-app", "--app", app_id, "--user-verification", "required").code == 0
    device = Device(server, authenticator, app_id)
    grant = server.ok("POST", "/api/umfa/enrollment-tokens", {"application_id": app_id, "user_id": "alice"},
                      status=201, bearer=shop["api_key"])
    options = device.registration_options("alice", enrollment_token=grant["enrollment_token"])
    # A device that ignores the requirement (the virtual authenticator would refuse it as asked).
    options["publicKey"]["authenticatorSelection"]["userVerification"] = "preferred"
    created = authenticator.register(options, origin=server.origin, uv=False)
    response = server.post("/api/umfa/registration/verify",
                           {"application_id": app_id, "user_id": "alice", "credential": created.data})
    assert_error(response, 401)
    # With UV it works.
    grant = server.ok("POST", "/api/umfa/enrollment-tokens", {"application_id": app_id, "user_id": "alice"},
                      status=201, bearer=shop["api_key"])
    device.register("alice", uv=True, enrollment_token=grant["enrollment_token"])


def test_update_app_sets_the_token_algorithm_and_the_native_apps(umfa, server, shop):
    """`umfa admin update-app --token-signing-alg / --apple-app-id / --android-app` (docs/contract.md §2,
    §5): the setting reaches the tokens and the well-known documents; a bad value exits non-zero."""
    app_id = shop["application_id"]
    fingerprint = ":".join(f"{b:02X}" for b in range(32))
    updated = admin(umfa, server, "update-app", "--app", app_id, "--token-signing-alg", "EdDSA",
                    "--apple-app-id", "ABCDE12345.com.example.shop",
                    "--android-app", f"com.example.shop={fingerprint}")
    assert updated.code == 0, updated
    settings = updated.json()
    assert settings["token_signing_alg"] == "EdDSA", settings
    assert settings["apple_app_ids"] == ["ABCDE12345.com.example.shop"], settings
    assert settings["android_apps"] == [{"package_name": "com.example.shop",
                                         "sha256_cert_fingerprints": [fingerprint]}], settings

    aasa = server.get("/.well-known/apple-app-site-association")
    assert aasa.status_code == 200 and aasa.headers["Content-Type"].startswith("application/json")
    assert aasa.json()["webcredentials"]["apps"] == ["ABCDE12345.com.example.shop"], aasa.text
    links = server.get("/.well-known/assetlinks.json").json()
    assert links[0]["target"] == {"namespace": "android_app", "package_name": "com.example.shop",
                                  "sha256_cert_fingerprints": [fingerprint]}, links

    refused = admin(umfa, server, "update-app", "--app", app_id, "--token-signing-alg", "HS256")
    assert refused.code != 0 and "token_signing_alg must be RS256, ES256 or EdDSA" in refused.stderr, refused
    assert admin(umfa, server, "show-app", "--app", app_id).json()["token_signing_alg"] == "EdDSA"


def test_update_app_sets_any_setting_by_its_api_name(umfa, server, shop):
    """`umfa admin update-app --set name=value` reaches every setting the admin API has, by its
    wire name, without an option of its own: the value as JSON, or else as a string."""
    app_id = shop["application_id"]
    updated = admin(umfa, server, "update-app", "--app", app_id, "--set", "token_ttl_seconds=600",
                    "--set", "dpop_nonce=required", "--set", 'introspection_clients=[]',
                    "--set", "enforce_credential_protection_policy=true")
    assert updated.code == 0, updated
    settings = updated.json()
    assert settings["token_ttl_seconds"] == 600 and settings["dpop_nonce"] == "required", settings
    assert settings["enforce_credential_protection_policy"] is True, settings
    assert admin(umfa, server, "show-app", "--app", app_id).json()["token_ttl_seconds"] == 600

    unknown = admin(umfa, server, "update-app", "--app", app_id, "--set", "token_lifetime=5")
    assert unknown.code != 0 and "name one of:" in unknown.stderr and "token_ttl_seconds" in unknown.stderr, unknown
    mistyped = admin(umfa, server, "update-app", "--app", app_id, "--set", "token_ttl_seconds=soon")
    assert mistyped.code != 0 and "does not fit" in mistyped.stderr, mistyped
    refused = admin(umfa, server, "update-app", "--app", app_id, "--set", "token_ttl_seconds=5")
    assert refused.code != 0 and "token_ttl_seconds must be 30 to 86400" in refused.stderr, refused
    assert admin(umfa, server, "show-app", "--app", app_id).json()["token_ttl_seconds"] == 600


def test_admin_audit_prints_the_log_as_the_api_has_it_page_after_page(umfa, server, shop, device):
    """`umfa admin audit` (docs/contract.md §8): every event, oldest first, across pages; filters;
    non-zero exit for a bad time and for an unreachable server."""
    device.register("alice")
    device.login("alice")
    for _ in range(3):
        assert admin(umfa, server, "add-api-key", "--app", shop["application_id"]).code == 0
    via_http = server.ok("GET", "/api/admin/audit-events?limit=1000", bearer=ADMIN_TOKEN)["events"]
    assert len(via_http) >= 7, via_http

    paged = admin(umfa, server, "audit", "--since", "1h", "--format", "jsonl", "--page-size", "2")
    assert paged.code == 0, paged
    lines = [json.loads(line) for line in paged.stdout.splitlines()]
    assert lines == via_http
    assert [event["action"] for event in lines if event.get("application_id") == server.app_id][-2:] == [
        "registration.succeeded", "authentication.succeeded"]

    keys = admin(umfa, server, "audit", "--app", shop["application_id"], "--action", "api_key.created",
                 "--format", "json")
    assert keys.code == 0, keys
    created = json.loads(keys.stdout)
    assert len(created) == 4 and {event["actor"] for event in created} == {"admin"}, created

    first_two = admin(umfa, server, "audit", "--limit", "2", "--page-size", "1")
    assert [json.loads(line) for line in first_two.stdout.splitlines()] == via_http[:2]
    assert admin(umfa, server, "audit", "--since", "2026-01-01T00:00:00Z", "--until", "2026-01-02T00:00:00Z").stdout == ""

    bad = admin(umfa, server, "audit", "--since", "yesterday")
    assert bad.code != 0 and "24h" in bad.stderr, bad
    gone = umfa.run_env({"UMFA_ADMIN_TOKEN": ADMIN_TOKEN}, "admin", "audit", "--server", "http://127.0.0.1:9")
    assert gone.code != 0 and "cannot reach" in gone.stderr, gone
