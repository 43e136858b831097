"""The admin console (docs/contract.md §8) in a real Chromium with a virtual authenticator: the first
operator passkey enrolled with the admin token, sign-out and passkey sign-in, an application
created, an API key issued and revoked (the revoked key then gets 401 from validate-token), a
user found and their passkey deleted, and the audit log showing what those actions did; on a
desktop window and on a phone-sized one. UMFA_UPDATE_DOCS_SCREENSHOT=1 rewrites the README's
screenshots in docs/console-*.png."""

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from demo import REPO, WAIT_SECONDS, DemoPage, docs_screenshot_wanted
from support import ADMIN_TOKEN, JsonWriter, Umfa, VirtualAuthenticator

USER = "carol@example.com"


class Console(DemoPage):
    """The console at `<origin>/admin`, used through its visible controls only (waiting,
    clicking and typing as on the demo page)."""

    def open(self, fragment: str = "") -> None:
        self.driver.get(self.origin + "/admin" + fragment)
        self.idle()

    def go(self, fragment: str) -> None:
        self.driver.execute_script("location.hash = arguments[0]", fragment)
        WebDriverWait(self.driver, WAIT_SECONDS).until(
            lambda d: d.execute_script("return document.body.dataset.busy") == "1"
            or d.find_element(By.ID, "view").is_displayed())
        self.idle()

    def confirm(self, button) -> None:
        """A destructive button: two clicks."""
        button.click()
        button.click()
        self.idle()

    def rows(self, table_id: str) -> list:
        return self.driver.find_elements(By.CSS_SELECTOR, f"#{table_id} tbody tr")

    @property
    def signed_in(self) -> bool:
        return self.element("sign_out").is_displayed() and not self.element("signin_view").is_displayed()

    def document(self, name: str) -> None:
        """A screenshot for the README, when asked for."""
        if docs_screenshot_wanted():
            self.driver.save_screenshot(str(REPO / "docs" / f"console-{name}.png"))

    def console_errors(self) -> list[str]:
        return [entry["message"] for entry in self.driver.get_log("browser")
                if entry["level"] == "SEVERE" and "/admin/session" not in entry["message"]
                and "/api/" not in entry["message"]]


def validate_status(server, app_id: str, api_key: str) -> tuple[int, str]:
    answer = requests.post(server.base + "/api/umfa/validate-token", timeout=10,
                           headers={"Authorization": "Bearer " + api_key},
                           json={"application_id": app_id, "user_id": "nobody", "token": "eyJ.not.atoken"})
    return answer.status_code, answer.json().get("message", "")


def test_console_operator_journey(driver, server, steps, authenticator, page):
    operator = authenticator(True)
    console = Console(driver, server.origin, steps)
    console.open()
    steps.shot("sign-in")
    assert console.element("signin_view").is_displayed() and not console.signed_in
    # Page conventions (docs/contract.md §5): inputs named after what they carry, actions as named buttons.
    assert console.element("admin_token").get_attribute("name") == "admin_token"
    for name in ("sign_in", "enroll_passkey", "sign_out"):
        assert driver.find_element(By.CSS_SELECTOR, f"button[name={name}]").get_attribute("id") == name

    # A wrong admin token enrolls nothing.
    console.type("admin_token", "umfa-wrong-token")
    console.click("enroll_passkey", "wrong-token")
    assert "invalid admin token" in console.message and not console.signed_in
    assert operator.credentials() == []

    # The first passkey, with the admin token; the token leaves the field.
    console.type("admin_token", ADMIN_TOKEN)
    console.type("passkey_name", "Browser test key")
    console.click("enroll_passkey", "enrolled")
    assert console.signed_in, console.message
    assert console.element("admin_token").get_attribute("value") == ""
    assert "Browser test key" in console.element("operator").text
    on_device = operator.credentials()
    assert len(on_device) == 1 and on_device[0]["rpId"] == "localhost" and on_device[0]["isResidentCredential"]
    cookie = driver.get_cookie("umfa_console")
    assert cookie and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert driver.execute_script("return document.cookie") == "", "the page cannot read the session"

    # Sign out, then in with the passkey alone.
    console.click("sign_out", "signed-out")
    assert not console.signed_in and console.message == "Signed out."
    console.click("sign_in", "signed-in-with-passkey")
    assert console.signed_in, console.message
    console.document("sign-in")

    # An application, created on the page.
    console.go("#applications")
    console.type("new_app_name", "Console shop")
    console.type("new_app_rp_id", "localhost")
    console.type("new_app_origins", server.origin)
    console.click("create_app", "application-created")
    assert "Console shop created" in console.message, console.message
    app_id = driver.execute_script("return location.hash").split("/")[1]
    first_key = console.element("new_api_key").text
    assert first_key.startswith("umfa_ak_")
    console.document("application")

    # A setting changed on the page is the application's setting.
    assert console.element("setting_token_ttl_seconds").get_attribute("name") == "token_ttl_seconds"
    unnamed = driver.execute_script(
        "return [...document.querySelectorAll('#view input, #view select, #view textarea, #view button')]"
        ".filter(e => !e.name).map(e => e.outerHTML)")
    assert unnamed == [], unnamed
    console.type("setting_token_ttl_seconds", "120")
    Select(console.element("setting_token_signing_alg")).select_by_value("ES256")
    console.click("save_settings", "settings-saved")
    assert console.message == "Settings saved: token_ttl_seconds, token_signing_alg.", console.message
    shown = server.ok("GET", f"/api/admin/applications/{app_id}", bearer=ADMIN_TOKEN)
    assert shown["token_ttl_seconds"] == 120 and shown["token_signing_alg"] == "ES256", shown
    assert console.element("setting_token_ttl_seconds").get_attribute("value") == "120"

    # A webhook URL: its secret is shown once, and a rotation shows a new one.
    console.type("setting_webhook_url", "http://127.0.0.1:9/umfa-hook")
    console.click("save_settings", "webhook-set")
    assert console.message == "Settings saved: webhook_url.", console.message
    first_secret = console.element("new_webhook_secret").text
    assert first_secret.startswith("umfa_whs_")
    assert server.ok("GET", f"/api/admin/applications/{app_id}", bearer=ADMIN_TOKEN)["webhook_url"] == \
        "http://127.0.0.1:9/umfa-hook"
    console.confirm(driver.find_element(By.CSS_SELECTOR, "button.rotate_webhook_secret"))
    assert "Webhook secret rotated" in console.message, console.message
    rotated = console.element("new_webhook_secret").text
    assert rotated.startswith("umfa_whs_") and rotated != first_secret

    # A second API key: it works until it is revoked, then validate-token says 401.
    console.click("add_api_key", "api-key-issued")
    second_key = console.element("new_api_key").text
    assert second_key.startswith("umfa_ak_") and second_key != first_key
    status, message = validate_status(server, app_id, second_key)
    assert "API key" not in message, (status, message)
    key_rows = console.rows("api_keys_table")
    assert len(key_rows) == 2
    second_id = console.message.split()[2]
    row = next(r for r in key_rows if second_id in r.text)
    console.confirm(row.find_element(By.CSS_SELECTOR, "button.revoke"))
    steps.shot("api-key-revoked")
    assert f"API key {second_id} revoked" in console.message
    assert len(console.rows("api_keys_table")) == 1
    status, message = validate_status(server, app_id, second_key)
    assert status == 401 and "API key" in message, (status, message)
    assert "API key" not in validate_status(server, app_id, first_key)[1], "the first key still works"

    # A user signs up on the demo page (the development application) with another authenticator.
    operator.remove()
    authenticator(True)
    page.open()
    page.sign_up(USER, "Carol Example")
    assert page.signed_in_user == USER, page.message

    # The operator finds the user and deletes the passkey.
    console.open("#users")
    assert console.signed_in, "the session survived the visit elsewhere"
    Select(console.element("users_app")).select_by_value(server.app_id)
    console.type("user_query", USER)
    console.click("find_user", "user-found")
    users = console.rows("users_table")
    assert len(users) == 1 and USER in users[0].text, [u.text for u in users]
    users[0].find_element(By.TAG_NAME, "a").click()
    console.idle()
    steps.shot("user")
    console.document("user")
    console.click("enroll_device", "enrollment-qr")
    qr = console.element("enrollment_qr")
    assert driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", qr) > 100
    assert console.element("enrollment_link").get_attribute("href").startswith(server.origin + "/open?")
    credentials = console.rows("credentials_table")
    assert len(credentials) == 1
    console.confirm(credentials[0].find_element(By.CSS_SELECTOR, "button.delete"))
    steps.shot("passkey-deleted")
    assert console.message == "Passkey deleted." and console.rows("credentials_table") == []
    stored = server.ok("GET", f"/api/umfa/users/{USER}/credentials?application_id={server.app_id}",
                       bearer=server.api_key)["credentials"]
    assert stored == []

    # The audit log shows what the operator did, in order.
    console.go("#audit")
    steps.shot("audit")
    console.document("audit")
    actions = [row.find_elements(By.TAG_NAME, "td")[1].text for row in console.rows("audit_table")]
    wanted = ["admin.passkey_enrolled", "admin.signed_in", "admin.signed_out", "admin.signed_in",
              "application.created", "api_key.created", "api_key.created", "api_key.revoked",
              "registration.succeeded", "credential.deleted"]
    seen = [action for action in actions if action in wanted]
    assert seen == wanted, actions

    console.go("#signing-keys")
    steps.shot("signing-keys")
    console.document("signing-keys")
    assert len(console.rows("signing_keys_table")) >= 1

    # A phone-sized screen: nothing wider than the window.
    driver.set_window_size(390, 844)
    console.go("#applications")
    steps.shot("phone")
    console.document("phone")
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    assert console.console_errors() == [], "no CSP violation, no failed load"


def test_console_passkeys_page(driver, server, steps, authenticator, umfa_bin, tmp_path):
    """Console passkeys (docs/contract.md §8): the console lists its operator passkeys and sessions,
    ends a session, removes a passkey (ending its sessions), and signs out the operator who removes
    their own."""
    # Another operator's passkey, enrolled with the admin token from outside the browser.
    other = VirtualAuthenticator(Umfa(umfa_bin, tmp_path), JsonWriter(tmp_path), tmp_path / "other-operator")
    options = server.ok("POST", "/admin/session/enroll-options", {"admin_token": ADMIN_TOKEN})
    made = other.register(options, origin=server.origin, uv=True)
    enrolled = requests.post(server.base + "/admin/session/enroll", timeout=10, json={
        "admin_token": ADMIN_TOKEN, "credential": made.data, "name": "Other operator"})
    assert enrolled.status_code == 200, enrolled.text
    other_cookie = enrolled.cookies.get("umfa_console")
    other_csrf = enrolled.json()["csrf_token"]

    def other_session_status() -> int:
        return requests.get(server.base + "/api/admin/applications", timeout=10, headers={
            "Cookie": f"umfa_console={other_cookie}", "X-CSRF-Token": other_csrf}).status_code

    assert other_session_status() == 200

    device = authenticator(True)
    console = Console(driver, server.origin, steps)
    console.open()
    console.type("admin_token", ADMIN_TOKEN)
    console.type("passkey_name", "Browser key")
    console.click("enroll_passkey", "enrolled")
    assert console.signed_in, console.message

    console.go("#console")
    steps.shot("console-passkeys")
    names = [row.find_elements(By.TAG_NAME, "td")[0].text for row in console.rows("console_credentials_table")]
    assert names == ["Other operator", "Browser key"], names
    sessions = [row.find_elements(By.TAG_NAME, "td")[0].text for row in console.rows("console_sessions_table")]
    assert sessions == ["Other operator", "Browser key (this session)"], sessions
    unnamed = driver.execute_script(
        "return [...document.querySelectorAll('#view button')].filter(e => !e.name).map(e => e.outerHTML)")
    assert unnamed == [], unnamed

    # End the other operator's session: only that one.
    first_session = console.rows("console_sessions_table")[0]
    console.confirm(first_session.find_element(By.CSS_SELECTOR, "button.end_console_session"))
    assert console.message == "Session ended.", console.message
    assert other_session_status() == 401 and console.signed_in
    assert len(console.rows("console_sessions_table")) == 1

    # Remove the other operator's passkey, then one's own: that signs this page out.
    console.confirm(
        console.rows("console_credentials_table")[0].find_element(By.CSS_SELECTOR, "button.remove_console_credential"))
    assert console.message == "Passkey Other operator removed.", console.message
    console.confirm(
        console.rows("console_credentials_table")[0].find_element(By.CSS_SELECTOR, "button.remove_console_credential"))
    steps.shot("own-passkey-removed")
    assert not console.signed_in
    assert "This session has ended" in console.message, console.message
    assert server.ok("GET", "/api/admin/console/credentials", bearer=ADMIN_TOKEN)["credentials"] == []
    # The page told this device to forget the removed passkey (WebAuthn Signal API).
    WebDriverWait(driver, WAIT_SECONDS).until(lambda _: device.credentials() == [])
    assert console.console_errors() == [], "no CSP violation, no failed load"
