/// The backchannel authentication endpoint's answer (OpenID CIBA Core 1.0 §7.3): the id the
/// client polls the token endpoint with (or is pinged about), how long it lives, and how often
/// to poll.
public struct BackchannelAuthenticationResponse: ContractBody, Equatable {
    /// The request's id, for the token endpoint (`grant_type` `urn:openid:params:grant-type:ciba`).
    public var authReqID: String
    /// Seconds until the request expires.
    public var expiresIn: Int
    /// Seconds the client waits between polls.
    public var interval: Int

    /// Creates an answer.
    public init(authReqID: String, expiresIn: Int, interval: Int) {
        self.authReqID = authReqID
        self.expiresIn = expiresIn
        self.interval = interval
    }

    enum CodingKeys: String, CodingKey {
        case authReqID = "auth_req_id"
        case expiresIn = "expires_in"
        case interval
    }

    /// An example with every member.
    public static let example = BackchannelAuthenticationResponse(
        authReqID: "umfa_ar_Zm9vYmFy", expiresIn: 300, interval: 5)
}

/// The ping a client in ping mode receives (OpenID CIBA Core 1.0 §10.2), with its
/// `client_notification_token` as a bearer token: the request ended; fetch the result from the
/// token endpoint.
public struct BackchannelPing: Codable, Sendable, Equatable {
    /// The request that ended.
    public var authReqID: String

    /// Creates a ping.
    public init(authReqID: String) { self.authReqID = authReqID }

    enum CodingKeys: String, CodingKey {
        case authReqID = "auth_req_id"
    }
}

// MARK: - openapi.yaml

extension BackchannelAuthenticationResponse: DocumentedFields {
    static let schemaDescription: String? =
        "OpenID CIBA Core 1.0 §7.3 successful authentication request acknowledgement"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .authReqID: FieldDoc("For the token endpoint's urn:openid:params:grant-type:ciba grant")
        case .expiresIn: FieldDoc("Seconds: requested_expiry from 60 to 600, else 300")
        case .interval: FieldDoc("Seconds between polls (5); slow_down adds 5")
        }
    }
}
