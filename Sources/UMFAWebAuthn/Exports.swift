// The binary structures moved to `UMFAWebAuthnModel` so that clients build them without X.509;
// the relying-party core re-exports them, so `import UMFAWebAuthn` still names them all.
@_exported import UMFAWebAuthnModel
