"""The demo page and PRF (WebAuthn L3 §10.1.4): every sign-in asks for the PRF output
on a fixed salt, and the page shows a fingerprint of it (first 8 bytes of its SHA-256), which
is the same at every sign-in with one passkey. Chromium's virtual authenticator with `hasPrf`
(CTAP 2.1 hmac-secret) computes the outputs; without it the page says PRF is not available."""

import base64
import hashlib
import json
import re

from test_fallback import REMOVE_NATIVE_JSON

FINGERPRINT = re.compile(r"^[0-9a-f]{2}( [0-9a-f]{2}){7}$")

# Keeps the bodies the page posts to authentication/verify, to read what it sent.
RECORD_VERIFY = """
window.umfaSent = [];
const originalFetch = window.fetch;
window.fetch = (path, init) => {
  if (String(path).endsWith("/authentication/verify")) window.umfaSent.push(init.body);
  return originalFetch(path, init);
};
"""


def sent_prf_fingerprint(driver) -> str:
    """The fingerprint of the PRF output the page's last verify request carried as base64url,
    computed here (SHA-256, first 8 bytes), independently of the page."""
    body = json.loads(driver.execute_script("return window.umfaSent[window.umfaSent.length - 1]"))
    encoded = body["credential"]["clientExtensionResults"]["prf"]["results"]["first"]
    output = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    assert len(output) == 32, encoded
    return " ".join(f"{b:02x}" for b in hashlib.sha256(output).digest()[:8])


def fingerprint(page) -> tuple[str, str]:
    line = page.element("prf-fingerprint")
    return line.get_attribute("data-prf"), line.text


def test_demo_page_shows_the_same_prf_fingerprint_at_every_sign_in(page, driver, authenticator, server):
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_VERIFY})
    authenticator(user_verification=True, prf=True)
    page.open()
    page.sign_up("dana")
    assert page.signed_in_user == "dana", page.message
    # Registration asks for no PRF output: the page says where it will appear.
    assert fingerprint(page)[0] == "pending", fingerprint(page)

    page.sign_out()
    page.sign_in("dana")
    assert page.signed_in_user == "dana", page.message
    kind, first = fingerprint(page)
    assert kind == "available" and FINGERPRINT.match(first), (kind, first)
    assert sent_prf_fingerprint(driver) == first

    page.sign_out()
    page.sign_in_with_passkey()
    assert page.signed_in_user == "dana", page.message
    assert fingerprint(page) == ("available", first)
    assert sent_prf_fingerprint(driver) == first

    # The server accepted responses carrying prf.results, and keeps of PRF only prf.enabled
    # (the registration's `prf: {}`).
    listed = server.ok("GET", f"/api/umfa/users/dana/credentials?application_id={server.app_id}",
                       bearer=server.api_key)["credentials"]
    assert [c["prf_enabled"] for c in listed] == [True] and "results" not in str(listed), listed
    assert page.console_errors() == []


def test_another_passkey_gives_another_fingerprint(page, authenticator):
    first = authenticator(user_verification=True, prf=True)
    page.open()
    page.sign_up("eli")
    page.sign_out()
    page.sign_in("eli")
    _, one = fingerprint(page)
    page.sign_out()
    first.remove()
    authenticator(user_verification=True, prf=True)
    page.sign_up("fay")
    page.sign_out()
    page.sign_in("fay")
    kind, other = fingerprint(page)
    assert kind == "available" and FINGERPRINT.match(other) and other != one, (one, other)


def test_demo_page_says_prf_is_not_available_without_it(page, authenticator):
    authenticator(user_verification=True, prf=False)
    page.open()
    page.sign_up("gus")
    page.sign_out()
    page.sign_in("gus")
    assert page.signed_in_user == "gus", page.message
    kind, text = fingerprint(page)
    assert kind == "unavailable" and "PRF is not available" in text, (kind, text)
    page.sign_out()
    page.sign_in_with_passkey()
    assert fingerprint(page)[0] == "unavailable"


def test_fallback_encoder_carries_prf_inputs_and_outputs(page, driver, authenticator):
    # Without the browser's JSON parsers and toJSON(), webauthn-json.js decodes the PRF salt and
    # encodes the outputs itself.
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": REMOVE_NATIVE_JSON + RECORD_VERIFY})
    authenticator(user_verification=True, prf=True)
    page.open()
    assert driver.execute_script("return document.documentElement.dataset.webauthnJson") == "fallback"
    page.sign_up("hal")
    page.sign_out()
    page.sign_in("hal")
    kind, first = fingerprint(page)
    assert kind == "available" and FINGERPRINT.match(first), (kind, first)
    assert sent_prf_fingerprint(driver) == first
    page.sign_out()
    page.sign_in_with_passkey()
    assert fingerprint(page) == ("available", first)
    assert sent_prf_fingerprint(driver) == first
