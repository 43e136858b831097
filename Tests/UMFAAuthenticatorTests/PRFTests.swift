import Crypto
import Foundation
import Synchronization
import Testing
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// The PRF vectors that Tests/Interop/test_prf_hmac_secret.py reproduces with Python `fido2`.
struct PRFVectors: Decodable {
    struct Case: Decodable {
        let name: String
        let userVerified: Bool
        let prf: JSONValue
        let results: JSONValue
        let allow: [Base64URLBytes]?
    }

    let credentialId: Base64URLBytes
    let credRandomWithUV: Base64URLBytes
    let credRandomWithoutUV: Base64URLBytes
    let cases: [Case]

    static func load() throws -> PRFVectors {
        let url = try #require(
            Bundle.module.url(forResource: "prf-vectors", withExtension: "json", subdirectory: "Resources"))
        return try JSONDecoder().decode(PRFVectors.self, from: Data(contentsOf: url))
    }
}

/// Random bytes that come from a script first (credential id, CredRandom with UV, without UV).
final class ScriptedRandom: Sendable {
    private let queue: Mutex<[[UInt8]]>

    init(_ values: [[UInt8]]) { queue = Mutex(values) }

    func callAsFunction(_ count: Int) -> [UInt8] {
        queue.withLock { values in
            guard let next = values.first, next.count == count else {
                return SoftwareAuthenticator.systemRandomBytes(count)
            }
            values.removeFirst()
            return next
        }
    }
}

enum PRFFixture {
    static func client(
        store: any CredentialStore = InMemoryCredentialStore(), extensions: AuthenticatorExtensions = .all,
        random: ScriptedRandom = ScriptedRandom([])
    ) -> WebAuthnClient {
        WebAuthnClient(
            origin: Fixture.origin,
            authenticator: SoftwareAuthenticator(
                store: store, deviceKey: PINFixture.deviceKey, scryptRounds: PINFixture.fastRounds,
                extensions: extensions, randomBytes: { random($0) }))
    }

    static func eval(_ first: String, _ second: String? = nil) -> [String: JSONValue] {
        ["prf": PRFResults.input(first: Array(first.utf8), second: second.map { Array($0.utf8) })]
    }

    static func request(allow: [[UInt8]], extensions: [String: JSONValue]?) -> RequestOptionsJSON {
        var options = Fixture.requestOptions(allow: allow)
        options.extensions = extensions
        return options
    }

    static func creation(_ extensions: [String: JSONValue]?, residentKey: ResidentKeyRequirement? = nil)
        -> CreationOptionsJSON
    {
        var options = Fixture.creationOptions(residentKey: residentKey)
        options.extensions = extensions
        return options
    }
}

@Suite("PRF over hmac-secret")
struct PRFTests {
    @Test("the authenticator and client give the vectors' outputs, which Python fido2 reproduces")
    func vectors() throws {
        let vectors = try PRFVectors.load()
        #expect(vectors.cases.count >= 4)
        for vector in vectors.cases {
            let random = ScriptedRandom([
                vectors.credentialId.bytes, vectors.credRandomWithUV.bytes, vectors.credRandomWithoutUV.bytes,
            ])
            let client = PRFFixture.client(random: random)
            let created = try client.create(PRFFixture.creation(["prf": .object([:])]), userVerified: false)
            #expect(created.rawId == vectors.credentialId)
            #expect(created.clientExtensionResults["prf"] == .object(["enabled": .bool(true)]))
            let allow = vector.allow?.map(\.bytes) ?? [vectors.credentialId.bytes]
            let extensions = try #require(vector.prf.objectValue)
            let asserted = try client.get(
                PRFFixture.request(allow: allow, extensions: ["prf": .object(extensions)]),
                userVerified: vector.userVerified)
            #expect(asserted.clientExtensionResults["prf"] == .object(["results": vector.results]), "\(vector.name)")
        }
    }

    @Test("outputs are the same at every sign-in, differ per input and between UV and no UV")
    func stableOutputs() throws {
        let client = PRFFixture.client()
        let created = try client.create(PRFFixture.creation(PRFFixture.eval("a")), userVerified: false)
        let id = created.rawId.bytes
        let createdResults = try #require(PRFResults(clientExtensionResults: created.clientExtensionResults))
        let first = try #require(
            PRFResults(
                clientExtensionResults: try client.get(
                    PRFFixture.request(allow: [id], extensions: PRFFixture.eval("a", "b")), userVerified: false
                ).clientExtensionResults))
        let again = try client.get(
            PRFFixture.request(allow: [id], extensions: PRFFixture.eval("a")), userVerified: false)
        let verified = try client.get(
            PRFFixture.request(allow: [id], extensions: PRFFixture.eval("a")), userVerified: true)
        #expect(first.first.count == 32)
        #expect(first.second?.count == 32)
        #expect(first.first != first.second)
        #expect(PRFResults(clientExtensionResults: again.clientExtensionResults)?.first == first.first)
        #expect(PRFResults(clientExtensionResults: again.clientExtensionResults)?.second == nil)
        #expect(PRFResults(clientExtensionResults: verified.clientExtensionResults)?.first != first.first)
        // hmac-secret-mc at creation: the same CredRandom (no UV) as the later assertion.
        #expect(createdResults.first == first.first)
    }

    @Test("an authenticator without hmac-secret reports prf.enabled false and no results")
    func unsupported() throws {
        let client = PRFFixture.client(extensions: AuthenticatorExtensions.all.subtracting(.hmacSecret))
        let created = try client.create(PRFFixture.creation(PRFFixture.eval("a")), userVerified: true)
        #expect(created.clientExtensionResults["prf"] == .object(["enabled": .bool(false)]))
        #expect(PRFResults.enabled(in: created.clientExtensionResults) == false)
        let asserted = try client.get(
            PRFFixture.request(allow: [created.rawId.bytes], extensions: PRFFixture.eval("a")), userVerified: true)
        #expect(asserted.clientExtensionResults["prf"] == .object([:]))
        #expect(PRFResults(clientExtensionResults: asserted.clientExtensionResults) == nil)
    }

    @Test("a credential stored before hmac-secret decodes and supports no PRF")
    func olderCredential() throws {
        let store = InMemoryCredentialStore()
        let old = PRFFixture.client(store: store, extensions: [])
        let created = try old.create(Fixture.creationOptions(), userVerified: false)
        let stored = try #require(store.allCredentials().first)
        var fields = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(stored)) as? [String: Any])
        #expect(fields["sealedCredRandom"] == nil)
        fields["credentialProtection"] = nil
        let decoded = try JSONDecoder().decode(
            CredentialSource.self, from: JSONSerialization.data(withJSONObject: fields))
        #expect(decoded.credentialProtection == .userVerificationOptional)
        let asserted = try PRFFixture.client(store: store).get(
            PRFFixture.request(allow: [created.rawId.bytes], extensions: PRFFixture.eval("a")), userVerified: false)
        #expect(asserted.clientExtensionResults["prf"] == .object([:]))
    }

    @Test("CredRandom is sealed with the key: a new PIN keeps the outputs, another device key opens nothing")
    func sealedWithTheKey() throws {
        let store = InMemoryCredentialStore()
        let random = ScriptedRandom([Array(repeating: 9, count: 32), Array(repeating: 7, count: 32)])
        let client = PRFFixture.client(store: store, random: random)
        let created = try client.create(PRFFixture.creation(["prf": .object([:])]), verification: .secret(.pin, "4711"))
        let stored = try #require(store.allCredentials().first)
        let sealed = try #require(stored.sealedCredRandom).bytes
        #expect(!Self.contains(sealed, Array(repeating: 7, count: 32)))
        let options = PRFFixture.request(allow: [created.rawId.bytes], extensions: PRFFixture.eval("a"))
        let before = try client.get(options, verification: .secret(.pin, "4711")).clientExtensionResults
        try client.authenticator.changeSecret(.pin, from: "4711", to: "8812")
        let after = try client.get(options, verification: .secret(.pin, "8812")).clientExtensionResults
        #expect(PRFResults(clientExtensionResults: before) != nil)
        #expect(before["prf"] == after["prf"])
        let stranger = WebAuthnClient(
            origin: Fixture.origin,
            authenticator: SoftwareAuthenticator(store: store, scryptRounds: PINFixture.fastRounds))
        #expect(throws: AuthenticatorError.self) { try stranger.get(options, verification: .secret(.pin, "8812")) }
    }

    @Test("evalByCredential: refused at registration, needs an allow list, names only allowed credentials")
    func evalByCredentialRules() throws {
        let client = PRFFixture.client()
        let byCredential: [String: JSONValue] = [
            "prf": .object(["evalByCredential": .object([Base64URL.encode([1, 2]): .object(["first": .string("AA")])])])
        ]
        #expect(throws: AuthenticatorError(.notSupported, "")) {
            try client.create(PRFFixture.creation(byCredential), userVerified: false)
        }
        let created = try client.create(Fixture.creationOptions(residentKey: .required), userVerified: false)
        #expect(throws: AuthenticatorError(.notSupported, "")) {
            try client.get(PRFFixture.request(allow: [], extensions: byCredential), userVerified: false)
        }
        #expect(throws: AuthenticatorError(.invalidData, "")) {
            try client.get(
                PRFFixture.request(allow: [created.rawId.bytes], extensions: byCredential), userVerified: false)
        }
    }

    @Test("hmac-secret salts must be 32 bytes (CTAP 2.1 §12.5)")
    func saltLength() {
        #expect(throws: AuthenticatorError(.invalidData, "")) { try HMACSecretSalts(salt1: [1, 2, 3]) }
        #expect(throws: AuthenticatorError(.invalidData, "")) {
            try HMACSecretSalts(salt1: Array(repeating: 0, count: 32), salt2: [1])
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
