/// `POST <issuer>/attestation-challenge`: a challenge for one client attestation (docs/contract.md §6),
/// good once, for `expires_in` seconds. An iOS app passes SHA-256 of its UTF-8 bytes to
/// `attestKey` as `clientDataHash`; an Android app sets its UTF-8 bytes as the key's
/// attestation challenge.
public struct AttestationChallengeResponse: ContractBody, Equatable {
    /// The challenge.
    public var challenge: String
    /// Seconds it stays good.
    public var expiresIn: Int

    /// Creates an answer.
    public init(challenge: String, expiresIn: Int) {
        self.challenge = challenge
        self.expiresIn = expiresIn
    }

    enum CodingKeys: String, CodingKey {
        case challenge
        case expiresIn = "expires_in"
    }

    /// An example with every member.
    public static let example = AttestationChallengeResponse(challenge: "umfa_ac_x", expiresIn: 300)
}

// MARK: - openapi.yaml

extension AttestationChallengeResponse: DocumentedFields {
    static let schemaDescription: String? =
        "A challenge for one client attestation: SHA-256 of its UTF-8 bytes is App Attest's clientDataHash; its UTF-8 bytes are an Android key's attestation challenge"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .challenge: .plain
        case .expiresIn: .plain
        }
    }
}
