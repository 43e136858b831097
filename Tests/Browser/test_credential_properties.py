"""Chromium's own WebAuthn client against UMFA (WebAuthn L3 §10.1.3, §10.1.4): registration options
ask for credProps (and prf when the options request says so); what Chromium reports of the new
passkey, credProps.rk and prf.enabled, is what UMFA answers, stores and lists as discoverable
and prf_enabled. DevTools virtual authenticators with and without resident keys and PRF
(hmac-secret) make the two kinds of passkey."""

from support import Server

# Runs in the page: options from UMFA, Chromium's navigator.credentials.create, verify at UMFA.
REGISTER = """
const [appId, user, askPRF, done] = arguments;
const post = async (path, body) => {
  const answer = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                    body: JSON.stringify(body)});
  return [answer.status, await answer.json()];
};
(async () => {
  const [status, options] = await post("/api/umfa/registration/options",
    Object.assign({application_id: appId, user_id: user}, askPRF ? {prf: {}} : {}));
  if (status !== 200) return done({error: options});
  const credential = await navigator.credentials.create(
    {publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options.publicKey)});
  const json = credential.toJSON();
  const [verifyStatus, verified] = await post("/api/umfa/registration/verify",
    {application_id: appId, user_id: user, credential: json});
  done({status: verifyStatus, verified, reported: credential.getClientExtensionResults(),
        extensions: options.publicKey.extensions});
})().catch((error) => done({error: String(error)}));
"""


def add_authenticator(driver, resident_key: bool, prf: bool) -> str:
    driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
    return driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "usb" if not resident_key else "internal",
        "hasResidentKey": resident_key, "hasUserVerification": True, "isUserVerified": True,
        "hasPrf": prf, "automaticPresenceSimulation": True,
    }})["authenticatorId"]


def register(driver, server: Server, user: str, ask_prf: bool) -> dict:
    driver.set_script_timeout(30)
    outcome = driver.execute_async_script(REGISTER, server.app_id, user, ask_prf)
    assert "error" not in outcome and outcome["status"] == 200, outcome
    return outcome


def listed(server: Server, user: str) -> list[dict]:
    return server.ok("GET", f"/api/umfa/users/{user}/credentials?application_id={server.app_id}",
                     bearer=server.api_key)["credentials"]


def test_chromium_reports_credprops_and_prf_which_umfa_stores_and_lists(driver, server):
    # A page of UMFA's origin with no WebAuthn request of its own (the demo page waits for
    # passkey autofill, which would hold the browser's one pending request).
    driver.get(server.origin + "/health")
    passkey = add_authenticator(driver, resident_key=True, prf=True)
    made = register(driver, server, "ada", ask_prf=True)
    assert made["extensions"]["credProps"] is True and made["extensions"]["prf"] == {}, made
    assert made["reported"]["credProps"] == {"rk": True}, made
    assert made["reported"]["prf"]["enabled"] is True, made
    assert made["verified"]["discoverable"] is True and made["verified"]["prf_enabled"] is True, made
    assert [(c["discoverable"], c["prf_enabled"]) for c in listed(server, "ada")] == [(True, True)]

    driver.execute_cdp_cmd("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": passkey})
    add_authenticator(driver, resident_key=False, prf=False)
    plain = register(driver, server, "bea", ask_prf=False)
    assert plain["reported"].get("credProps") == {"rk": False}, plain
    assert "prf" not in plain["reported"] and "prf" not in plain["extensions"], plain
    assert plain["verified"]["discoverable"] is False and "prf_enabled" not in plain["verified"], plain
    assert [(c["discoverable"], c["prf_enabled"]) for c in listed(server, "bea")] == [(False, None)]


def test_demo_page_says_whether_a_passkey_works_without_a_username(page, server, authenticator):
    authenticator(user_verification=True)
    page.open()
    page.sign_up("cleo")
    assert page.signed_in_user == "cleo", page.message
    items = page.passkey_items()
    assert len(items) == 1 and "works without a username" in items[0].text, [i.text for i in items]
    assert [c["discoverable"] for c in listed(server, "cleo")] == [True]
