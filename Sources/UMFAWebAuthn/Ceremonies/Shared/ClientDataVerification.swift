import Crypto
import UMFAEncoding

/// The client data checks that registration and authentication share.
struct ClientDataVerification {
    /// The section (`7.1` or `7.2`) and the step numbers of type, challenge, origin,
    /// crossOrigin and topOrigin in it.
    struct Steps {
        let section: String
        let type: Int
        let challenge: Int
        let origin: Int
        let crossOrigin: Int
        let topOrigin: Int

        func name(_ number: Int) -> String { "\(section) step \(number)" }

        static let registration = Steps(
            section: "7.1", type: 7, challenge: 8, origin: 9, crossOrigin: 10, topOrigin: 11)
        static let authentication = Steps(
            section: "7.2", type: 10, challenge: 11, origin: 12, crossOrigin: 13, topOrigin: 14)
    }

    let expectedType: String
    let expectedChallenge: [UInt8]
    let origins: OriginPolicy
    let steps: Steps

    func verify(_ clientData: CollectedClientData) throws(WebAuthnError) {
        // Step 7 / 10: the ceremony type.
        guard clientData.type == expectedType else {
            throw WebAuthnError(
                .wrongCeremonyType, "clientDataJSON type is \"\(clientData.type)\", expected \"\(expectedType)\"",
                step: steps.name(steps.type))
        }
        // Step 8 / 11: the challenge equals the base64url encoding of the issued one.
        guard constantTimeEqual(Array(clientData.challenge.utf8), Array(Base64URL.encode(expectedChallenge).utf8))
        else {
            throw WebAuthnError(
                .challengeMismatch, "clientDataJSON challenge is not the one issued", step: steps.name(steps.challenge))
        }
        // Step 9 / 12: the origin is one the relying party expects.
        guard origins.allows(clientData.origin) else {
            throw WebAuthnError(
                .originNotAllowed, "origin \"\(clientData.origin)\" is not allowed", step: steps.name(steps.origin))
        }
        // Step 10 / 13: a cross-origin iframe only when the relying party expects one.
        if clientData.crossOrigin == true, !origins.allowCrossOrigin {
            throw WebAuthnError(
                .crossOriginNotAllowed, "the ceremony ran in a cross-origin iframe, which is not allowed",
                step: steps.name(steps.crossOrigin))
        }
        // Step 11 / 14: the top-level origin is one expected to embed the relying party.
        if let topOrigin = clientData.topOrigin {
            guard origins.allowCrossOrigin, origins.allowsTopOrigin(topOrigin) else {
                throw WebAuthnError(
                    .topOriginNotAllowed, "top origin \"\(topOrigin)\" is not allowed",
                    step: steps.name(steps.topOrigin))
            }
        }
    }
}

/// Compares two byte strings in time that depends only on their lengths.
public func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
    return difference == 0
}

extension RelyingPartyPolicy {
    /// SHA-256 of the RP ID, which authenticator data must carry.
    var rpIDHash: [UInt8] { Array(SHA256.hash(data: Array(rpID.utf8))) }
}
