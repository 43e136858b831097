import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

@Suite("validate-token refusals")
struct ValidateTokenTests {
    static let jwtPrefix = "Validate token failed with: MFA login JWT was invalid: Invalid JWT: "
    static let credentialPrefix = "Validate token failed with: MFA credential was invalid: "

    @Test("JWT mode: each broken property is refused with 401 and its documented reason")
    func jwtRefusals() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let device = Device.make()
            _ = try await api.register(
                app, user: "alice", device: device, enrollmentToken: try await api.enrollmentToken(app, user: "alice"))
            let token = try await api.authenticate(app, user: "alice", device: device).token
            let jwt = try CompactJWT(token)
            let signer = try await ServerSigningKey.load(from: api.directory)

            // Re-signing the unchanged token is accepted, so each refusal below is about its one change.
            let resigned = try jwt.resigned(changing: [:], with: signer.key)
            #expect(try await api.validate(app, user: "alice", token: .string(resigned)).status == .ok)

            let cases: [(String, String, String)] = [
                (
                    "no user_id", try jwt.resigned(changing: ["user_id": nil], with: signer.key),
                    "There is no user_id claim"
                ),
                ("no iat", try jwt.resigned(changing: ["iat": nil], with: signer.key), "There is no iat claim"),
                (
                    "no webauthn_time", try jwt.resigned(changing: ["webauthn_time": nil], with: signer.key),
                    "There is no webauthn_time claim"
                ),
                (
                    "foreign issuer", try jwt.resigned(changing: ["iss": .string("Someone::Else")], with: signer.key),
                    "the issuer is not UMFA::Authenticator"
                ),
                (
                    "unknown kid",
                    try jwt.resigned(changing: [:], header: ["kid": .string("no-such-key")], with: signer.key),
                    "the signing key no-such-key is unknown"
                ),
                (
                    "alg none", try jwt.resigned(changing: [:], header: ["alg": .string("none")], with: signer.key),
                    "the algorithm must be RS256, ES256 or EdDSA"
                ),
                (
                    "critical extension",
                    try jwt.resigned(changing: [:], header: ["crit": .array([.string("exp")])], with: signer.key),
                    "the header names critical extensions"
                ),
                (
                    "claims of the wrong type",
                    try jwt.resigned(changing: ["user_id": .array([.string("alice")])], with: signer.key),
                    "the claims are not a JSON object of the expected types"
                ),
                ("tampered signature", Self.flipLastSignatureCharacter(token), "the signature does not verify"),
                ("tampered claims", try Self.swapClaims(of: token, userID: "mallory"), "the signature does not verify"),
                ("not a JWT", "definitely-not-a-jwt", "the token is not a JWT"),
            ]
            for (name, forged, reason) in cases {
                let traceID = "t-" + name.replacingOccurrences(of: " ", with: "-")
                let reply = try await api.validate(app, user: "alice", token: .string(forged), traceID: traceID)
                expectError(reply, .unauthorized, message: Self.jwtPrefix + reason, traceID: traceID)
            }

            let mismatch = try await api.validate(app, user: "bob", token: .string(token))
            expectError(mismatch, .unauthorized, message: Self.jwtPrefix + "the user_id claim does not match the user")

            let foreign = try await api.validate(other, user: "alice", token: .string(token))
            expectError(
                foreign, .unauthorized, message: Self.jwtPrefix + "the token was issued for another application")

            api.clock.advance(by: 301)
            let expired = try await api.validate(app, user: "alice", token: .string(token))
            expectError(expired, .unauthorized, message: Self.jwtPrefix + "the token has expired")
        }
    }

    @Test("credential mode: unknown, foreign, expired challenges and other users are refused")
    func credentialRefusals() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let device = Device.make()
            _ = try await api.register(
                app, user: "alice", device: device, enrollmentToken: try await api.enrollmentToken(app, user: "alice"))
            let unknownChallenge = "The challenge is unknown, expired or already used"

            let options = try await api.authenticationOptions(app, user: "alice")
            var request = try #require(options["publicKey"]).decoded(RequestOptionsJSON.self)
            request.challenge = Base64URLBytes(Array(repeating: 7, count: 32))
            let invented = try device.get(request, userVerified: true)
            let inventedReply = try await api.validate(
                app, user: "alice", token: try .encoding(invented), type: "credential")
            expectError(inventedReply, .unauthorized, message: Self.credentialPrefix + unknownChallenge)

            let forOther = try await api.assertion(app, user: "alice", device: device)
            let otherReply = try await api.validate(
                other, user: "alice", token: try .encoding(forOther), type: "credential")
            expectError(otherReply, .unauthorized, message: Self.credentialPrefix + unknownChallenge)

            let forBob = try await api.assertion(app, user: "alice", device: device)
            let bobReply = try await api.validate(app, user: "bob", token: try .encoding(forBob), type: "credential")
            expectError(
                bobReply, .unauthorized, message: Self.credentialPrefix + "The challenge was issued for another user")

            let late = try await api.assertion(app, user: "alice", device: device)
            api.clock.advance(by: 301)
            let lateReply = try await api.validate(app, user: "alice", token: try .encoding(late), type: "credential")
            expectError(lateReply, .unauthorized, message: Self.credentialPrefix + unknownChallenge)

            let garbage = try await api.validate(
                app, user: "alice", token: .object(["id": .string("x")]), type: "credential")
            expectError(garbage, .badRequest, containing: "token is not an AuthenticationResponseJSON")
        }
    }

    @Test("malformed requests get 400, missing or foreign API keys 401")
    func requestRefusals() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let other = try await api.createApplication(policy: "grant")
            let path = APIOperation.validateToken.path
            let notUUID = try await api.post(
                path, .object(["application_id": "not-a-uuid", "user_id": "alice", "token": "x"]), bearer: app.apiKey)
            expectError(notUUID, .badRequest, message: "application_id must be a UUID")
            let noUser = try await api.post(
                path, .object(["application_id": .string(app.id), "token": "x", "trace_id": "v-1"]), bearer: app.apiKey)
            expectError(noUser, .badRequest, message: "user_id is required", traceID: "v-1")
            let noToken = try await api.post(
                path, .object(["application_id": .string(app.id), "user_id": "alice"]), bearer: app.apiKey)
            expectError(noToken, .badRequest, message: "token is required")
            let badType = try await api.validate(app, user: "alice", token: "x", type: "saml")
            expectError(badType, .badRequest, message: #"token_type must be "jwt" or "credential""#)
            let objectJWT = try await api.validate(app, user: "alice", token: .object([:]))
            expectError(objectJWT, .badRequest, message: "token must be a string when token_type is jwt")

            let foreignKey = try await api.validate(app, user: "alice", token: "x", key: other.apiKey, traceID: "v-2")
            expectError(
                foreignKey, .unauthorized, message: "The API key is not valid for this application", traceID: "v-2")
            let noKey = try await api.post(
                path, .object(["application_id": .string(app.id), "user_id": "alice", "token": "x"]))
            expectError(noKey, .unauthorized, message: "Missing API key: send Authorization: Bearer <API key>")
            let noKeyGarbage = try await api.send(.post, path, raw: "{not json")
            expectError(noKeyGarbage, .unauthorized, message: "Missing API key: send Authorization: Bearer <API key>")
        }
    }

    static func flipLastSignatureCharacter(_ token: String) -> String {
        var characters = Array(token)
        let index = characters.count - 2
        characters[index] = characters[index] == "A" ? "B" : "A"
        return String(characters)
    }

    static func swapClaims(of token: String, userID: String) throws -> String {
        let parts = token.split(separator: ".").map(String.init)
        var claims = try CompactJWT(token).claims.objectValue ?? [:]
        claims["user_id"] = .string(userID)
        return parts[0] + "." + Base64URL.encode(try JSONEncoder().encode(JSONValue.object(claims))) + "." + parts[2]
    }
}
