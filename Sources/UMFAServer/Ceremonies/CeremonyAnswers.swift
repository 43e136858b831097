/// `{trace_id, publicKey}`: the answer of both options routes.
struct OptionsAnswer<Options: Encodable>: Encodable {
    let traceID: String
    let publicKey: Options

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case publicKey
    }
}

/// `{trace_id, user_id, credential_id, token}`: the answer of both verify routes.
struct CeremonyAnswer: Encodable {
    let traceID: String
    let userID: String
    let credentialID: String
    let token: String

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case userID = "user_id"
        case credentialID = "credential_id"
        case token
    }
}
