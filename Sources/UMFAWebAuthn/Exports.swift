// The byte and JSON encodings (base64url, hex, JSON values) live in `UMFAEncoding`, which the
// storage and token targets use without the relying-party core; everything that imports
// `UMFAWebAuthn` keeps seeing them.
@_exported import UMFAEncoding
