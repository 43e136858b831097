// UMFA hosted account page: a person signs in with a passkey (the device-facing sign-in of
// docs/contract.md §2, which answers a login token), then, with that token held only in this
// page's memory, renames and removes passkeys, verifies the email address and deletes the
// account through the self-service routes (§8). Every change needs a sign-in of the last five
// minutes; an older one sends the person back to sign in. The WebAuthn Signal API tells the
// passkey manager what the server holds: the passkeys left after each change, none after a
// deletion, and a passkey it does not know at all.
"use strict";

(() => {
  const { $, meta, say, act: run, signIn: passkeySignIn } = window.UMFAHostedPage;
  const applicationID = meta("umfa-application-id");
  const W = window.UMFAWebAuthn;
  // The signed-in person: the login token, the RP ID and the WebAuthn user handle.
  let session = null;
  let passkeys = [];

  const call = (method, path, body) => window.UMFAHostedPage.call(method, path, body, session && session.token);

  // One action; a sign-in too old sends the person back to sign in.
  const act = (action) => run(action, (error) => {
    if (!session) return say("alert", error.message);
    signOut();
    say("alert", "Sign in again: changes need a sign-in of the last five minutes.");
  });

  async function signIn() {
    const signedIn = await passkeySignIn(applicationID);
    session = { token: signedIn.token, rpId: signedIn.rpId, userHandle: null };
    $("sign-in").hidden = true;
    $("account").hidden = false;
    await listPasskeys();
  }

  function signOut() {
    session = null;
    passkeys = [];
    $("passkeys").replaceChildren();
    $("account").hidden = true;
    $("sign-in").hidden = false;
    say("status", "");
  }

  // The list, and the passkey manager told which of this account's passkeys still work.
  async function listPasskeys() {
    const answer = await call("GET", "/api/umfa/me/credentials");
    session.userHandle = answer.user_handle;
    passkeys = answer.credentials;
    W.signal("signalAllAcceptedCredentials", session.rpId, {
      userId: session.userHandle, allAcceptedCredentialIds: passkeys.map((p) => p.credential_id),
    });
    const list = $("passkeys");
    list.replaceChildren();
    for (const passkey of passkeys) list.append(passkeyItem(passkey));
  }

  // A button of a passkey's row, named as the page conventions name actions, running `action`.
  function linkButton(name, label, action) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "link " + name;
    button.name = name;
    button.textContent = label;
    button.addEventListener("click", () => act(action));
    return button;
  }

  function passkeyItem(passkey) {
    const item = document.createElement("li");
    const title = document.createElement("strong");
    title.textContent = passkey.name || passkey.authenticator_name || "Passkey";
    const details = document.createElement("p");
    details.className = "muted small";
    details.textContent = "Added " + passkey.created_at.slice(0, 10)
      + (passkey.last_used_at ? ", last used " + passkey.last_used_at.slice(0, 10) : "");
    const rename = linkButton("rename_passkey", "Rename", async () => {
      const name = window.prompt("A name for this passkey", passkey.name || "");
      if (name === null) return;
      await call("PATCH", "/api/umfa/me/credentials/" + encodeURIComponent(passkey.credential_id),
        { name: name.trim() || null });
      await listPasskeys();
      say("status", "Passkey renamed.");
    });
    const remove = linkButton("remove_passkey", "Remove", async () => {
      if (remove.dataset.armed !== "1") {
        remove.dataset.armed = "1";
        remove.textContent = passkeys.length === 1 ? "Remove your last passkey? Click again" : "Click again to remove";
        return;
      }
      const last = passkeys.length === 1 ? "?confirm_last=true" : "";
      await call("DELETE", "/api/umfa/me/credentials/" + encodeURIComponent(passkey.credential_id) + last);
      await listPasskeys();
      say("status", "Passkey removed.");
    });
    item.append(title, details, rename, remove);
    return item;
  }

  async function sendCode() {
    await call("POST", "/api/umfa/me/email/verification");
    say("status", "A code is on its way to your address.");
  }

  async function verifyCode(event) {
    event.preventDefault();
    await act(async () => {
      await call("POST", "/api/umfa/me/email/verify", { code: $("email_code").value.trim() });
      $("email_code").value = "";
      say("status", "Your email address is verified.");
    });
  }

  async function deleteAccount() {
    const button = $("delete_account");
    if (button.dataset.armed !== "1") {
      button.dataset.armed = "1";
      button.textContent = "Click again to delete your account";
      return;
    }
    await call("DELETE", "/api/umfa/me");
    // The account's passkeys are gone: none of them is accepted any more.
    W.signal("signalAllAcceptedCredentials", session.rpId, { userId: session.userHandle, allAcceptedCredentialIds: [] });
    session = null;
    $("account").hidden = true;
    $("deleted").hidden = false;
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("sign_in").addEventListener("click", () => act(signIn));
    $("sign_out").addEventListener("click", signOut);
    $("send_email_code").addEventListener("click", () => act(sendCode));
    $("email-code-form").addEventListener("submit", verifyCode);
    $("delete_account").addEventListener("click", () => act(deleteAccount));
    if (!window.PublicKeyCredential) say("alert", "This browser cannot use passkeys.");
  });
})();
