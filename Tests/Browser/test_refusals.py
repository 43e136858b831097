"""What the page says when a passkey is refused: by the browser for an application that
requires user verification, and by the server for a page whose origin the application does
not list. Both applications are made through the admin API and named with ?app=."""

from demo import DemoPage
from support import ADMIN_TOKEN, Server


def credentials(server: Server, app: dict, user: str) -> list[dict]:
    return server.ok("GET", f"/api/umfa/users/{user}/credentials?application_id={app['application_id']}",
                     bearer=app["api_key"])["credentials"]


def test_user_verification_required_refuses_a_device_without_it(page, server, authenticator, create_app):
    app = create_app(user_verification="required")
    device = authenticator(user_verification=False)
    page.open(app["application_id"])
    assert "(named in the address)" in page.element("application").text

    page.sign_up("dave")
    assert page.signed_in_user is None
    assert "requires your device to verify that it is you" in page.message, page.message
    assert "error" in page.message_kind
    assert device.credentials() == []
    assert credentials(server, app, "dave") == []

    # The same person with a device that verifies them is let in: the refusal was about verification.
    device.remove()
    authenticator(user_verification=True)
    page.sign_up("dave")
    assert page.signed_in_user == "dave", page.message
    assert len(credentials(server, app, "dave")) == 1
    # Any application's page lists the user's passkeys and validates the token (self-service routes).
    assert len(page.passkey_items()) == 1 and page.element("passkeys-note").text == ""
    assert page.validate().startswith("Valid:")


def test_origin_not_in_the_application_list_is_refused_by_the_server(page, server, authenticator, create_app):
    app = create_app(origins=["https://shop.example", "http://localhost:1"])
    device = authenticator(user_verification=True)
    page.open(app["application_id"])

    page.sign_up("erin")
    assert page.signed_in_user is None
    assert "does not accept passkeys from this page's address" in page.message, page.message
    assert server.origin in page.message
    # The server says only that it failed (docs/contract.md §4); the reason is in its log, by trace id.
    assert "Registration failed" in page.message, page.message
    trace_id = page.message.split("trace id ")[-1].rstrip(")").strip()
    assert any("is not allowed" in line and trace_id in line for line in server.stderr.splitlines()), server.logs()
    # The browser went ahead (rp_id localhost fits the page) and the server refused what it made.
    assert len(device.credentials()) == 1
    assert credentials(server, app, "erin") == []


def test_server_without_development_application(umfa_bin, tmp_path, driver, steps, authenticator):
    """With --no-default-app the page names no application (and there are no demo-only routes);
    an application named with ?app= works for sign-up and lists the user's passkeys."""
    server = Server(umfa_bin, tmp_path, tmp_path / "data", {"UMFA_ADMIN_TOKEN": ADMIN_TOKEN},
                    args=("--no-default-app",)).start()
    try:
        page = DemoPage(driver, server.origin, steps)
        page.open()
        assert "no development application" in page.message, page.message
        assert not page.element("signup-button").is_enabled()
        assert server.post("/api/demo/validate-token", {"user_id": "x", "token": "y"}).status_code == 404

        app = server.ok("POST", "/api/admin/applications", {
            "name": "Named", "rp_id": "localhost", "origins": [server.origin], "enrollment_policy": "open",
        }, status=201, bearer=ADMIN_TOKEN)
        authenticator(True)
        page.open(app["application_id"])
        page.sign_up("frank")
        assert page.signed_in_user == "frank", page.message
        # Any application's page lists the user's passkeys (self-service routes, login token).
        assert len(page.passkey_items()) == 1 and page.element("passkeys-note").text == ""
    finally:
        server.stop()


def test_taken_user_id_and_second_passkey_on_the_same_device(page, authenticator):
    """Under the open policy a user id with a passkey cannot be claimed again from another
    device, and the same device cannot add a second passkey for the same account."""
    first = authenticator(True)
    page.open()
    page.sign_up("ivan", "Ivan")
    assert page.signed_in_user == "ivan", page.message
    page.click("add-passkey-button", "add-passkey-same-device")
    assert "already has a passkey for this account" in page.message, page.message
    assert len(first.credentials()) == 1
    page.sign_out()

    first.remove()
    authenticator(True)
    page.sign_up("ivan", "Someone else")
    assert page.signed_in_user is None
    assert "\u201civan\u201d already has a passkey. Sign in with it first" in page.message, page.message
