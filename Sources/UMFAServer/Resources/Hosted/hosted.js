// UMFA hosted sign-in page: passkey sign-in (typed email or user id, discoverable, or
// conditional UI), account creation with a profile and a passkey, and consent, for one
// authorization request. It talks only to this issuer's interaction routes.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const meta = (name) => (document.querySelector(`meta[name="${name}"]`) || {}).content || "";
  const page = {
    issuerPath: meta("umfa-issuer-path"),
    interaction: meta("umfa-interaction"),
    view: meta("umfa-view"),
    loginHint: meta("umfa-login-hint"),
    signup: meta("umfa-signup") === "enabled",
    scopes: meta("umfa-scopes").split(" ").filter(Boolean),
    authorizationDetails: meta("umfa-authorization-details"),
    emailRecovery: meta("umfa-email-recovery") === "on",
  };
  const W = window.UMFAWebAuthn;
  let conditional = null;
  let busy = false;

  const scopeWords = {
    openid: "Your account id",
    profile: "Your name",
    email: "Your email address",
    phone: "Your phone number",
    offline_access: "Stay signed in when you are away",
    "umfa:passkeys": "See, rename and remove your passkeys",
    "umfa:account": "Delete your account",
  };

  function show(view) {
    for (const id of ["sign-in", "create-account", "consent", "recovery", "verify-email"]) $(id).hidden = id !== view;
    $("to-create").hidden = !page.signup;
    // Passkey autofill, unless the client already named who signs in (login_hint): then the
    // page waits for the person to press sign_in with that name.
    if (view === "sign-in" && !page.loginHint) startConditional();
  }

  function say(text) {
    $("status").textContent = text || "";
    $("status").hidden = !text;
  }

  function alertText(text) {
    $("alert").textContent = text || "";
    $("alert").hidden = !text;
  }

  function setBusy(value) {
    busy = value;
    for (const button of document.querySelectorAll("button")) button.disabled = value;
  }

  class ServerError extends Error {
    constructor(message, reason) {
      super(message);
      this.reason = reason;
    }
  }

  async function post(path, body) {
    const response = await fetch(page.issuerPath + "/interaction/" + path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify({ interaction: page.interaction, ...body }),
    });
    let answer = {};
    try {
      answer = await response.json();
    } catch (_) {
      answer = {};
    }
    if (!response.ok) {
      const reference = answer.trace_id ? " (reference " + answer.trace_id + ")" : "";
      throw new ServerError((answer.message || "The sign-in service did not answer.") + reference, answer.reason);
    }
    return answer;
  }

  // What the browser's DOMException means for the person in front of it.
  function browserText(error, ceremony) {
    switch (error.name) {
      case "NotAllowedError":
        return ceremony === "create"
          ? "No passkey was created: the request was cancelled or timed out. Try again."
          : "The passkey request was cancelled or timed out, or this device has no passkey for this account. Try again.";
      case "InvalidStateError":
        return "This device already has a passkey for this account. Sign in instead.";
      case "SecurityError":
        return "This page's address does not match the application's passkey settings. Tell the application's support.";
      case "NotSupportedError":
        return "This browser or device cannot use passkeys.";
      case "AbortError":
        return "";
      default:
        return "Something went wrong with the passkey: " + (error.message || error.name);
    }
  }

  function next(answer) {
    if (answer.next === "redirect" && answer.redirect_to) {
      say("Signed in. Taking you back\u2026");
      window.location.assign(answer.redirect_to);
      return;
    }
    if (answer.next === "consent") {
      listScopes(answer.scopes || page.scopes, answer.client_name);
      showDetails(answer.authorization_details);
      show("consent");
    }
    if (answer.next === "verify_email") {
      say("");
      $("verify-email-address").textContent = $("email").value.trim();
      show("verify-email");
      $("email_code").focus();
    }
  }

  // After a sign-up: the mailed code, or none to leave the address unverified for now.
  async function verifyEmail(code) {
    if (busy) return;
    alertText("");
    setBusy(true);
    try {
      next(await post("verify-email", code === null ? {} : { code }));
    } catch (error) {
      alertText(error.message);
    } finally {
      setBusy(false);
    }
  }

  // RFC 9396: what the request authorizes, in its canonical text, shown as it is.
  function showDetails(text) {
    const details = $("consent-details");
    details.textContent = text || "";
    details.hidden = !text;
  }

  function listScopes(scopes, clientName) {
    if (clientName) $("consent-client").textContent = clientName;
    const list = $("consent-scopes");
    list.replaceChildren();
    for (const scope of scopes) {
      const item = document.createElement("li");
      item.textContent = scopeWords[scope] || scope;
      list.append(item);
    }
  }

  function stopConditional() {
    if (conditional) {
      conditional.abort();
      conditional = null;
    }
  }

  async function startConditional() {
    stopConditional();
    if (!window.PublicKeyCredential || !PublicKeyCredential.isConditionalMediationAvailable) return;
    if (!(await PublicKeyCredential.isConditionalMediationAvailable())) return;
    const controller = new AbortController();
    conditional = controller;
    try {
      const answer = await post("sign-in/options", {});
      const credential = await navigator.credentials.get({
        mediation: "conditional",
        publicKey: W.requestOptions(answer.publicKey),
        signal: controller.signal,
      });
      if (controller.signal.aborted) return;
      setBusy(true);
      next(await verifySignIn(answer.publicKey, credential));
    } catch (error) {
      if (controller.signal.aborted || error.name === "AbortError") return;
      alertText(error instanceof ServerError ? error.message : browserText(error, "get"));
    } finally {
      setBusy(false);
    }
  }

  // The sign-in's verification; a passkey the application does not hold (deleted, or the
  // account gone) is forgotten by the device too, through the WebAuthn Signal API.
  async function verifySignIn(options, credential) {
    try {
      return await post("sign-in/verify", { credential: W.credentialJSON(credential) });
    } catch (error) {
      if (error instanceof ServerError) W.signalIfUnknown(error.reason, options.rpId, credential.id);
      throw error;
    }
  }

  async function signIn(event) {
    event.preventDefault();
    if (busy) return;
    stopConditional();
    alertText("");
    setBusy(true);
    try {
      const login = $("username").value.trim();
      const answer = await post("sign-in/options", login ? { login } : {});
      say("Use your passkey\u2026");
      const credential = await navigator.credentials.get({ publicKey: W.requestOptions(answer.publicKey) });
      next(await verifySignIn(answer.publicKey, credential));
    } catch (error) {
      say("");
      alertText(error instanceof ServerError ? error.message : browserText(error, "get"));
    } finally {
      setBusy(false);
    }
  }

  async function createAccount(event) {
    event.preventDefault();
    if (busy) return;
    stopConditional();
    alertText("");
    setBusy(true);
    try {
      const body = { email: $("email").value.trim() };
      for (const name of ["given_name", "family_name", "phone_number", "device_name"]) {
        const value = $(name).value.trim();
        if (value) body[name] = value;
      }
      const answer = await post("create-account/options", body);
      say("Create your passkey\u2026");
      const credential = await navigator.credentials.create({ publicKey: W.creationOptions(answer.publicKey) });
      next(await post("create-account/verify", { credential: W.credentialJSON(credential) }));
    } catch (error) {
      say("");
      alertText(error instanceof ServerError ? error.message : browserText(error, "create"));
    } finally {
      setBusy(false);
    }
  }

  async function consent(allow) {
    if (busy) return;
    alertText("");
    setBusy(true);
    try {
      next(await post("consent", { allow }));
    } catch (error) {
      alertText(error.message);
    } finally {
      setBusy(false);
    }
  }

  async function requestRecovery(event) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    alertText("");
    try {
      const response = await fetch(`${page.issuerPath}/recovery`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: $("recovery_email").value.trim() }), credentials: "same-origin",
      });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(answer.message || `The server answered ${response.status}.`);
      say(answer.message);
    } catch (error) {
      alertText(error.message);
    } finally {
      setBusy(false);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("sign-in-form").addEventListener("submit", signIn);
    $("create-form").addEventListener("submit", createAccount);
    $("show_create_account").addEventListener("click", () => { alertText(""); stopConditional(); show("create-account"); });
    $("show_sign_in").addEventListener("click", () => { alertText(""); show("sign-in"); });
    $("consent_allow").addEventListener("click", () => consent(true));
    $("consent_deny").addEventListener("click", () => consent(false));
    $("recovery-form").addEventListener("submit", requestRecovery);
    $("verify-email-form").addEventListener("submit", (event) => {
      event.preventDefault();
      verifyEmail($("email_code").value.trim());
    });
    $("skip_email_verification").addEventListener("click", () => verifyEmail(null));
    $("show_recovery").addEventListener("click", () => { alertText(""); stopConditional(); show("recovery"); });
    $("back_to_sign_in").addEventListener("click", () => { alertText(""); show("sign-in"); });
    $("to-recover").hidden = !page.emailRecovery;
    if (page.loginHint) {
      $("username").value = page.loginHint;
      if (page.loginHint.includes("@")) $("email").value = page.loginHint;
    }
    if (!window.PublicKeyCredential) {
      alertText("This browser cannot use passkeys.");
    }
    if (page.view === "consent") {
      listScopes(page.scopes);
      showDetails(page.authorizationDetails);
    }
    show(page.view === "create-account" && page.signup ? "create-account" : page.view || "sign-in");
  });
})();
