import Foundation
import UMFAEncoding
import UMFAWebAuthn

/// The fixed relying party the verifier targets check fuzzed responses against: the W3C test
/// vectors' RP (`example.org`) with every supported algorithm and attestation format, and the
/// `none-es256` vector's challenges and credential, so seeds taken from that vector pass and
/// the fuzzer's mutations of them reach every step of the ceremonies.
public enum FuzzFixtures {
    /// The W3C test vectors' relying party.
    public static let policy = RelyingPartyPolicy(
        rpID: "example.org", origins: OriginPolicy(allowed: ["https://example.org"]))

    /// A fixed verification time, so certificate validity does not depend on the day the
    /// fuzzer runs (2025-01-01, when the W3C vectors' certificates are valid).
    public static let verificationTime = Date(timeIntervalSince1970: 1_735_689_600)

    /// The challenge of the `none-es256` registration vector.
    public static let registrationChallenge =
        Hex.decode(
            "00c30fb78531c464d2b6771dab8d7b603c01162f2fa486bea70f283ae556e130") ?? []

    /// The challenge of the `none-es256` authentication vector.
    public static let authenticationChallenge =
        Hex.decode(
            "39c0e7521417ba54d43e8dc95174f423dee9bf3cd804ff6d65c857c9abf4d408") ?? []

    /// The `none-es256` registration's attestation object.
    static let registrationAttestationObject =
        Hex.decode(
            "a363666d74646e6f6e656761747453746d74a068617574684461746158a4bfabc37432958b063360d3ad6461c9c4735a"
                + "e7f8edd46592a5e0f01452b2e4b559000000008446ccb9ab1db374750b2367ff6f3a1f0020f91f391db4c9b2fde0ea70"
                + "189cba3fb63f579ba6122b33ad94ff3ec330084be4a5010203262001215820afefa16f97ca9b2d23eb86ccb64098d20d"
                + "b90856062eb249c33a9b672f26df61225820930a56b87a2fca66334b03458abf879717c12cc68ed73290af2e2664796b"
                + "9220")
        ?? []

    /// The stored credential assertions are checked against, or `nil` when the vector does not
    /// parse (then the target still fuzzes the parsing steps).
    public static let credential: CredentialRecord? = {
        guard let object = try? AttestationObject(bytes: registrationAttestationObject),
            let attested = object.authenticatorData.attestedCredentialData
        else { return nil }
        return CredentialRecord(
            id: attested.credentialID, publicKey: attested.publicKey, signCount: 0, userHandle: [],
            uvInitialized: object.authenticatorData.flags.isUserVerified,
            backupEligible: object.authenticatorData.flags.isBackupEligible,
            backupState: object.authenticatorData.flags.isBackedUp, aaguid: attested.aaguid)
    }()
}
