// UMFA hosted device page (RFC 8628 §3.3): the person types the code a TV, console or command
// line shows (or arrives with it filled in, from the device's link or QR code), sees which
// client asks and for what, signs in with a passkey (the device-facing sign-in; the login
// token stays in this page's memory) and allows or denies. The device's next poll of the token
// endpoint gets the answer.
"use strict";

(() => {
  const { $, meta, say, call, act } = window.UMFAHostedPage;
  const applicationID = meta("umfa-application-id");
  const issuerPath = meta("umfa-issuer-path");
  // The code being answered, and the login token once signed in.
  let userCode = "";
  let token = null;

  async function lookUp(event) {
    event.preventDefault();
    await act(async () => {
      const answer = await call("POST", issuerPath + "/device/code", { user_code: $("user_code").value });
      userCode = answer.user_code;
      $("client_name").textContent = answer.client_name;
      $("self_registered").hidden = !answer.self_registered;
      $("shown_code").textContent = answer.user_code;
      $("scopes").textContent = answer.scopes.join(", ") || "nothing beyond signing in";
      $("enter").hidden = true;
      $("qr").hidden = true;
      $("request").hidden = false;
    });
  }

  async function signIn() {
    token = (await window.UMFAHostedPage.signIn(applicationID)).token;
    $("sign-in").hidden = true;
    $("decide").hidden = false;
  }

  async function decide(allow) {
    const answer = await call("POST", issuerPath + "/device/decision", { user_code: userCode, allow }, token);
    token = null;
    $("request").hidden = true;
    $("done").hidden = false;
    $("done-title").textContent = answer.decision === "approved" ? "Your device is signed in" : "You denied the device";
    $("done-text").textContent = answer.decision === "approved"
      ? "Go back to your device; it goes on by itself in a few seconds."
      : "The device does not get access. You can close this page.";
  }

  // A sign-in older than five minutes is refused: sign in again.
  function signInAgain(error) {
    token = null;
    $("decide").hidden = true;
    $("sign-in").hidden = false;
    say("alert", error.message);
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("code-form").addEventListener("submit", lookUp);
    $("sign_in").addEventListener("click", () => act(signIn));
    $("approve").addEventListener("click", () => act(() => decide(true), signInAgain));
    $("deny").addEventListener("click", () => act(() => decide(false), signInAgain));
    if (!window.PublicKeyCredential) say("alert", "This browser cannot use passkeys.");
  });
})();
