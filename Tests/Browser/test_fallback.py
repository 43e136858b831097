"""The page's own encoder for browsers without PublicKeyCredential.parseCreationOptionsFromJSON,
parseRequestOptionsFromJSON and toJSON(): with those removed before the page loads, sign-up
and both ways of signing in still work against the server."""

REMOVE_NATIVE_JSON = """
delete PublicKeyCredential.parseCreationOptionsFromJSON;
delete PublicKeyCredential.parseRequestOptionsFromJSON;
delete PublicKeyCredential.prototype.toJSON;
"""


def test_fallback_encoder(page, driver, authenticator):
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": REMOVE_NATIVE_JSON})
    authenticator(True)
    page.open()
    assert driver.execute_script("return typeof PublicKeyCredential.prototype.toJSON") == "undefined"
    assert driver.execute_script("return document.documentElement.dataset.webauthnJson") == "fallback"

    page.sign_up("grace", "Grace")
    assert page.signed_in_user == "grace", page.message
    page.sign_out()
    page.sign_in("grace")
    assert page.signed_in_user == "grace", page.message
    page.sign_out()
    page.sign_in_with_passkey()
    assert page.signed_in_user == "grace", page.message
    assert page.validate().startswith("Valid:")
