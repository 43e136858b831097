"""The hosted account page (docs/self-service.md, "The account page") in a real Chromium with a
virtual authenticator: a passkey sign-in, the passkey list with rename and removal, the email
step when the server sends no mail, and the account's deletion; and the WebAuthn Signal API
the page calls, seen in the virtual authenticator (the device forgets a passkey the server no
longer holds, a removed one, and every one of a deleted account)."""

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from demo import WAIT_SECONDS
from passkey_pages import register, wait_text
from support import ADMIN_TOKEN, Server


def open_page(driver, server: Server) -> None:
    driver.get(f"{server.origin}/oidc/{server.app_id}/account")
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.NAME, "sign_in").is_displayed())


def credentials_of(server: Server, user: str) -> list[dict]:
    answer = requests.get(f"{server.base}/api/umfa/users/{user}/credentials",
                          params={"application_id": server.app_id},
                          headers={"Authorization": f"Bearer {server.api_key}"}, timeout=10)
    return answer.json()["credentials"] if answer.status_code == 200 else []


def passkey_items(driver) -> list:
    return driver.find_elements(By.CSS_SELECTOR, "#passkeys li")


def click_twice(driver, locate) -> None:
    """A destructive button asks for a second click."""
    locate().click()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda _: locate().get_attribute("data-armed") == "1"
                                              and locate().is_enabled())
    locate().click()


def test_a_passkey_the_server_no_longer_holds_is_forgotten_by_the_device(provider: Server, driver, authenticator,
                                                                         steps):
    device = authenticator()
    open_page(driver, provider)
    credential_id = register(driver, provider, "gone-user", "Laptop")
    assert len(device.credentials()) == 1
    removed = requests.delete(
        f"{provider.base}/api/umfa/users/gone-user/credentials/{credential_id}",
        params={"application_id": provider.app_id}, headers={"Authorization": f"Bearer {provider.api_key}"},
        timeout=10)
    assert removed.status_code == 200, removed.text

    driver.find_element(By.NAME, "sign_in").click()
    alert = wait_text(driver, "alert", "Authentication failed")
    steps.shot("unknown-passkey")
    assert "reference" in alert, alert
    # signalUnknownCredential: the server answered reason unknown_credential for the browser's choice.
    WebDriverWait(driver, WAIT_SECONDS).until(lambda _: device.credentials() == [])


def test_the_account_page_manages_passkeys_and_deletes_the_account(provider: Server, driver, authenticator, steps):
    user = "ada"
    open_page(driver, provider)
    # Two passkeys on two devices: the laptop's device is then taken away; this browser keeps the phone's.
    laptop = authenticator()
    register(driver, provider, user, "Laptop")
    laptop.remove()
    device = authenticator()
    register(driver, provider, user, "Phone")
    assert len(device.credentials()) == 1

    # Sign in: the list shows both passkeys by name.
    driver.find_element(By.NAME, "sign_in").click()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: len(passkey_items(d)) == 2)
    names = sorted(item.find_element(By.TAG_NAME, "strong").text for item in passkey_items(driver))
    assert names == ["Laptop", "Phone"], names
    steps.shot("signed-in")

    # Rename one (the page asks with a prompt).
    phone = next(i for i in passkey_items(driver) if "Phone" in i.text)
    phone.find_element(By.NAME, "rename_passkey").click()
    prompt = WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.switch_to.alert)
    prompt.send_keys("Old phone")
    prompt.accept()
    wait_text(driver, "status", "Passkey renamed")
    assert sorted(c["device_name"] for c in credentials_of(provider, user)) == ["Laptop", "Old phone"]

    # Remove the laptop's: gone on the server; this device keeps the phone's, which the page's
    # signalAllAcceptedCredentials still lists.
    click_twice(driver, lambda: next(i for i in passkey_items(driver) if "Laptop" in i.text)
                .find_element(By.NAME, "remove_passkey"))
    wait_text(driver, "status", "Passkey removed")
    assert [c["device_name"] for c in credentials_of(provider, user)] == ["Old phone"]
    assert [i.find_element(By.TAG_NAME, "strong").text for i in passkey_items(driver)] == ["Old phone"]
    assert len(device.credentials()) == 1

    # Without a mail server the email step says so (409), and the account stays signed in.
    driver.find_element(By.NAME, "send_email_code").click()
    wait_text(driver, "alert", "This server sends no mail")
    assert driver.find_element(By.ID, "account").is_displayed()

    # Delete the account: the user is gone from the server and the device forgets its passkeys
    # (signalAllAcceptedCredentials with none).
    click_twice(driver, lambda: driver.find_element(By.NAME, "delete_account"))
    wait_text(driver, "deleted", "Your account is deleted")
    steps.shot("deleted")
    assert credentials_of(provider, user) == []
    users = requests.get(f"{provider.base}/api/admin/applications/{provider.app_id}/users",
                         headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10).json()
    assert user not in [u["user_id"] for u in users["users"]], users
    WebDriverWait(driver, WAIT_SECONDS).until(lambda _: device.credentials() == [])
