"""A person's whole passkey journey on the demo page in a real Chromium, with a virtual
authenticator with and without user verification: sign up, sign out, sign in by user id, sign
in with a discoverable credential, rename and validate through the self-service routes, delete
the passkey (the WebAuthn Signal API makes the device forget it too), and be refused afterwards. The token the page shows is checked independently with PyJWT against the JWKS."""

import json

import jwt
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from demo import DOCS_SCREENSHOT, docs_screenshot_wanted
from support import Server

USER = "alice@example.com"


def credentials_of(server: Server, user: str) -> list[dict]:
    """What the server holds for `user` of the development application (API key route)."""
    return server.ok("GET", f"/api/umfa/users/{user}/credentials?application_id={server.app_id}",
                     bearer=server.api_key)["credentials"]


def check_token_view(page, server: Server) -> dict:
    """The page shows the token, its decoded header and claims, and the token is genuine."""
    token = page.token
    header = json.loads(page.json_text("token-header"))
    claims = json.loads(page.json_text("token-claims"))
    assert header["alg"] == "RS256" and header["typ"] == "JWT" and header["kid"], header
    assert claims["user_id"] == USER and claims["application_id"] == server.app_id, claims
    assert "valid until" in page.element("token-times").text
    signing_key = jwt.PyJWKClient(server.base + "/.well-known/jwks.json").get_signing_key_from_jwt(token)
    verified = jwt.decode(token, signing_key.key, algorithms=["RS256"], audience=server.app_id,
                          issuer="UMFA::Authenticator")
    assert verified == claims, "the page shows exactly the signed claims"
    assert verified["amr"][:2] == ["swk", "user"] and verified["sub"] == "UMFA_login", verified
    return verified


@pytest.mark.parametrize("user_verification", [True, False], ids=["uv", "no-uv"])
def test_passkey_journey(page, server, authenticator, user_verification):
    device = authenticator(user_verification)
    page.open()
    assert f"Development application {server.app_id}" in page.element("application").text
    assert page.driver.execute_script("return document.documentElement.dataset.webauthnJson") == "native"

    # Sign up: a discoverable passkey on the device, a credential on the server, a token on the page.
    page.sign_up(USER, "Alice Example")
    assert page.signed_in_user == USER, page.message
    assert "Passkey created" in page.message
    on_device = device.credentials()
    assert len(on_device) == 1 and on_device[0]["rpId"] == "localhost"
    if user_verification:
        assert on_device[0]["isResidentCredential"], "a discoverable passkey"
    stored = credentials_of(server, USER)
    assert [c["credential_id"] for c in stored] == [page.passkey_items()[0].get_attribute("data-credential-id")]
    assert "last used never" in page.passkey_items()[0].text
    check_token_view(page, server)

    # Sign out, then sign in by user id.
    page.sign_out()
    assert page.signed_in_user is None and "signed out" in page.message
    page.sign_in(USER)
    assert page.signed_in_user == USER, page.message
    assert "by user id" in page.element("session-how").text
    assert "last used never" not in page.passkey_items()[0].text
    check_token_view(page, server)

    # Sign out, then sign in with the passkey the device offers, without typing a user id.
    # Chromium offers discoverable credentials only from an authenticator that can verify the
    # user; without that, the page says the device has no passkey to offer.
    page.sign_out()
    page.sign_in_with_passkey()
    if user_verification:
        assert page.signed_in_user == USER, page.message
        assert "no user id typed" in page.element("session-how").text
    else:
        assert page.signed_in_user is None
        assert "this device has no passkey for this application" in page.message, page.message
        page.sign_in(USER)
        assert page.signed_in_user == USER, page.message

    # Rename the passkey on the page: the server keeps the name.
    item = page.passkey_items()[0]
    item.find_element(By.CSS_SELECTOR, "button.rename").click()
    field = page.passkey_items()[0].find_element(By.NAME, "name")
    field.clear()
    field.send_keys("Test laptop")
    page.passkey_items()[0].find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    page.idle()
    assert "Passkey renamed" in page.message and "Test laptop" in page.passkey_items()[0].text, page.message
    assert [c["device_name"] for c in credentials_of(server, USER)] == ["Test laptop"]

    # Validate: the self-service route accepts the token.
    result = page.validate()
    assert result.startswith("Valid:") and USER in result, result
    if user_verification and docs_screenshot_wanted():
        page.driver.set_window_size(1000, 1750)
        page.driver.save_screenshot(str(DOCS_SCREENSHOT))
        page.driver.set_window_size(1000, 1300)

    # Delete the passkey: gone from the page and the server, and sign-in is refused afterwards.
    page.delete_passkey(0)
    assert page.passkey_items() == [] and "Passkey deleted" in page.message
    assert credentials_of(server, USER) == []
    # The page told the device through the WebAuthn Signal API: it forgot the passkey too.
    assert device.credentials() == [], "signalUnknownCredential / signalAllAcceptedCredentials removed it"
    page.sign_out()
    if user_verification:
        page.sign_in_with_passkey()
        assert page.signed_in_user is None
        assert "this device has no passkey for this application" in page.message, page.message
    page.sign_in(USER)
    assert page.signed_in_user is None
    assert "not signed in" in page.message and USER in page.message, page.message
    assert page.console_errors() == [], "the page logged no errors (no CSP violation, no failed load)"


def test_page_reads_well_on_a_phone_and_loads_only_from_its_server(page, server, authenticator, driver):
    authenticator(True)
    driver.set_window_size(390, 844)
    page.open(step="phone-opened")
    page.sign_up("bob", "Bob")
    assert page.signed_in_user == "bob", page.message
    width = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"no sideways scrolling on a phone-sized screen: {width}"
    for element_id in ("validate-button", "signout-button", "token"):
        box = page.element(element_id).rect
        assert box["x"] >= 0 and box["x"] + box["width"] <= width[1], (element_id, box)
    resources = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert resources and all(name.startswith(server.origin + "/") for name in resources), resources
    assert page.console_errors() == []


def test_autofill_signs_in_when_the_page_loads(page, authenticator, driver):
    """Conditional mediation: the page asks for a passkey as it loads, and the browser's autofill
    (here the virtual authenticator, which answers without a person's pick) signs the user in."""
    authenticator(True)
    page.open()
    assert driver.execute_script("return PublicKeyCredential.isConditionalMediationAvailable()") is True
    assert page.element("autofill-note").is_displayed()
    page.sign_up("heidi", "Heidi")
    assert page.signed_in_user == "heidi", page.message
    page.sign_out()
    assert page.signed_in_user is None
    page.open(step="reopened")
    WebDriverWait(driver, 30).until(lambda d: page.signed_in_user == "heidi")
    page.steps.shot("signed-in-from-autofill")
    assert "from autofill" in page.element("session-how").text
