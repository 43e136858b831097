"""What the tests of the hosted passkey pages share: a passkey registered in the browser on the
page's origin, and waiting for a message on the page."""

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from demo import WAIT_SECONDS
from support import Server

REGISTER = """
const [applicationId, userId, enrollmentToken, deviceName, done] = arguments;
(async () => {
  const post = (path, body) => fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                            body: JSON.stringify(body)}).then((r) => r.json());
  const options = await post("/api/umfa/registration/options",
                             {application_id: applicationId, user_id: userId, enrollment_token: enrollmentToken});
  const created = await navigator.credentials.create({publicKey: UMFAWebAuthn.creationOptions(options.publicKey)});
  const verified = await post("/api/umfa/registration/verify", {application_id: applicationId, user_id: userId,
      credential: UMFAWebAuthn.credentialJSON(created), device_name: deviceName});
  done(verified.credential_id || JSON.stringify(verified));
})().catch((error) => done("failed: " + error));
"""


def register(driver, server: Server, user: str, name: str) -> str:
    """A passkey for `user` made in the browser, on the page's origin, under an enrollment token."""
    token = server.ok("POST", "/api/umfa/enrollment-tokens", {"application_id": server.app_id, "user_id": user},
                      status=201, bearer=server.api_key)["enrollment_token"]
    credential_id = driver.execute_async_script(REGISTER, server.app_id, user, token, name)
    assert not credential_id.startswith(("failed", "{")), credential_id
    return credential_id


def wait_text(driver, element_id: str, needle: str) -> str:
    return WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: (e := d.find_element(By.ID, element_id)).is_displayed() and needle in e.text and e.text)
