// UMFA passkey demo: sign up and sign in with a passkey against this server's HTTP API v1,
// show the login token, validate it, and list or delete the signed-in user's passkeys.
// Plain JavaScript, no build step, nothing loaded from another host.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const state = {
    app: null, development: null, user: null, token: null, credential: null, conditional: null, busy: false,
    rpId: null, userHandle: null, passkeys: [],
  };

  // -- the WebAuthn JSON encodings (shared with the hosted pages: /demo/webauthn-json.js) ----

  const { toBase64URL, fromBase64URL, creationOptions, requestOptions, credentialJSON, hasNativeJSON } =
    window.UMFAWebAuthn;

  // The PRF input of every sign-in (WebAuthn L3 §10.1.4): a fixed salt, so one passkey gives
  // the same output each time. The output stays in this page; only a fingerprint is shown.
  const prfSalt = toBase64URL(new TextEncoder().encode("umfa-demo-prf"));

  // -- messages a person understands ------------------------------------------------------

  class Problem extends Error {
    constructor(text, detail) {
      super(text);
      this.detail = detail;
    }
  }

  class ServerError extends Error {
    constructor(status, message, traceID, reason) {
      super(message);
      this.status = status;
      this.traceID = traceID;
      this.reason = reason;
    }
  }

  const quoted = (text) => "\u201c" + text + "\u201d";

  function requiresVerification(options) {
    const selection = options.authenticatorSelection || {};
    return selection.userVerification === "required" || options.userVerification === "required";
  }

  const verificationText =
    "This application requires your device to verify that it is you (fingerprint, face, screen lock or PIN), " +
    "and this device did not.";

  // What the browser's DOMException means for the person in front of it.
  function browserProblem(error, ceremony, options, user) {
    const detail = "Browser: " + error.name + (error.message ? " \u2014 " + error.message : "");
    switch (error.name) {
      case "NotAllowedError":
        if (requiresVerification(options)) return new Problem(verificationText + " Or the request was cancelled.", detail);
        if (ceremony === "create") return new Problem("No passkey was created: the request was cancelled or timed out.", detail);
        if (user) {
          return new Problem(
            "You were not signed in: this device has no passkey for " + quoted(user) +
              " here, or the request was cancelled or timed out.", detail);
        }
        return new Problem(
          "You were not signed in: this device has no passkey for this application, or the request was cancelled.",
          detail);
      case "InvalidStateError":
        return new Problem("This device already has a passkey for this account. Sign in with it instead.", detail);
      case "SecurityError":
        return new Problem("This page's address (" + location.origin + ") may not use passkeys for " +
          quoted(options.rpId || (options.rp && options.rp.id) || "this application") + ".", detail);
      case "NotSupportedError":
        return new Problem("This browser or device cannot make the kind of passkey this application asks for.", detail);
      default:
        return new Problem("The browser could not use a passkey.", detail);
    }
  }

  // What the server's refusal means; the server's own words stay visible as the detail.
  function serverProblem(error, user) {
    if (error.status === 0) return new Problem(error.message);
    const m = error.message || "";
    const detail = "Server: " + m + " (HTTP " + error.status + (error.traceID ? ", trace id " + error.traceID : "") + ")";
    let text = "The server refused the request.";
    if (/origin .* is not allowed/.test(m)) {
      text = "This application does not accept passkeys from this page's address (" + location.origin +
        "). Its administrator must add that origin to the application's allowed origins.";
    } else if (/user verification is required/.test(m)) {
      text = verificationText;
    } else if (/^Registration failed$/.test(m)) {
      // The server says only that it failed (its log has the reason under the trace id): the
      // usual cause on this page is an origin the application does not list.
      text = "The server refused the new passkey. A common cause: this application does not accept passkeys " +
        "from this page's address (" + location.origin + "); its administrator can add that origin. " +
        "The server's log gives the reason under the trace id below.";
    } else if (/^Authentication failed$/.test(m)) {
      text = "The server did not accept this passkey: it may have been deleted, or it belongs to another " +
        "account. Create a new passkey if you have none left. The server's log gives the reason under the trace id below.";
    } else if (error.status === 403 && /Adding another device/.test(m)) {
      text = quoted(user || "This user id") + " already has a passkey. Sign in with it first, then add another one.";
    } else if (error.status === 403 && /enrollment token/.test(m)) {
      text = "This application lets only its own backend start a registration (it needs an enrollment token), " +
        "so this page cannot create passkeys for it.";
    } else if (/Unknown application_id|application_id must be a UUID/.test(m)) {
      text = "The server does not know the application this address names. Check the ?app= part of the address.";
    } else if (error.status === 429) {
      text = "Too many attempts. Wait a moment and try again.";
    } else if (/challenge is unknown, expired/.test(m)) {
      text = "That took too long and the request expired. Please try again.";
    } else if (/login token was refused/.test(m)) {
      text = "Your sign-in has expired. Sign in again.";
    }
    return new Problem(text, detail);
  }

  function show(element, text, kind, detail) {
    element.textContent = text;
    element.className = kind || "";
    if (detail) {
      const small = document.createElement("span");
      small.className = "detail";
      small.textContent = detail;
      element.appendChild(small);
    }
    element.hidden = !text;
  }

  const say = (text, kind, detail) => show($("message"), text, kind, detail);

  function fail(error) {
    if (error instanceof Problem) say(error.message, "error", error.detail);
    else say("Something went wrong: " + error.message, "error");
  }

  // -- the server ---------------------------------------------------------------------------

  async function api(method, path, body, bearer) {
    const headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (bearer) headers.Authorization = "Bearer " + bearer;
    let response;
    try {
      response = await fetch(path, {
        method, headers, cache: "no-store", body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new ServerError(0, "The server could not be reached. Is umfa serve still running?");
    }
    let data = null;
    try {
      data = await response.json();
    } catch (error) {
      data = null;
    }
    if (!response.ok) {
      throw new ServerError(
        response.status, (data && data.message) || response.statusText, data && data.trace_id, data && data.reason);
    }
    return data;
  }

  // One step against the server: its refusals become a Problem naming what happened.
  async function call(method, path, body, bearer, user) {
    try {
      return await api(method, path, body, bearer);
    } catch (error) {
      throw error instanceof ServerError ? serverProblem(error, user) : error;
    }
  }

  // -- ceremonies ---------------------------------------------------------------------------

  function stopAutofill() {
    if (state.conditional) state.conditional.abort();
    state.conditional = null;
  }

  function deviceName() {
    const platform = (navigator.userAgentData && navigator.userAgentData.platform) || navigator.platform || "";
    return platform ? "Browser on " + platform : "Browser";
  }

  async function createPasskey(user, displayName, token) {
    // `prf: {}` asks for a passkey with PRF (an authenticator makes hmac-secret credentials only
    // when asked, CTAP 2.1 §12.5), so that sign-ins can use it.
    const body = { application_id: state.app, user_id: user, prf: {} };
    if (displayName) body.display_name = displayName;
    if (token) body.token = token;
    const options = await call("POST", "/api/umfa/registration/options", body, null, user);
    state.rpId = options.publicKey.rp.id;
    let credential;
    try {
      credential = await navigator.credentials.create({ publicKey: creationOptions(options.publicKey) });
    } catch (error) {
      throw browserProblem(error, "create", options.publicKey, user);
    }
    return call("POST", "/api/umfa/registration/verify", {
      application_id: state.app, user_id: user, credential: credentialJSON(credential), device_name: deviceName(),
    }, null, user);
  }

  async function usePasskey(user, mediation, signal) {
    const body = { application_id: state.app, prf: { eval: { first: prfSalt } } };
    if (user) body.user_id = user;
    const options = await call("POST", "/api/umfa/authentication/options", body, null, user);
    state.rpId = options.publicKey.rpId;
    let credential;
    try {
      const request = { publicKey: requestOptions(options.publicKey) };
      if (mediation) request.mediation = mediation;
      if (signal) request.signal = signal;
      credential = await navigator.credentials.get(request);
    } catch (error) {
      if (signal && signal.aborted) return null;
      throw browserProblem(error, "get", options.publicKey, user);
    }
    const verify = { application_id: state.app, credential: credentialJSON(credential) };
    if (user) verify.user_id = user;
    let answer;
    try {
      answer = await api("POST", "/api/umfa/authentication/verify", verify);
    } catch (error) {
      if (!(error instanceof ServerError)) throw error;
      // A passkey the server does not hold (deleted elsewhere): the device forgets it too.
      UMFAWebAuthn.signalIfUnknown(error.reason, state.rpId, credential.id);
      throw serverProblem(error, user);
    }
    const prf = credential.getClientExtensionResults().prf;
    return { ...answer, prfOutput: prf && prf.results ? prf.results.first : null };
  }

  // What the sign-in's PRF output was: the first 8 bytes of its SHA-256, in hex, never the
  // output itself (it is the key material).
  async function showPRF(output) {
    const line = $("prf-fingerprint");
    if (output === undefined) {
      line.textContent = "Sign in with this passkey to see its PRF key fingerprint.";
      line.dataset.prf = "pending";
    } else if (!output) {
      line.textContent = "PRF is not available: this browser or passkey gave no PRF output.";
      line.dataset.prf = "unavailable";
    } else {
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", output)).slice(0, 8);
      line.textContent = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(" ");
      line.dataset.prf = "available";
    }
  }

  // Runs one action with the buttons disabled; `data-busy` tells tests when it is over.
  async function run(action) {
    if (state.busy) return;
    state.busy = true;
    document.body.dataset.busy = "1";
    for (const button of document.querySelectorAll("button")) button.disabled = true;
    try {
      await action();
    } catch (error) {
      fail(error);
    } finally {
      for (const button of document.querySelectorAll("button")) button.disabled = false;
      state.busy = false;
      document.body.dataset.busy = "0";
    }
  }

  // Offers the user's passkeys in the user id field's autofill, where the browser can. Started
  // once, when the page loads (conditional mediation); any button press cancels it.
  async function startAutofill() {
    if (state.user || !state.app || !window.PublicKeyCredential) return;
    if (typeof PublicKeyCredential.isConditionalMediationAvailable !== "function") return;
    if (!(await PublicKeyCredential.isConditionalMediationAvailable())) return;
    stopAutofill();
    const controller = new AbortController();
    state.conditional = controller;
    $("autofill-note").hidden = false;
    try {
      const result = await usePasskey(null, "conditional", controller.signal);
      if (result && !controller.signal.aborted) await signedIn(result, "with a passkey from autofill");
    } catch (error) {
      if (!controller.signal.aborted) fail(error);
    }
  }

  // -- the signed-in view -------------------------------------------------------------------

  function decodePart(part) {
    try {
      return JSON.parse(new TextDecoder().decode(fromBase64URL(part)));
    } catch (error) {
      return null;
    }
  }

  const when = (seconds) => new Date(seconds * 1000).toLocaleString();

  async function signedIn(result, how) {
    stopAutofill();
    state.user = result.user_id;
    state.token = result.token;
    state.credential = result.credential_id;
    const [header, claims] = result.token.split(".").slice(0, 2).map(decodePart);
    $("session-user").textContent = result.user_id;
    $("session-how").textContent = "Signed in " + how + ".";
    $("token").textContent = result.token;
    $("token-header").textContent = JSON.stringify(header, null, 2);
    $("token-claims").textContent = JSON.stringify(claims, null, 2);
    $("token-times").textContent = claims && claims.exp
      ? "Issued " + when(claims.iat) + "; valid until " + when(claims.exp) + "."
      : "";
    show($("validate-result"), "");
    $("signed-out").hidden = true;
    $("session").hidden = false;
    say("");
    document.body.dataset.session = "signed-in";
    await showPRF(result.prfOutput);
    return listPasskeys();
  }

  function signOut() {
    state.user = null;
    state.token = null;
    $("session").hidden = true;
    $("signed-out").hidden = false;
    $("passkeys").replaceChildren();
    document.body.dataset.session = "signed-out";
    say("You are signed out. Your passkey stays on this device for the next sign-in.", "ok");
  }

  const isDevelopment = () => state.development !== null && state.app === state.development;

  // The WebAuthn Signal API for this application's RP ID (webauthn-json.js).
  function signal(name, details) {
    UMFAWebAuthn.signal(name, state.rpId, details);
  }

  // The signed-in user's passkeys, through the self-service routes (docs/contract.md §8) with the
  // login token: any application's page can show them, no API key in the browser.
  async function listPasskeys() {
    const list = $("passkeys");
    list.replaceChildren();
    const answer = await call("GET", "/api/umfa/me/credentials", undefined, state.token, state.user);
    state.userHandle = answer.user_handle;
    state.passkeys = answer.credentials.map((c) => c.credential_id);
    show($("passkeys-note"), answer.credentials.length ? "" : "This user has no passkeys left.", "");
    for (const credential of answer.credentials) {
      const item = document.createElement("li");
      item.dataset.credentialId = credential.credential_id;
      const text = document.createElement("div");
      const name = document.createElement("span");
      name.className = "name";
      name.textContent = (credential.name || "Passkey") + " \u00b7 " + credential.credential_id.slice(0, 10) + "\u2026";
      const meta = document.createElement("span");
      meta.className = "meta";
      meta.textContent = "Created " + new Date(credential.created_at).toLocaleString() + " \u00b7 last used " +
        (credential.last_used_at ? new Date(credential.last_used_at).toLocaleString() : "never") +
        (credential.authenticator_name ? " \u00b7 " + credential.authenticator_name : "") +
        // credProps.rk as the browser reported it at registration (WebAuthn L3 §10.1.3).
        (credential.discoverable === true ? " \u00b7 works without a username" :
          credential.discoverable === false ? " \u00b7 needs the username first" : "");
      text.append(name, meta);
      const rename = document.createElement("button");
      rename.type = "button";
      rename.className = "secondary rename";
      rename.name = "rename_passkey";
      rename.textContent = "Rename";
      rename.addEventListener("click", () => startRename(item, credential));
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "danger delete";
      remove.name = "delete_passkey";
      remove.textContent = "Delete";
      remove.addEventListener("click", () => run(() => deletePasskey(credential.credential_id)));
      item.append(text, rename, remove);
      list.appendChild(item);
    }
  }

  function startRename(item, credential) {
    const form = document.createElement("form");
    form.className = "rename-form";
    const field = document.createElement("input");
    field.name = "name";
    field.maxLength = 64;
    field.value = credential.name || "";
    field.setAttribute("aria-label", "New name");
    const save = document.createElement("button");
    save.type = "submit";
    save.name = "save_name";
    save.textContent = "Save";
    form.append(field, save);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      run(() => renamePasskey(credential.credential_id, field.value.trim()));
    });
    item.replaceChildren(form);
    field.focus();
  }

  async function renamePasskey(credentialID, name) {
    await call("PATCH", "/api/umfa/me/credentials/" + encodeURIComponent(credentialID), { name: name || null },
      state.token, state.user);
    await listPasskeys();
    if (state.userHandle) {
      signal("signalCurrentUserDetails", { userId: state.userHandle, name: state.user, displayName: state.user });
    }
    say("Passkey renamed.", "ok");
  }

  async function deletePasskey(credentialID) {
    // The last passkey goes only when the request says so (the server answers 409 otherwise).
    const last = state.passkeys.length === 1 ? "?confirm_last=true" : "";
    await call("DELETE", "/api/umfa/me/credentials/" + encodeURIComponent(credentialID) + last, undefined,
      state.token, state.user);
    // The server holds it no more: the passkey manager may forget it too.
    signal("signalUnknownCredential", { credentialId: credentialID });
    const remaining = state.passkeys.filter((id) => id !== credentialID);
    if (state.userHandle) {
      signal("signalAllAcceptedCredentials", { userId: state.userHandle, allAcceptedCredentialIds: remaining });
    }
    state.passkeys = remaining;
    if (credentialID === state.credential) {
      // The login token ends with the passkey it signed in with (the server refuses it now):
      // the list cannot be read again, and this session lasts only until the page is left.
      $("passkeys").replaceChildren();
      say("Passkey deleted. This application no longer accepts it, and your device was told to forget it. " +
        "You signed in with it, so this sign-in has ended too.", "ok");
      return;
    }
    await listPasskeys();
    say("Passkey deleted. This application no longer accepts it, and your device was told to forget it.", "ok");
  }

  // Whether the server accepts the login token: the self-service list answers only to a valid,
  // fresh token of this user and application. A backend calls validate-token with its API key.
  async function validateToken() {
    const result = $("validate-result");
    try {
      const answer = await api("GET", "/api/umfa/me/credentials", undefined, state.token);
      show(result, "Valid: the server accepts this token for " + quoted(state.user) + ".", "ok",
        "GET /api/umfa/me/credentials answered 200, trace id " + answer.trace_id);
    } catch (error) {
      if (!(error instanceof ServerError) || error.status === 0) throw error;
      show(result, "Not valid: " + error.message, "error", "HTTP " + error.status + ", trace id " + error.traceID);
    }
  }

  // -- start --------------------------------------------------------------------------------

  function chooseApplication() {
    const meta = document.querySelector('meta[name="umfa-development-application"]');
    const development = meta && /^[0-9a-f-]{36}$/i.test(meta.content) ? meta.content.toLowerCase() : null;
    const named = new URLSearchParams(location.search).get("app");
    state.development = development;
    state.app = named ? named.trim().toLowerCase() : development;
    const line = $("application");
    if (!state.app) {
      line.textContent = "No application.";
      say("This server has no development application (it was started with --no-default-app). Add " +
        "?app=<application id> to the address to try an application whose origins include " + location.origin + ".",
        "error");
      return false;
    }
    line.textContent = (isDevelopment() ? "Development application " : "Application ") + state.app +
      (named && !isDevelopment() ? " (named in the address)" : "") + " \u00b7 page origin " + location.origin;
    return true;
  }

  function start() {
    document.documentElement.dataset.webauthnJson =
      window.PublicKeyCredential && hasNativeJSON() ? "native" : "fallback";
    document.body.dataset.busy = "0";
    document.body.dataset.session = "signed-out";
    const ready = chooseApplication();
    if (!window.PublicKeyCredential || !navigator.credentials) {
      say("This browser does not support passkeys (WebAuthn), or this page is not served from a secure origin.",
        "error");
      for (const button of document.querySelectorAll("button")) button.disabled = true;
      return;
    }
    if (!ready) {
      for (const button of document.querySelectorAll("button")) button.disabled = true;
      return;
    }
    $("signup-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const user = $("signup-user").value.trim();
      stopAutofill();
      run(async () => {
        const result = await createPasskey(user, $("signup-name").value.trim(), null);
        await signedIn(result, "after creating a passkey");
        say("Passkey created. You are signed in.", "ok");
      });
    });
    $("signin-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const user = $("signin-user").value.trim();
      stopAutofill();
      run(async () => {
        const result = await usePasskey(user, null, null);
        if (result) await signedIn(result, "with a passkey, by user id");
      });
    });
    $("signin-passkey-button").addEventListener("click", () => {
      stopAutofill();
      run(async () => {
        const result = await usePasskey(null, null, null);
        if (result) await signedIn(result, "with a passkey this device offered (no user id typed)");
      });
    });
    $("validate-button").addEventListener("click", () => run(validateToken));
    $("add-passkey-button").addEventListener("click", () => run(async () => {
      await createPasskey(state.user, null, state.token);
      await listPasskeys();
      say("Another passkey was added.", "ok");
    }));
    $("signout-button").addEventListener("click", signOut);
    startAutofill();
  }

  document.addEventListener("DOMContentLoaded", start);
})();
