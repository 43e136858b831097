// UMFA hosted pages that sign a person in with a passkey through the device-facing sign-in
// (docs/contract.md §2) and then act with the login token it answers, held in the page's
// memory only: the account page and the device page. Shared here: element lookup, messages,
// JSON calls with the token, one action at a time, and the sign-in itself.
"use strict";

(() => {
  const W = window.UMFAWebAuthn;
  const $ = (id) => document.getElementById(id);
  const meta = (name) => (document.querySelector(`meta[name="${name}"]`) || {}).content || "";

  class ServerError extends Error {
    constructor(status, message, reason) {
      super(message);
      this.status = status;
      this.reason = reason;
    }
  }

  // Shows `text` in the element `id`, or hides it when there is none.
  function say(id, text) {
    $(id).textContent = text || "";
    $(id).hidden = !text;
  }

  // A JSON call, with the login token when `token` is given; a refusal is a ServerError naming
  // the server's message and trace id.
  async function call(method, path, body, token) {
    const headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = "Bearer " + token;
    const response = await fetch(path, {
      method, headers, cache: "no-store", credentials: "omit",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 204) return {};
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) {
      const reference = answer.trace_id ? " (reference " + answer.trace_id + ")" : "";
      throw new ServerError(response.status, (answer.message || "The server answered " + response.status) + reference,
        answer.reason);
    }
    return answer;
  }

  // One action: buttons wait and a refusal is shown in #alert; `onUnauthorized` (when given)
  // handles a 401, such as a sign-in grown too old.
  async function act(action, onUnauthorized) {
    for (const button of document.querySelectorAll("button")) button.disabled = true;
    say("alert", "");
    try {
      await action();
    } catch (error) {
      say("status", "");
      if (error.name === "NotAllowedError") {
        say("alert", "The passkey request was cancelled or timed out. Try again.");
      } else if (error instanceof ServerError && error.status === 401 && onUnauthorized) {
        onUnauthorized(error);
      } else {
        say("alert", error.message);
      }
    } finally {
      for (const button of document.querySelectorAll("button")) button.disabled = false;
    }
  }

  // A discoverable passkey sign-in to `applicationID`: the login token and the RP ID. A passkey
  // the application does not know is forgotten by the device (WebAuthn Signal API).
  async function signIn(applicationID) {
    const options = await call("POST", "/api/umfa/authentication/options", { application_id: applicationID });
    say("status", "Use your passkey\u2026");
    const credential = await navigator.credentials.get({ publicKey: W.requestOptions(options.publicKey) });
    try {
      const answer = await call("POST", "/api/umfa/authentication/verify", {
        application_id: applicationID, credential: W.credentialJSON(credential),
      });
      say("status", "");
      return { token: answer.token, rpId: options.publicKey.rpId };
    } catch (error) {
      if (error instanceof ServerError) W.signalIfUnknown(error.reason, options.publicKey.rpId, credential.id);
      throw error;
    }
  }

  window.UMFAHostedPage = { $, meta, say, call, act, signIn, ServerError };
})();
