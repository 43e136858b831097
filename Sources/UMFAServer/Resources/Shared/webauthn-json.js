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

  function creationOptions(json) {
    if (hasNativeJSON()) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    return {
      ...json,
      challenge: fromBase64URL(json.challenge),
      user: { ...json.user, id: fromBase64URL(json.user.id) },
      excludeCredentials: descriptors(json.excludeCredentials),
    };
  }

  function requestOptions(json) {
    if (hasNativeJSON()) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    return { ...json, challenge: fromBase64URL(json.challenge), allowCredentials: descriptors(json.allowCredentials) };
  }

  function credentialJSON(credential) {
    if (typeof credential.toJSON === "function") return credential.toJSON();
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
      clientExtensionResults: credential.getClientExtensionResults(),
    };
    if (credential.authenticatorAttachment) out.authenticatorAttachment = credential.authenticatorAttachment;
    return out;
  }

  return { toBase64URL, fromBase64URL, hasNativeJSON, creationOptions, requestOptions, credentialJSON };
})();
