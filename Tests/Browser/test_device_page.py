"""The hosted device page of the device grant (RFC 8628, docs/device-grant.md) in a real Chromium
with a virtual authenticator: a device asks for codes, the person opens verification_uri_complete
(the code filled in and drawn as a QR code), sees the client and scopes, signs in with a passkey
and allows; the device's poll then gets the person's tokens. A wrong code is refused on the page,
and a denial reaches the device as access_denied."""

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from demo import WAIT_SECONDS
from passkey_pages import register, wait_text
from support import ADMIN_TOKEN, Server

GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def device_codes(server: Server) -> tuple[dict, dict]:
    """A public device client, and the codes it got."""
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Living-room TV", "grant_types": [GRANT], "response_types": [],
                        "token_endpoint_auth_method": "none", "scope": "openid profile"},
                       bearer=ADMIN_TOKEN, status=201)
    codes = requests.post(f"{server.origin}/oidc/{server.app_id}/device_authorization",
                          data={"client_id": client["client_id"]}, timeout=10)
    assert codes.status_code == 200, codes.text
    return client, codes.json()


def poll(server: Server, client: dict, codes: dict) -> requests.Response:
    return requests.post(f"{server.origin}/oidc/{server.app_id}/token", timeout=10,
                         data={"grant_type": GRANT, "device_code": codes["device_code"],
                               "client_id": client["client_id"]})


def test_the_person_allows_a_device_from_the_page_with_a_passkey(provider: Server, driver, authenticator, steps):
    authenticator()
    client, codes = device_codes(provider)
    driver.get(codes["verification_uri_complete"])
    code_input = WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.NAME, "user_code"))
    assert code_input.get_attribute("value") == codes["user_code"]
    qr = driver.find_element(By.ID, "qr_code")
    assert qr.is_displayed() and qr.get_attribute("src").startswith("data:image/png;base64,")
    register(driver, provider, "tv.owner", "Phone")
    steps.shot("code-filled-in")

    driver.find_element(By.NAME, "continue").click()
    wait_text(driver, "request", "Living-room TV")
    assert driver.find_element(By.ID, "shown_code").text == codes["user_code"]
    assert driver.find_element(By.ID, "scopes").text == "openid, profile"
    assert not driver.find_element(By.ID, "self_registered").is_displayed()
    driver.find_element(By.NAME, "sign_in").click()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.NAME, "approve").is_displayed())
    steps.shot("signed-in")
    driver.find_element(By.NAME, "approve").click()
    wait_text(driver, "done", "Your device is signed in")

    tokens = poll(provider, client, codes)
    assert tokens.status_code == 200, tokens.text
    assert tokens.json()["scope"] == "openid profile" and tokens.json()["id_token"]


def test_a_wrong_code_is_refused_and_a_denial_reaches_the_device(provider: Server, driver, authenticator, steps):
    authenticator()
    client, codes = device_codes(provider)
    driver.get(codes["verification_uri"])
    code_input = WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.NAME, "user_code"))
    assert not driver.find_element(By.ID, "qr").is_displayed()
    register(driver, provider, "tv.owner", "Phone")
    wrong = "BCDF-GHJK" if codes["user_code"] != "BCDF-GHJK" else "BCDF-GHJL"
    code_input.send_keys(wrong)
    driver.find_element(By.NAME, "continue").click()
    wait_text(driver, "alert", "No device waits for this code")
    steps.shot("wrong-code")

    code_input.clear()
    code_input.send_keys(codes["user_code"].lower().replace("-", ""))
    driver.find_element(By.NAME, "continue").click()
    wait_text(driver, "request", "Living-room TV")
    driver.find_element(By.NAME, "sign_in").click()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.NAME, "deny").is_displayed())
    driver.find_element(By.NAME, "deny").click()
    wait_text(driver, "done", "You denied the device")
    denied = poll(provider, client, codes)
    assert denied.status_code == 400 and denied.json()["error"] == "access_denied", denied.text
