import UMFAEncoding
import UMFAWebAuthnTypes

/// A request or response body of the UMFA HTTP API v1 (docs/contract.md §2).
///
/// Every body encodes and decodes, so the server, the SDK, the command-line tool, the
/// benchmarks and the tests speak through the same types. ``example`` sets every optional
/// member: the `openapi.yaml` generator encodes it to learn the type's fields and their JSON
/// types, and removes them one by one to learn which are required (a member is required when
/// the example without it does not decode).
public protocol ContractBody: Codable, Sendable {
    /// A value with every optional member present.
    static var example: Self { get }
}

/// A response body that echoes the request's trace id (or carries a new one).
public protocol TraceCarrying {
    /// The request's trace id.
    var traceID: String { get }
}

/// Example values shared by the bodies' ``ContractBody/example``s.
enum Examples {
    static let applicationID = "1b0c3d4e-5f60-4a1b-8c2d-3e4f5a6b7c8d"
    static let traceID = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
    static let time = "2026-11-23T10:00:00.000Z"
    static let bytes = Base64URLBytes([1, 2, 3, 4])

    static let registrationResponse = RegistrationResponseJSON(
        rawId: bytes, response: AttestationResponseJSON(clientDataJSON: bytes, attestationObject: bytes))

    static let authenticationResponse = AuthenticationResponseJSON(
        rawId: bytes,
        response: AssertionResponseJSON(clientDataJSON: bytes, authenticatorData: bytes, signature: bytes))
}

extension Decoder {
    /// Throws `keyNotFound` for the first of `members` that the object being decoded lacks: an
    /// answer about a configured object has every member it always shows.
    func requireMembers<Key: CodingKey>(_ members: some Sequence<Key>) throws {
        let container = try container(keyedBy: Key.self)
        for member in members where !container.contains(member) {
            throw DecodingError.keyNotFound(
                member, .init(codingPath: codingPath, debugDescription: "an answer has every setting"))
        }
    }
}
