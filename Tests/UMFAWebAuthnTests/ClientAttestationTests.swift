import Crypto
import Foundation
import Testing
import UMFAAttestationTestSupport
import UMFACBOR
import UMFAEncoding
import X509

@testable import UMFAWebAuthn

/// A real App Attest attestation from an iPhone (see the resource's `source`).
struct AppAttestSample: Decodable {
    let source: String
    let attestationObject: String
    let clientDataHash: String
    let keyId: String
    let teamIdentifier: String
    let bundleIdentifier: String
    let publicKey: String
    let time: String

    static func load() throws -> AppAttestSample {
        try VectorLoader.load(AppAttestSample.self, from: "appattest-ios-14.4")
    }

    var appID: String { teamIdentifier + "." + bundleIdentifier }
    var object: [UInt8] { Array(Data(base64Encoded: attestationObject) ?? Data()) }
    var hash: [UInt8] { Array(Data(base64Encoded: clientDataHash) ?? Data()) }
    var key: [UInt8] { Array(Data(base64Encoded: keyId) ?? Data()) }
    var at: Date { ISO8601DateFormatter().date(from: time) ?? .distantPast }
}

@Suite("Client attestation: Apple App Attest")
struct AppAttestVerifierTests {
    static let verifier = AppAttestVerifier(anchors: .wellKnown())

    @Test("a real iPhone attestation verifies against Apple's App Attestation root, for its app, at its time")
    func realSample() async throws {
        let sample = try AppAttestSample.load()
        let result = try await Self.verifier.verify(
            attestationObject: sample.object, clientDataHash: sample.hash,
            appIDs: ["ABCDE12345.com.example.other", sample.appID], keyID: sample.key, at: sample.at)
        #expect(result.appID == sample.appID)
        #expect(result.keyID == sample.key)
        #expect(result.development)
        // The key is the one the sample's SubjectPublicKeyInfo names (its last 65 bytes).
        let spki = Array(Data(base64Encoded: sample.publicKey) ?? Data())
        #expect(result.publicKey == Array(spki.suffix(65)))
    }

    @Test("the real attestation is refused for another app, another challenge, key, time, root or environment")
    func realSampleRefusals() async throws {
        let sample = try AppAttestSample.load()
        func refusal(
            _ verifier: AppAttestVerifier = AppAttestVerifierTests.verifier, hash: [UInt8]? = nil,
            appIDs: [String]? = nil, keyID: [UInt8]? = nil, at time: Date? = nil
        ) async -> String {
            do {
                _ = try await verifier.verify(
                    attestationObject: sample.object, clientDataHash: hash ?? sample.hash,
                    appIDs: appIDs ?? [sample.appID], keyID: keyID ?? sample.key, at: time ?? sample.at)
                return "accepted"
            } catch {
                return error.message
            }
        }
        #expect(await refusal(appIDs: ["6MURL8TA57.de.vincent-haupert.other"]).contains("rpIdHash"))
        #expect(await refusal(hash: Array(SHA256.hash(data: Array("another challenge".utf8)))).contains("nonce"))
        #expect(await refusal(keyID: [UInt8](repeating: 7, count: 32)).contains("key id"))
        #expect(await refusal(at: sample.at.addingTimeInterval(7 * 86_400)).contains("chain"))
        #expect(
            await refusal(AppAttestVerifier(anchors: .wellKnown(), allowDevelopment: false)).contains("development"))
        // Apple's WebAuthn root does not vouch for App Attest keys.
        let webAuthnOnly = AttestationTrustAnchors(
            rootsByFormat: ["apple-appattest": [try WellKnownRoot.appleWebAuthnRoot.certificate]])
        #expect(await refusal(AppAttestVerifier(anchors: webAuthnOnly)).contains("chain"))
    }

    /// An App Attest object issued by `pki`, each part breakable.
    static func testObject(
        pki: TestPKI, appID: String = "TEAM123456.com.example.shop", hash: [UInt8], counter: UInt32 = 0,
        aaguid: [UInt8] = AppAttestVerifier.productionAAGUID, credentialID: [UInt8]? = nil,
        format: String = "apple-appattest"
    ) throws -> [UInt8] {
        let key = P256.Signing.PrivateKey()
        let keyID = Array(SHA256.hash(data: Array(key.publicKey.x963Representation)))
        let data = AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Array(appID.utf8))), flags: [], signCount: counter,
            attestedCredentialData: AttestedCredentialData(
                aaguid: aaguid, credentialID: credentialID ?? keyID, publicKey: COSEKey(p256: key.publicKey)))
        let nonce = Array(SHA256.hash(data: data.rawBytes + hash))
        let leaf = try pki.certificate(
            for: .init(key.publicKey), subject: try DistinguishedName { CommonName(Hex.encode(keyID)) },
            extensions: [
                Certificate.Extension(
                    oid: [1, 2, 840, 113635, 100, 8, 2], critical: false,
                    value: ArraySlice(DERBuilder.sequence([DERBuilder.explicit(1, DERBuilder.octets(nonce))])))
            ])
        let statement = CBORMap([
            "x5c": .array([.byteString(try AttestationSigner.der(leaf))]), "receipt": .byteString([1]),
        ])
        return AttestationObject(format: format, statement: statement, authenticatorData: data).encoded
    }

    @Test("test-CA objects: production accepted; counter, AAGUID, credential id and format each refused")
    func testCA() async throws {
        let pki = try TestPKI()
        let verifier = AppAttestVerifier(
            anchors: AttestationTrustAnchors(rootsByFormat: ["apple-appattest": [pki.root]]))
        let hash = Array(SHA256.hash(data: Array("challenge".utf8)))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let apps = ["TEAM123456.com.example.shop"]
        let good = try await verifier.verify(
            attestationObject: try Self.testObject(pki: pki, hash: hash), clientDataHash: hash, appIDs: apps, at: now)
        #expect(!good.development && good.appID == apps[0])
        let cases: [([UInt8], String)] = [
            (try Self.testObject(pki: pki, hash: hash, counter: 1), "counter"),
            (try Self.testObject(pki: pki, hash: hash, aaguid: [UInt8](repeating: 0, count: 16)), "AAGUID"),
            (try Self.testObject(pki: pki, hash: hash, credentialID: [1, 2, 3]), "credential id"),
            (try Self.testObject(pki: pki, hash: hash, format: "apple"), "fmt"),
            (try Self.testObject(pki: try TestPKI(), hash: hash), "chain"),
        ]
        for (object, reason) in cases {
            await #expect(throws: WebAuthnError.self, "\(reason)") {
                try await verifier.verify(attestationObject: object, clientDataHash: hash, appIDs: apps, at: now)
            }
            do {
                _ = try await verifier.verify(attestationObject: object, clientDataHash: hash, appIDs: apps, at: now)
            } catch {
                #expect(error.message.contains(reason), "\(reason): \(error.message)")
            }
        }
    }
}

@Suite("Client attestation: Android key attestation")
struct AndroidAppAttestationTests {
    static let digest = Array(SHA256.hash(data: Array("signing certificate".utf8)))
    static let app = AcceptedAndroidApp(packageName: "com.example.shop", signingCertificateDigests: [digest])
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    struct Knobs {
        var challenge = Array("challenge".utf8)
        var securityLevel = 1
        var origin = 0
        var packageName = "com.example.shop"
        var digest = AndroidAppAttestationTests.digest
        var withApplicationID = true
    }

    static func chain(pki: TestPKI, _ knobs: Knobs = Knobs()) throws -> [[UInt8]] {
        let key = P256.Signing.PrivateKey()
        let applicationID = DERBuilder.sequence([
            DERBuilder.set([
                DERBuilder.sequence([DERBuilder.octets(Array(knobs.packageName.utf8)), DERBuilder.integer(3)])
            ]),
            DERBuilder.set([DERBuilder.octets(knobs.digest)]),
        ])
        let software = DERBuilder.sequence(
            knobs.withApplicationID ? [DERBuilder.explicit(709, DERBuilder.octets(applicationID))] : [])
        let hardware = DERBuilder.sequence([
            DERBuilder.explicit(1, DERBuilder.set([DERBuilder.integer(2)])),
            DERBuilder.explicit(702, DERBuilder.integer(knobs.origin)),
        ])
        let description = DERBuilder.sequence([
            DERBuilder.integer(4), DERBuilder.enumerated(knobs.securityLevel), DERBuilder.integer(4),
            DERBuilder.enumerated(knobs.securityLevel), DERBuilder.octets(knobs.challenge), DERBuilder.octets([]),
            software, hardware,
        ])
        let leaf = try pki.certificate(
            for: .init(key.publicKey), subject: try DistinguishedName { CommonName("Android Keystore Key") },
            extensions: [
                Certificate.Extension(
                    oid: [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17], critical: false, value: ArraySlice(description))
            ])
        return [try AttestationSigner.der(leaf), try AttestationSigner.der(pki.root)]
    }

    @Test("a hardware key of an accepted, correctly signed package with the challenge is accepted; each fault refused")
    func chains() async throws {
        let pki = try TestPKI()
        let verifier = AndroidAppAttestationVerifier(
            anchors: AttestationTrustAnchors(rootsByFormat: ["android-key": [pki.root]]))
        let challenge = Array("challenge".utf8)
        let result = try await verifier.verify(
            chain: try Self.chain(pki: pki), challenge: challenge, apps: [Self.app], at: Self.now)
        #expect(result.packageName == "com.example.shop" && result.securityLevel == 1)
        var cases: [(Knobs, String)] = []
        var knobs = Knobs()
        knobs.challenge = Array("replayed".utf8)
        cases.append((knobs, "challenge"))
        knobs = Knobs()
        knobs.securityLevel = 0
        cases.append((knobs, "software"))
        knobs = Knobs()
        knobs.origin = 2
        cases.append((knobs, "generated"))
        knobs = Knobs()
        knobs.packageName = "com.example.evil"
        cases.append((knobs, "not one this application accepts"))
        knobs = Knobs()
        knobs.digest = [UInt8](repeating: 1, count: 32)
        cases.append((knobs, "not one this application accepts"))
        knobs = Knobs()
        knobs.withApplicationID = false
        cases.append((knobs, "names no application"))
        for (knobs, reason) in cases {
            let chain = try Self.chain(pki: pki, knobs)
            do {
                _ = try await verifier.verify(chain: chain, challenge: challenge, apps: [Self.app], at: Self.now)
                Issue.record("\(reason): accepted")
            } catch {
                #expect(error.message.contains(reason), "\(reason): \(error.message)")
            }
        }
        // Another CA's chain, and Google's real roots for a test chain: untrusted.
        for (chain, anchors) in [
            (try Self.chain(pki: try TestPKI()), verifier.anchors), (try Self.chain(pki: pki), .wellKnown()),
        ] {
            do {
                _ = try await AndroidAppAttestationVerifier(anchors: anchors)
                    .verify(chain: chain, challenge: challenge, apps: [Self.app], at: Self.now)
                Issue.record("an untrusted chain was accepted")
            } catch {
                #expect(error.message.contains("chain"), "\(error.message)")
            }
        }
    }
}
