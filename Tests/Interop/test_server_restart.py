"""Live server 5: a restart on the same data dir keeps everything (users, credentials, signing key,
applications, API keys, the admin token) and creates nothing twice."""

from support import ADMIN_BANNER, ADMIN_TOKEN, APP_BANNER, KEY_BANNER, Device


def kids(server):
    keys = server.get("/.well-known/jwks.json").json()["keys"]
    return {k["kid"] for k in keys}


def test_restart_keeps_state(serve, authenticator, tmp_path):
    data = tmp_path / "data"
    first = serve(data_dir=data, admin_token=None)
    admin_token, app_id, api_key = first.admin_token, first.app_id, first.api_key
    token = Device(first, authenticator, app_id).register("alice")["token"]
    first_kids = kids(first)
    assert first_kids, "JWKS is empty"
    first.stop()

    # The same data dir and port (the development application's origin names the port).
    second = serve(data_dir=data, admin_token=None, port=first.port)
    # Nothing printed the second time: no new admin token, no second development application.
    assert not ADMIN_BANNER.search(second.stdout), second.logs()
    assert not APP_BANNER.search(second.stdout) and not KEY_BANNER.search(second.stdout), second.logs()

    # The old token validates with the old API key; the signing key is the same.
    out = second.ok("POST", "/api/umfa/validate-token",
                    {"application_id": app_id, "user_id": "alice", "token": token}, bearer=api_key)
    assert out["user_id"] == "alice", out
    assert kids(second) == first_kids

    # The admin token from the first start still works, and there is one development application.
    apps = second.ok("GET", "/api/admin/applications", bearer=admin_token)["applications"]
    assert [a["application_id"] for a in apps] == [app_id], apps

    # alice logs in again with the same device, and the new token validates too.
    out = Device(second, authenticator, app_id).login("alice")
    second.ok("POST", "/api/umfa/validate-token",
              {"application_id": app_id, "user_id": "alice", "token": out["token"]}, bearer=api_key)
    second.stop()

    # A third start with UMFA_ADMIN_TOKEN set: the given token works, and still nothing is created.
    third = serve(data_dir=data, port=first.port)
    assert not APP_BANNER.search(third.stdout) and not ADMIN_BANNER.search(third.stdout), third.logs()
    apps = third.ok("GET", "/api/admin/applications", bearer=ADMIN_TOKEN)["applications"]
    assert [a["application_id"] for a in apps] == [app_id], apps
