// The WebAuthn Level 3 JSON encodings for browsers with or without native support:
// options JSON -> navigator.credentials options, and a credential -> its JSON.
// Used by UMFA's hosted sign-in pages and the demo page. Plain JavaScript, nothing from
// another host.
"use strict";

window.UMFAWebAuthn = (() => {
  function toBase64URL(buffer) {
    let text = "";
    for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function fromBase64URL(value) {
    const text = value.replace(/-/g, "+").replace(/_/g, "/");
    const binary = atob(text + "===".slice((text.length + 3) % 4));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  const hasNativeJSON = () =>
    typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function" &&
    typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function";

  const descriptors = (list) => (list || []).map((d) => ({ ...d, id: fromBase64URL(d.id) }));

  // PRF inputs (WebAuthn L3 §10.1.4) are base64url in JSON and BufferSources for the browser.
  const prfValues = (values) => {
    const out = { first: fromBase64URL(values.first) };
    if (values.second !== undefined) out.second = fromBase64URL(values.second);
    return out;
  };

  function prfInputs(prf) {
    const out = {};
    if (prf.eval) out.eval = prfValues(prf.eval);
    if (prf.evalByCredential) {
      out.evalByCredential = {};
      for (const [id, values] of Object.entries(prf.evalByCredential)) out.evalByCredential[id] = prfValues(values);
    }
    return out;
  }

  // Decodes `extensions.prf` here whether or not the browser's own parser knows it: the parser
  // gets the options without it, and the decoded inputs go back in afterwards.
  function withPRF(json, parse) {
    const extensions = json.extensions || {};
    if (!extensions.prf) return parse(json);
    const { prf, ...rest } = extensions;
    const options = parse({ ...json, extensions: rest });
    options.extensions = { ...(options.extensions || {}), prf: prfInputs(prf) };
    return options;
  }

  function creationOptions(json) {
    return withPRF(json, (plain) => {
      if (hasNativeJSON()) return PublicKeyCredential.parseCreationOptionsFromJSON(plain);
      return {
        ...plain,
        challenge: fromBase64URL(plain.challenge),
        user: { ...plain.user, id: fromBase64URL(plain.user.id) },
        excludeCredentials: descriptors(plain.excludeCredentials),
      };
    });
  }

  function requestOptions(json) {
    return withPRF(json, (plain) => {
      if (hasNativeJSON()) return PublicKeyCredential.parseRequestOptionsFromJSON(plain);
      return { ...plain, challenge: fromBase64URL(plain.challenge), allowCredentials: descriptors(plain.allowCredentials) };
    });
  }

  // The client's extension outputs as JSON: PRF results (ArrayBuffers) become base64url.
  function extensionResultsJSON(credential) {
    const results = { ...credential.getClientExtensionResults() };
    if (results.prf) {
      const prf = { ...results.prf };
      if (prf.results) {
        const encoded = { first: toBase64URL(prf.results.first) };
        if (prf.results.second) encoded.second = toBase64URL(prf.results.second);
        prf.results = encoded;
      }
      results.prf = prf;
    }
    return results;
  }

  function credentialJSON(credential) {
    if (typeof credential.toJSON === "function") {
      return { ...credential.toJSON(), clientExtensionResults: extensionResultsJSON(credential) };
    }
    const r = credential.response;
    const response = { clientDataJSON: toBase64URL(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toBase64URL(r.attestationObject);
      if (r.getTransports) response.transports = r.getTransports();
      if (r.getAuthenticatorData) response.authenticatorData = toBase64URL(r.getAuthenticatorData());
      const key = r.getPublicKey ? r.getPublicKey() : null;
      if (key) response.publicKey = toBase64URL(key);
      if (r.getPublicKeyAlgorithm) response.publicKeyAlgorithm = r.getPublicKeyAlgorithm();
    } else {
      response.authenticatorData = toBase64URL(r.authenticatorData);
      response.signature = toBase64URL(r.signature);
      if (r.userHandle) response.userHandle = toBase64URL(r.userHandle);
    }
    const out = {
      id: credential.id,
      rawId: toBase64URL(credential.rawId),
      type: credential.type,
      response,
      clientExtensionResults: extensionResultsJSON(credential),
    };
    if (credential.authenticatorAttachment) out.authenticatorAttachment = credential.authenticatorAttachment;
    return out;
  }

  // The WebAuthn Signal API (WebAuthn L3 §5.1.10; Chromium 132+, Safari 26+): tells the
  // passkey manager what the server holds, so it stops offering passkeys the server no longer
  // knows and shows current names. Browsers without it skip this; nothing depends on it.
  // `name` is signalUnknownCredential, signalAllAcceptedCredentials or signalCurrentUserDetails.
  function signal(name, rpId, details) {
    if (!rpId || !window.PublicKeyCredential || typeof PublicKeyCredential[name] !== "function") return false;
    PublicKeyCredential[name]({ rpId, ...details }).catch(() => {});
    return true;
  }

  // After a refused sign-in: when the server said the credential the browser chose is unknown
  // to the application (`reason: "unknown_credential"`, only for discoverable sign-ins), the
  // passkey manager is told to forget it.
  function signalIfUnknown(reason, rpId, credentialId) {
    if (reason !== "unknown_credential" || !credentialId) return false;
    return signal("signalUnknownCredential", rpId, { credentialId });
  }

  return {
    toBase64URL, fromBase64URL, hasNativeJSON, creationOptions, requestOptions, credentialJSON, signal,
    signalIfUnknown,
  };
})();
