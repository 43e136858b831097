import Crypto
import Foundation
import UMFAAttestationTestSupport
import UMFACBOR
import UMFAWebAuthn
import X509

/// Builds a genuine `android-key` statement: a leaf certificate for the credential key with a
/// key description extension, signed by the test root; knobs break each §8.4 requirement.
struct AndroidKeyStatement {
    var pki: TestPKI
    /// Replaces the attestationChallenge.
    var challenge: [UInt8]?
    var allApplicationsIn: AuthorizationListSide?
    var origin = 0
    var purposes = [2]
    /// Where purpose and origin are written.
    var side = AuthorizationListSide.hardware
    var certifyOtherKey = false
    var includeExtension = true
    var malformedExtension = false

    enum AuthorizationListSide { case software, hardware }

    init(pki: TestPKI) { self.pki = pki }

    var attestation: RegistrationFactory.Attestation { .custom(format: "android-key", build) }

    func build(_ input: RegistrationFactory.StatementInput) throws -> CBORMap {
        let certified = certifyOtherKey ? TestKey.p256(P256.Signing.PrivateKey()) : input.credentialKey
        var extensions: [Certificate.Extension] = []
        if includeExtension {
            let value =
                malformedExtension ? [0x30, 0x03, 0x02, 0x01] : keyDescription(input.clientDataHash)
            extensions.append(
                Certificate.Extension(
                    oid: [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17], critical: false, value: ArraySlice(value)))
        }
        let leaf = try pki.certificate(
            for: try certified.certificatePublicKey,
            subject: try DistinguishedName { CommonName("Android Keystore Key") }, extensions: extensions)
        return CBORMap([
            "alg": CBORValue(Int64(input.credentialKey.algorithm.rawValue)),
            // The certified key signs, so a foreign key reaches step 3 rather than failing step 2.
            "sig": .byteString(try certified.sign(input.signedData)),
            "x5c": .array([
                .byteString(try AttestationSigner.der(leaf)), .byteString(try AttestationSigner.der(pki.root)),
            ]),
        ])
    }

    func keyDescription(_ clientDataHash: [UInt8]) -> [UInt8] {
        func list(_ own: AuthorizationListSide) -> [UInt8] {
            var entries: [[UInt8]] = []
            if side == own {
                entries.append(DERBuilder.explicit(1, DERBuilder.set(purposes.map(DERBuilder.integer))))
            }
            if allApplicationsIn == own { entries.append(DERBuilder.explicit(600, DERBuilder.null)) }
            if side == own { entries.append(DERBuilder.explicit(702, DERBuilder.integer(origin))) }
            return DERBuilder.sequence(entries)
        }
        return DERBuilder.sequence([
            DERBuilder.integer(3), DERBuilder.enumerated(1), DERBuilder.integer(4), DERBuilder.enumerated(1),
            DERBuilder.octets(challenge ?? clientDataHash), DERBuilder.octets([]), list(.software), list(.hardware),
        ])
    }
}

/// Builds a genuine `apple` statement: a leaf for the credential key with the nonce extension.
struct AppleStatement {
    var pki: TestPKI
    var nonce: [UInt8]?
    var certifyOtherKey = false
    var includeExtension = true
    var malformedExtension = false

    init(pki: TestPKI) { self.pki = pki }

    var attestation: RegistrationFactory.Attestation { .custom(format: "apple", build) }

    func build(_ input: RegistrationFactory.StatementInput) throws -> CBORMap {
        let certified = certifyOtherKey ? TestKey.p256(P256.Signing.PrivateKey()) : input.credentialKey
        var extensions: [Certificate.Extension] = []
        if includeExtension {
            let expected = nonce ?? Array(SHA256.hash(data: input.signedData))
            let value =
                malformedExtension
                ? DERBuilder.sequence([DERBuilder.explicit(2, DERBuilder.octets(expected))])
                : DERBuilder.sequence([DERBuilder.explicit(1, DERBuilder.octets(expected))])
            extensions.append(
                Certificate.Extension(oid: [1, 2, 840, 113635, 100, 8, 2], critical: false, value: ArraySlice(value)))
        }
        let leaf = try pki.certificate(
            for: try certified.certificatePublicKey, subject: try DistinguishedName { CommonName("UMFA Apple test") },
            extensions: extensions)
        return CBORMap(["x5c": .array([.byteString(try AttestationSigner.der(leaf))])])
    }
}
