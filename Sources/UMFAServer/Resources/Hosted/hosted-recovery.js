// UMFA hosted recovery page: the person who opened a mailed recovery link registers a new
// passkey for the account. Opening the page spends nothing; the registration spends the link.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const meta = (name) => (document.querySelector(`meta[name="${name}"]`) || {}).content || "";
  const issuerPath = meta("umfa-issuer-path");
  const token = meta("umfa-recovery-token");
  const W = window.UMFAWebAuthn;

  function say(id, text) {
    $(id).textContent = text;
    $(id).hidden = !text;
  }

  async function post(route, body) {
    const response = await fetch(`${issuerPath}/recovery/${route}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      credentials: "same-origin",
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.message || `The server answered ${response.status}.`);
    return answer;
  }

  async function register() {
    $("register_passkey").disabled = true;
    say("alert", "");
    try {
      say("status", "Follow your browser's prompt to create the passkey…");
      const options = await post("options", { token });
      const created = await navigator.credentials.create({ publicKey: W.creationOptions(options.publicKey) });
      await post("verify", { token, credential: W.credentialJSON(created) });
      say("status", "");
      $("recover").hidden = true;
      $("done").hidden = false;
    } catch (error) {
      say("status", "");
      say("alert", error.name === "NotAllowedError" ? "The passkey was not created. Try again." : error.message);
      $("register_passkey").disabled = false;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("register_passkey").addEventListener("click", register);
  });
})();
