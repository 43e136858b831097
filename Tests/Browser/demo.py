"""Helpers for the browser suite: a headless Chromium with a DevTools virtual authenticator,
the demo page driven as a person would use it, and screenshots of every step."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / ".build" / "browser-screenshots"
DOCS_SCREENSHOT = REPO / "docs" / "demo-signed-in.png"

# Long enough for a loaded 2-core machine; a ceremony normally takes well under a second.
WAIT_SECONDS = 30


def chromium() -> webdriver.Chrome:
    """Headless Chromium and chromedriver from Debian (scripts/browser.sh installs them)."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,1300",
                 "--disable-gpu", "--no-first-run", "--lang=en-US"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(WAIT_SECONDS)
    return driver


class Authenticator:
    """A virtual authenticator of the DevTools WebAuthn domain: CTAP2, internal transport,
    resident keys, with or without user verification, and with or without PRF (`hasPrf`, the
    hmac-secret extension) when `prf` says so."""

    def __init__(self, driver: webdriver.Chrome, user_verification: bool, prf: bool | None = None):
        self.driver = driver
        driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
        options = {
            "protocol": "ctap2",
            "transport": "internal",
            "hasResidentKey": True,
            "hasUserVerification": user_verification,
            "isUserVerified": user_verification,
            "automaticPresenceSimulation": True,
        }
        if prf is not None:
            options["hasPrf"] = prf
        answer = driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": options})
        self.id = answer["authenticatorId"]

    def credentials(self) -> list[dict]:
        return self.driver.execute_cdp_cmd("WebAuthn.getCredentials", {"authenticatorId": self.id})["credentials"]

    def remove(self) -> None:
        self.driver.execute_cdp_cmd("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": self.id})


class Steps:
    """Numbered screenshots of one test, in .build/browser-screenshots/<test>/NN-step.png."""

    def __init__(self, driver: webdriver.Chrome, test_name: str):
        self.driver = driver
        self.folder = SCREENSHOTS / re.sub(r"[^A-Za-z0-9_.-]+", "-", test_name)
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        self.count = 0

    def shot(self, name: str) -> Path:
        self.count += 1
        path = self.folder / f"{self.count:02d}-{name}.png"
        self.driver.save_screenshot(str(path))
        return path


class DemoPage:
    """The demo page at `origin`, used through its visible controls only."""

    def __init__(self, driver: webdriver.Chrome, origin: str, steps: Steps):
        self.driver = driver
        self.origin = origin
        self.steps = steps

    # -- navigation and waiting ----------------------------------------------------------------

    def open(self, app: str | None = None, step: str = "page-opened") -> "DemoPage":
        self.driver.get(self.origin + "/" + (f"?app={app}" if app else ""))
        WebDriverWait(self.driver, WAIT_SECONDS).until(
            lambda d: d.execute_script("return document.body.dataset.busy") == "0")
        self.steps.shot(step)
        return self

    def idle(self) -> None:
        """Waits until the action the last click started is over."""
        WebDriverWait(self.driver, WAIT_SECONDS).until(
            lambda d: d.execute_script("return document.body.dataset.busy") == "0")

    def element(self, element_id: str) -> WebElement:
        return self.driver.find_element(By.ID, element_id)

    def click(self, element_id: str, step: str) -> None:
        self.element(element_id).click()
        self.idle()
        self.steps.shot(step)

    def type(self, element_id: str, text: str) -> None:
        field = self.element(element_id)
        field.clear()
        field.send_keys(text)

    # -- what a person does -----------------------------------------------------------------------

    def sign_up(self, user: str, name: str = "") -> None:
        self.type("signup-user", user)
        self.type("signup-name", name)
        self.steps.shot("sign-up-filled")
        self.click("signup-button", "after-sign-up")

    def sign_in(self, user: str) -> None:
        self.type("signin-user", user)
        self.click("signin-button", "after-sign-in-by-user-id")

    def sign_in_with_passkey(self) -> None:
        self.click("signin-passkey-button", "after-sign-in-with-passkey")

    def sign_out(self) -> None:
        self.click("signout-button", "after-sign-out")

    def validate(self) -> str:
        self.click("validate-button", "after-validate")
        return self.element("validate-result").text

    def delete_passkey(self, index: int = 0) -> None:
        self.passkey_items()[index].find_element(By.CSS_SELECTOR, "button.delete").click()
        self.idle()
        self.steps.shot("after-delete")

    # -- what a person sees --------------------------------------------------------------------

    @property
    def message(self) -> str:
        element = self.element("message")
        return element.text if element.is_displayed() else ""

    @property
    def message_kind(self) -> str:
        return self.element("message").get_attribute("class") or ""

    @property
    def signed_in_user(self) -> str | None:
        return self.element("session-user").text if self.element("session").is_displayed() else None

    @property
    def token(self) -> str:
        return self.element("token").text

    def passkey_items(self) -> list[WebElement]:
        return self.driver.find_elements(By.CSS_SELECTOR, "#passkeys li")

    def json_text(self, element_id: str) -> str:
        return self.element(element_id).text

    def console_errors(self) -> list[str]:
        """Errors the page logged (a CSP violation, a failed load), except the API's answers
        that a test provoked on purpose (a refused sign-in is a 401 the browser reports)."""
        return [entry["message"] for entry in self.driver.get_log("browser")
                if entry["level"] == "SEVERE" and not entry["message"].startswith(self.origin + "/api/")]


def docs_screenshot_wanted() -> bool:
    return os.environ.get("UMFA_UPDATE_DOCS_SCREENSHOT") == "1"
