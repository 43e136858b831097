// The UMFA admin console (docs/contract.md §8). Operators sign in with a passkey; the session is an
// HttpOnly cookie the page cannot read, and every admin call carries the session's CSRF token
// in X-CSRF-Token. Pages are drawn with DOM calls and textContent only: nothing the server
// returns is ever parsed as HTML. Plain JavaScript, nothing from another host.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  let csrf = null;
  let applications = [];
  let running = 0;
  let ownHashChange = false;
  // The console's RP ID: the public URL's host, which is this page's host (ConsoleRelyingParty).
  const consoleRpId = location.hostname.replace(/^\[|\]$/g, "");

  // -- small helpers ----------------------------------------------------------------------------

  function el(tag, attributes = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
      if (name === "onclick") node.addEventListener("click", value);
      else if (name === "text") node.textContent = value;
      else if (value !== undefined && value !== null) node.setAttribute(name, value);
    }
    // Page conventions (docs/contract.md §5): every action is a named button.
    if (tag === "button" && attributes.id && !attributes.name) node.setAttribute("name", attributes.id);
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function table(id, headings, rows) {
    return el("table", { id },
      el("thead", {}, el("tr", {}, headings.map((h) => el("th", { text: h })))),
      el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((cell, i) =>
        el("td", { "data-label": headings[i] }, cell instanceof Node ? cell : String(cell ?? "")))))));
  }

  // An input named after what it carries (docs/contract.md §5): `name` is the setting or value.
  function field(id, label, value = "", kind = "input", options = [], name = id.replace(/^(setting|new|audit)_/, "")) {
    let control;
    if (kind === "select") {
      control = el("select", { id }, options.map((o) => el("option", { value: o, text: o })));
      control.value = value;
    } else if (kind === "textarea") {
      control = el("textarea", { id });
      control.value = value;
    } else {
      control = el("input", { id, type: kind });
      control.value = value;
    }
    control.setAttribute("name", name);
    return [el("label", { for: id, text: label }), control];
  }

  function say(text, isError = false) {
    const message = $("message");
    message.textContent = text;
    message.className = isError ? "error" : "";
    message.hidden = !text;
  }

  // Runs an action with the page marked busy; its error, if any, is shown.
  async function busy(action) {
    running += 1;
    document.body.dataset.busy = "1";
    try {
      await action();
    } catch (error) {
      say(error.message || String(error), true);
    } finally {
      running -= 1;
      if (running === 0) document.body.dataset.busy = "0";
    }
  }

  // Moves to a page and draws it once (the hashchange the move causes is ignored).
  async function go(hash) {
    if (location.hash !== hash) {
      ownHashChange = true;
      location.hash = hash;
    }
    await route();
  }

  async function call(method, path, body) {
    const headers = { Accept: "application/json" };
    if (csrf) headers["X-CSRF-Token"] = csrf;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method, headers, credentials: "same-origin", cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json().catch(() => ({}));
    if (!response.ok) {
      if (response.status === 401 && csrf && path.startsWith("/api/admin/")) signedOut("The session ended; sign in again.");
      const error = new Error(json.message || json.error_description || `HTTP ${response.status}`);
      error.reason = json.reason;
      throw error;
    }
    return json;
  }

  const lines = (text) => text.split("\n").map((l) => l.trim()).filter((l) => l);

  // A destructive button asks for a second click.
  function confirmButton(label, className, action, name = className.split(" ").pop()) {
    const button = el("button", { type: "button", class: className, text: label, name });
    button.addEventListener("click", () => {
      if (button.dataset.armed !== "1") {
        button.dataset.armed = "1";
        button.textContent = "Click again to confirm";
        return;
      }
      busy(action);
    });
    return button;
  }

  // -- session ----------------------------------------------------------------------------------

  function signedIn(session) {
    csrf = session.csrf_token;
    $("signin_view").hidden = true;
    $("nav").hidden = false;
    $("sign_out").hidden = false;
    $("operator").textContent = "Signed in with " + session.passkey_name;
    return go(location.hash || "#applications");
  }

  function signedOut(text = "") {
    csrf = null;
    $("signin_view").hidden = false;
    $("view").hidden = true;
    $("nav").hidden = true;
    $("sign_out").hidden = true;
    $("operator").textContent = "";
    say(text);
  }

  async function signIn() {
    say("");
    const options = await call("POST", "/admin/session/options");
    const credential = await navigator.credentials.get({ publicKey: UMFAWebAuthn.requestOptions(options.publicKey) });
    let session;
    try {
      session = await call("POST", "/admin/session", { credential: UMFAWebAuthn.credentialJSON(credential) });
    } catch (error) {
      // A console passkey the server no longer holds: the device forgets it (Signal API).
      UMFAWebAuthn.signalIfUnknown(error.reason, options.publicKey.rpId, credential.id);
      throw error;
    }
    await signedIn(session);
  }

  async function enroll() {
    say("");
    const token = $("admin_token").value.trim();
    if (!token) throw new Error("Type the admin token first.");
    const options = await call("POST", "/admin/session/enroll-options", { admin_token: token });
    const credential = await navigator.credentials.create({ publicKey: UMFAWebAuthn.creationOptions(options.publicKey) });
    const body = { admin_token: token, credential: UMFAWebAuthn.credentialJSON(credential) };
    if ($("passkey_name").value.trim()) body.name = $("passkey_name").value.trim();
    const session = await call("POST", "/admin/session/enroll", body);
    $("admin_token").value = "";
    await signedIn(session);
    say("Passkey enrolled; you are signed in.");
  }

  async function signOut() {
    await call("DELETE", "/admin/session");
    signedOut("Signed out.");
  }

  // -- pages ------------------------------------------------------------------------------------

  function show(title, ...content) {
    const view = $("view");
    view.replaceChildren(el("h2", { text: title }), ...content.flat(Infinity).filter((c) => c !== null));
    view.hidden = false;
    for (const link of document.querySelectorAll("nav a")) {
      link.classList.toggle("current", location.hash.startsWith(link.getAttribute("href")));
    }
  }

  async function loadApplications() {
    applications = (await call("GET", "/api/admin/applications")).applications;
    return applications;
  }

  function applicationSelect(id, selected, allowAll = false) {
    const options = (allowAll ? [el("option", { value: "", text: "All applications" })] : []).concat(
      applications.map((a) => el("option", { value: a.application_id, text: `${a.name} (${a.application_id})` })));
    const select = el("select", { id, name: "application_id" }, options);
    if (selected) select.value = selected;
    return select;
  }

  async function applicationsPage() {
    await loadApplications();
    show("Applications",
      table("applications_table", ["Name", "RP ID", "Policy", "Id"], applications.map((a) => [
        el("a", { href: `#application/${a.application_id}`, text: a.name }), a.rp_id, a.enrollment_policy,
        el("code", { text: a.application_id })])),
      el("h3", { text: "New application" }),
      field("new_app_name", "Name"), field("new_app_rp_id", "RP ID (a domain, such as shop.example)"),
      field("new_app_origins", "Origins, one per line", "", "textarea"),
      el("button", { type: "button", id: "create_app", text: "Create application", onclick: () => busy(async () => {
        const created = await call("POST", "/api/admin/applications", {
          name: $("new_app_name").value.trim(), rp_id: $("new_app_rp_id").value.trim(),
          origins: lines($("new_app_origins").value),
        });
        await go(`#application/${created.application_id}`);
        $("view").append(el("h3", { text: "First API key (shown once)" }),
          el("span", { class: "secret", id: "new_api_key", text: created.api_key }));
        say(`Application ${created.name} created.`);
      }) }));
  }

  const settingFields = [
    ["name", "Name"], ["rp_name", "RP name"], ["origins", "Origins, one per line", "list"],
    ["enrollment_policy", "Enrollment policy", ["grant", "open"]],
    ["user_verification", "User verification", ["required", "preferred", "discouraged"]],
    ["attestation", "Attestation", ["none", "indirect", "direct", "enterprise"]],
    ["attestation_policy", "Attestation policy", ["any", "self_or_trusted", "trusted"]],
    ["token_ttl_seconds", "Login token lifetime (seconds)", "number"],
    ["token_signing_alg", "Token signing algorithm", ["RS256", "ES256", "EdDSA"]],
    ["signup", "Account creation on hosted pages", ["enabled", "disabled"]],
    ["dpop_nonce", "DPoP nonce", ["off", "required"]],
    ["webhook_url", "Webhook URL (https, or http to a loopback address; empty: none)", "optional"],
    ["aaguid_allow", "Allowed AAGUIDs, one per line (empty: any)", "list"],
    ["aaguid_deny", "Denied AAGUIDs, one per line", "list"],
    ["apple_app_ids", "Apple app ids (TEAMID.bundle.id), one per line", "list"],
    ["android_apps", "Android apps (package=SHA256:FINGERPRINT), one per line", "android"],
  ];

  function settingControls(app) {
    return settingFields.map(([name, label, kind]) => {
      const value = app[name];
      if (Array.isArray(kind)) return field(`setting_${name}`, label, value, "select", kind);
      if (kind === "list") return field(`setting_${name}`, label, (value || []).join("\n"), "textarea");
      if (kind === "android") {
        const text = (value || []).map((a) => `${a.package_name}=${a.sha256_cert_fingerprints.join(",")}`).join("\n");
        return field(`setting_${name}`, label, text, "textarea");
      }
      return field(`setting_${name}`, label, value ?? "", kind === "number" ? "number" : "input");
    });
  }

  function settingValues(app) {
    const body = {};
    for (const [name, , kind] of settingFields) {
      const raw = $(`setting_${name}`).value;
      let value;
      if (kind === "list") value = lines(raw);
      else if (kind === "android") {
        value = lines(raw).map((line) => {
          const [packageName, prints = ""] = line.split("=");
          return { package_name: packageName.trim(), sha256_cert_fingerprints: prints.split(",").map((p) => p.trim()).filter((p) => p) };
        });
      } else if (kind === "number") value = Number(raw);
      else value = raw.trim();
      if (name === "aaguid_allow" && value.length === 0) value = null;
      let current = name === "aaguid_allow" ? (app[name] ?? null) : (app[name] ?? (kind === "list" ? [] : null));
      if (kind === "optional") current = current ?? "";
      if (JSON.stringify(value) !== JSON.stringify(current)) body[name] = value;
    }
    return body;
  }

  function showWebhookSecret(secret) {
    $("view").append(el("h3", { text: "Webhook secret (shown once)" }),
      el("span", { class: "secret", id: "new_webhook_secret", text: secret }));
  }

  async function applicationPage(id) {
    const app = await call("GET", `/api/admin/applications/${encodeURIComponent(id)}`);
    const keys = (await call("GET", `/api/admin/applications/${encodeURIComponent(id)}/api-keys`)).api_keys;
    const clients = (await call("GET", `/api/admin/applications/${encodeURIComponent(id)}/oauth-clients`)).clients;
    const issuer = `${location.origin}/oidc/${app.application_id}`;
    show(app.name,
      el("p", { class: "muted" }, "Id ", el("code", { text: app.application_id }), ". ", app.enrollment_policy_description || ""),
      el("h3", { text: "Settings" }), settingControls(app),
      el("button", { type: "button", id: "save_settings", text: "Save settings", onclick: () => busy(async () => {
        const changes = settingValues(app);
        if (Object.keys(changes).length === 0) { say("Nothing changed."); return; }
        const saved = await call("PATCH", `/api/admin/applications/${encodeURIComponent(id)}`, changes);
        await applicationPage(id);
        if (saved.webhook_secret) showWebhookSecret(saved.webhook_secret);
        say("Settings saved: " + Object.keys(changes).join(", ") + ".");
      }) }),
      el("h3", { text: "Webhooks" }),
      el("p", { class: "muted", text: app.webhook_url
        ? `Out-of-band transaction changes are POSTed to ${app.webhook_url}, signed in UMFA-Signature.`
        : "No webhook URL: set one in the settings above." }),
      app.webhook_url ? confirmButton("Rotate the webhook secret", "secondary rotate_webhook_secret", async () => {
        const rotated = await call("POST", `/api/admin/applications/${encodeURIComponent(id)}/webhook-secret`);
        await applicationPage(id);
        showWebhookSecret(rotated.webhook_secret);
        say("Webhook secret rotated; the old one signs nothing from now on.");
      }) : null,
      el("h3", { text: "API keys" }),
      table("api_keys_table", ["Key id", "Created", ""], keys.map((k) => [
        el("code", { text: k.key_id }), k.created_at,
        confirmButton("Revoke", "danger revoke", async () => {
          await call("DELETE", `/api/admin/applications/${encodeURIComponent(id)}/api-keys/${encodeURIComponent(k.key_id)}`);
          await applicationPage(id);
          say(`API key ${k.key_id} revoked.`);
        })])),
      el("button", { type: "button", id: "add_api_key", class: "secondary", text: "Issue an API key", onclick: () => busy(async () => {
        const made = await call("POST", `/api/admin/applications/${encodeURIComponent(id)}/api-keys`);
        await applicationPage(id);
        $("view").append(el("h3", { text: "New API key (shown once)" }),
          el("span", { class: "secret", id: "new_api_key", text: made.api_key }));
        say(`API key ${made.key_id} issued; copy it now.`);
      }) }),
      el("h3", { text: "OAuth clients" }),
      el("p", { class: "muted" }, "Issuer ", el("code", { text: issuer })),
      table("oauth_clients_table", ["Name", "Client id", "Grants", "Authentication", ""], clients.map((c) => [
        c.client_name, el("code", { text: c.client_id }), (c.grant_types || []).join(" "), c.token_endpoint_auth_method,
        confirmButton("Delete", "danger delete_client", async () => {
          await call("DELETE", `/api/admin/applications/${encodeURIComponent(id)}/oauth-clients/${encodeURIComponent(c.client_id)}`);
          await applicationPage(id);
          say(`Client ${c.client_name} deleted.`);
        })])),
      field("new_client_name", "New client: name"),
      field("new_client_redirect_uris", "Redirect URIs, one per line", "", "textarea"),
      field("new_client_grant_types", "Grant types", "authorization_code refresh_token"),
      field("new_client_auth_method", "Client authentication", "client_secret_basic", "select",
        ["client_secret_basic", "client_secret_post", "none", "private_key_jwt", "client_secret_jwt"]),
      field("new_client_scope", "Scopes", "openid profile email offline_access"),
      el("button", { type: "button", id: "create_client", class: "secondary", text: "Register client", onclick: () => busy(async () => {
        const grants = $("new_client_grant_types").value.split(/\s+/).filter((g) => g);
        const made = await call("POST", `/api/admin/applications/${encodeURIComponent(id)}/oauth-clients`, {
          client_name: $("new_client_name").value.trim(), redirect_uris: lines($("new_client_redirect_uris").value),
          grant_types: grants, response_types: grants.includes("authorization_code") ? ["code"] : [],
          token_endpoint_auth_method: $("new_client_auth_method").value, scope: $("new_client_scope").value.trim(),
        });
        await applicationPage(id);
        if (made.client_secret) {
          $("view").append(el("h3", { text: "Client secret (shown once)" }),
            el("span", { class: "secret", id: "new_client_secret", text: made.client_secret }));
        }
        say(`Client ${made.client_id} registered.`);
      }) }),
      el("h3", { text: "App-site association" }),
      el("p", {}, "Served for every application's native apps: ",
        el("a", { href: "/.well-known/apple-app-site-association", text: "apple-app-site-association" }), " and ",
        el("a", { href: "/.well-known/assetlinks.json", text: "assetlinks.json" }), "."));
  }

  async function usersPage(appID, query) {
    await loadApplications();
    appID = appID || (applications[0] && applications[0].application_id) || "";
    const path = `/api/admin/applications/${encodeURIComponent(appID)}/users` + (query ? `?query=${encodeURIComponent(query)}` : "");
    const users = appID ? (await call("GET", path)).users : [];
    const search = () => { location.hash = `#users/${$("users_app").value}/${encodeURIComponent($("user_query").value.trim())}`; };
    show("Users",
      el("label", { for: "users_app", text: "Application" }), applicationSelect("users_app", appID),
      field("user_query", "User id or e-mail (empty: the newest users)", query || ""),
      el("button", { type: "button", id: "find_user", text: "Find", onclick: search }),
      table("users_table", ["User", "Display name", "E-mail", "Passkeys", "Since"], users.map((u) => [
        el("a", { href: `#user/${appID}/${encodeURIComponent(u.user_id)}`, text: u.user_id }), u.display_name,
        u.email || "", u.credential_count, u.created_at])));
  }

  async function userPage(appID, userID) {
    const base = `/api/admin/applications/${encodeURIComponent(appID)}/users/${encodeURIComponent(userID)}`;
    const credentials = (await call("GET", `${base}/credentials`)).credentials;
    show(`User ${userID}`,
      el("p", {}, el("a", { href: `#users/${appID}/`, text: "← all users" })),
      el("h3", { text: "Passkeys" }),
      table("credentials_table", ["Name", "Authenticator", "Created", "Last used", "Without username", ""], credentials.map((c) => [
        c.device_name || "", c.authenticator_name || c.aaguid, c.created_at, c.last_used_at || "never",
        c.discoverable === true ? "yes" : c.discoverable === false ? "no" : "unknown",
        confirmButton("Delete", "danger delete", async () => {
          await call("DELETE", `${base}/credentials/${encodeURIComponent(c.credential_id)}`);
          await userPage(appID, userID);
          say("Passkey deleted.");
        })])),
      el("h3", { text: "Enroll a device" }),
      el("p", { class: "muted", text: "A QR code for the user's phone: the app scans it and registers a passkey (docs/contract.md §7)." }),
      el("button", { type: "button", id: "enroll_device", class: "secondary", text: "Show an enrollment QR code", onclick: () => busy(async () => {
        const made = await call("POST", `${base}/enroll`);
        const enrollment = made.enrollment;
        $("view").append(
          el("img", { id: "enrollment_qr", src: enrollment.qrCode.dataUri, width: String(enrollment.qrCode.size),
            height: String(enrollment.qrCode.size), alt: "Enrollment QR code" }),
          el("p", {}, el("a", { id: "enrollment_link", href: enrollment.appLinkUri, text: "The app link" })));
        say("Scan the QR code with the app within 10 minutes.");
      }) }),
      el("h3", { text: "Recovery codes" }),
      el("p", { class: "muted", text: "New codes replace the user's earlier ones; they are shown once." }),
      el("button", { type: "button", id: "make_recovery_codes", class: "secondary", text: "Issue recovery codes", onclick: () => busy(async () => {
        const made = await call("POST", `${base}/recovery-codes`);
        $("view").append(el("span", { class: "secret", id: "recovery_codes", text: made.recovery_codes.join("  ") }));
        say("Recovery codes issued; hand them to the user now.");
      }) }));
  }

  async function auditPage(filters, cursor, previous = []) {
    await loadApplications();
    const query = new URLSearchParams({ limit: "50" });
    for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value);
    if (cursor) query.set("cursor", cursor);
    const page = await call("GET", "/api/admin/audit-events?" + query);
    const events = previous.concat(page.events);
    const apply = () => busy(() => auditPage({
      application_id: $("audit_app").value, user_id: $("audit_user").value.trim(), action: $("audit_action").value.trim(),
    }));
    show("Audit log",
      el("div", { class: "row" },
        el("div", {}, el("label", { for: "audit_app", text: "Application" }), applicationSelect("audit_app", filters.application_id, true)),
        el("div", {}, field("audit_user", "User", filters.user_id || "")),
        el("div", {}, field("audit_action", "Action", filters.action || ""))),
      el("button", { type: "button", id: "audit_filter", text: "Filter", onclick: apply }),
      el("p", { class: "muted", text: "Oldest first." }),
      table("audit_table", ["Time", "Action", "Actor", "User", "Address", "Trace id", "Details"], events.map((e) => [
        e.occurred_at, e.action, e.actor, e.user_id || "", e.client_address, el("code", { text: e.trace_id }),
        el("code", { text: JSON.stringify(e.details) })])),
      page.next_cursor
        ? el("button", { type: "button", id: "audit_more", class: "secondary", text: "More", onclick: () => busy(() => auditPage(filters, page.next_cursor, events)) })
        : null);
  }

  async function signingKeysPage() {
    const keys = (await call("GET", "/api/admin/signing-keys")).keys;
    show("Signing keys",
      el("p", { class: "muted", text: "The current key of each algorithm signs; retired keys still validate the tokens they signed until those expire." }),
      table("signing_keys_table", ["Key id", "Algorithm", "Created", "Retired"], keys.map((k) => [
        el("code", { text: k.kid }), k.alg, k.created_at, k.retired_at || "current"])),
      confirmButton("Rotate signing keys", "secondary", async () => {
        await call("POST", "/api/admin/signing-keys");
        await signingKeysPage();
        say("New signing keys are current.");
      }, "rotate_keys"));
    $("view").lastElementChild.id = "rotate_keys";
  }

  // The console's own passkeys and sessions. Removing a passkey ends its sessions, this one too
  // when it is the passkey signed in; the page then asks for a sign-in.
  async function consolePage() {
    const credentials = (await call("GET", "/api/admin/console/credentials")).credentials;
    const sessions = (await call("GET", "/api/admin/console/sessions")).sessions;
    const changed = async (text) => {
      try {
        await call("GET", "/admin/session");
      } catch {
        signedOut(text + " This session has ended; sign in again.");
        return;
      }
      await consolePage();
      say(text);
    };
    show("Console passkeys",
      el("p", { class: "muted", text: "Operators sign in with these passkeys. Removing one ends its sessions at once; "
        + "a server started with another admin token removes them all." }),
      table("console_credentials_table", ["Name", "Credential id", "Enrolled", "Last used", "Sessions", ""],
        credentials.map((c) => [
          c.name, el("code", { text: c.credential_id }), c.created_at, c.last_used_at || "never", c.sessions,
          confirmButton("Remove", "danger remove_console_credential", async () => {
            await call("DELETE", `/api/admin/console/credentials/${encodeURIComponent(c.credential_id)}`);
            // This device forgets it too, if it holds it (WebAuthn Signal API).
            UMFAWebAuthn.signal("signalUnknownCredential", consoleRpId, { credentialId: c.credential_id });
            await changed(`Passkey ${c.name} removed.`);
          })])),
      el("h3", { text: "Sessions" }),
      table("console_sessions_table", ["Passkey", "Started", "Ends", ""], sessions.map((s) => [
        s.passkey_name + (s.current ? " (this session)" : ""), s.created_at, s.expires_at,
        confirmButton("End", "danger end_console_session", async () => {
          await call("DELETE", `/api/admin/console/sessions/${encodeURIComponent(s.session_id)}`);
          await changed("Session ended.");
        })])));
  }

  async function route() {
    if (!csrf) return;
    say("");
    const [page, ...parts] = location.hash.slice(1).split("/");
    const part = (i) => decodeURIComponent(parts[i] || "");
    await busy(async () => {
      switch (page) {
        case "application": return applicationPage(part(0));
        case "users": return usersPage(part(0), part(1));
        case "user": return userPage(part(0), part(1));
        case "audit": return auditPage({});
        case "signing-keys": return signingKeysPage();
        case "console": return consolePage();
        default: return applicationsPage();
      }
    });
  }

  // -- start ------------------------------------------------------------------------------------

  $("sign_in").addEventListener("click", () => busy(signIn));
  $("enroll_passkey").addEventListener("click", () => busy(enroll));
  $("sign_out").addEventListener("click", () => busy(signOut));
  window.addEventListener("hashchange", () => {
    if (ownHashChange) {
      ownHashChange = false;
      return;
    }
    route();
  });
  busy(async () => {
    try {
      await signedIn(await call("GET", "/admin/session"));
    } catch {
      signedOut();
    }
  });
})();
