/// Why a JWS or a JWK is refused: a ``code`` to decide by and a message for people (compared by
/// code only).
package struct JOSEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal.
    package enum Code: String, Sendable, Equatable {
        /// Not three base64url parts joined by dots (RFC 7515 §7.1), or a header or payload that
        /// is not a JSON object.
        case notCompactJWS
        /// A key with private or symmetric members, where a public key is wanted.
        case privateKey
        /// A member the key type requires is absent or empty.
        case missingMember
        /// A member is there but its value is not valid for the key type.
        case invalidMember
        /// The key type or curve does not fit the algorithm, or the key is too weak.
        case unsupportedKey
    }

    /// What kind of refusal.
    package let code: Code
    /// What is wrong, such as `jwk has no x`.
    package let message: String

    /// Creates an error.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Compared by code only: the message is for people.
    package static func == (lhs: JOSEError, rhs: JOSEError) -> Bool { lhs.code == rhs.code }

    /// The message.
    package var description: String { message }
}
