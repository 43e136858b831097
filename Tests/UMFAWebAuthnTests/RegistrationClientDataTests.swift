import Testing
import UMFAEncoding
import UMFAWebAuthn

/// §7.1 steps 5–11: the client data of a registration.
@Suite("Registration client data (§7.1 steps 5–11)")
struct RegistrationClientDataTests {
    @Test("step 5: client data that is not UTF-8 is refused")
    func notUTF8() async {
        var factory = RegistrationFactory.es256()
        factory.clientData.rawOverride =
            Array(#"{"type":"webauthn.create","origin":""#.utf8) + [0xff, 0xfe] + [0x22, 0x7d]
        await expectRegistrationFailure(.malformedResponse, step: "7.1 step 5", factory)
    }

    @Test("step 6: client data that is not JSON is refused")
    func notJSON() async {
        var factory = RegistrationFactory.es256()
        factory.clientData.rawOverride = Array("type=webauthn.create".utf8)
        await expectRegistrationFailure(.malformedResponse, step: "7.1 step 6", factory)
    }

    @Test(
        "step 6: JSON that is not a CollectedClientData object is refused",
        arguments: [
            #"["webauthn.create"]"#, #"{"type":"webauthn.create","challenge":"AAEC"}"#,
            #"{"type":1,"challenge":"AAEC","origin":"https://example.org"}"#,
            #"{"type":"webauthn.create","challenge":"AAEC","origin":"https://example.org","crossOrigin":"yes"}"#, "",
        ])
    func wrongShape(json: String) async {
        var factory = RegistrationFactory.es256()
        factory.clientData.rawOverride = Array(json.utf8)
        await expectRegistrationFailure(.malformedResponse, step: "7.1 step 6", factory)
    }

    @Test("step 6: client data in UTF-16 is not UTF-8 JSON and is refused", arguments: [false, true])
    func utf16(bigEndian: Bool) async {
        var factory = RegistrationFactory.es256()
        let units = Array(String(decoding: factory.clientData.bytes, as: UTF8.self).utf16)
        factory.clientData.rawOverride = units.flatMap { unit in
            let bytes = [UInt8(unit & 0xff), UInt8(unit >> 8)]
            return bigEndian ? bytes.reversed() : bytes
        }
        await expectRegistrationFailure(.malformedResponse, step: "7.1 step 6", factory)
    }

    @Test("step 6: a tokenBinding status outside TokenBindingStatus is refused, a legacy string ignored")
    func tokenBinding() async throws {
        let challenge = Base64URL.encode(Fixture.challenge)
        let prefix = #"{"type":"webauthn.create","challenge":"\#(challenge)","origin":"https://example.org""#
        var factory = RegistrationFactory.es256()
        factory.clientData.rawOverride = Array((prefix + #","tokenBinding":{"status":"not-supported"}}"#).utf8)
        await expectRegistrationFailure(.malformedResponse, step: "7.1 step 6", factory)

        factory.clientData.rawOverride = Array((prefix + #","tokenBinding":"unused"}"#).utf8)
        let legacy = try await RegistrationVerifier(policy: Fixture.policy()).verify(factory)
        #expect(legacy.clientData.tokenBindingStatus == nil)

        factory.clientData.rawOverride = Array((prefix + #","tokenBinding":{"status":"present","id":"AA"}}"#).utf8)
        let present = try await RegistrationVerifier(policy: Fixture.policy()).verify(factory)
        #expect(present.clientData.tokenBindingStatus == "present")
    }

    @Test("step 7: an assertion's client data type is refused at registration")
    func wrongType() async {
        var factory = RegistrationFactory.es256()
        factory.clientData.type = CollectedClientData.getType
        await expectRegistrationFailure(.wrongCeremonyType, step: "7.1 step 7", factory)
    }

    @Test("step 8: a challenge other than the one issued is refused")
    func wrongChallenge() async {
        var factory = RegistrationFactory.es256()
        factory.clientData.challenge = Base64URL.encode(Array(repeating: 7, count: 32))
        await expectRegistrationFailure(.challengeMismatch, step: "7.1 step 8", factory)
    }

    @Test("step 8: the challenge must be the unpadded base64url text, not the standard alphabet")
    func challengeEncoding() async {
        var factory = RegistrationFactory.es256()
        factory.challenge = [0xfb, 0xff, 0xfe] + Array(repeating: 0, count: 29)
        factory.clientData.challenge = Base64URL.encode(factory.challenge).replacingOccurrences(of: "-", with: "+")
        await expectRegistrationFailure(.challengeMismatch, step: "7.1 step 8", factory)
    }

    @Test(
        "step 9: an origin the relying party does not list is refused",
        arguments: [
            "https://evil.example", "https://login.example.org", "http://example.org", "https://example.org:8443",
        ]
    )
    func wrongOrigin(origin: String) async {
        var factory = RegistrationFactory.es256()
        factory.clientData.origin = origin
        await expectRegistrationFailure(.originNotAllowed, step: "7.1 step 9", factory)
    }

    @Test("step 10: a cross-origin iframe is refused unless the relying party expects one")
    func crossOrigin() async throws {
        var factory = RegistrationFactory.es256()
        factory.clientData.crossOrigin = true
        await expectRegistrationFailure(.crossOriginNotAllowed, step: "7.1 step 10", factory)

        let allowing = Fixture.policy { $0.origins.allowCrossOrigin = true }
        let result = try await RegistrationVerifier(policy: allowing).verify(factory)
        #expect(result.clientData.crossOrigin == true)
    }

    @Test("step 11: a top origin the relying party does not expect is refused")
    func wrongTopOrigin() async throws {
        var factory = RegistrationFactory.es256()
        factory.clientData.crossOrigin = true
        factory.clientData.topOrigin = "https://evil.example"
        let policy = Fixture.policy {
            $0.origins.allowCrossOrigin = true
            $0.origins.allowedTopOrigins = [Fixture.topOrigin]
        }
        await expectRegistrationFailure(.topOriginNotAllowed, step: "7.1 step 11", policy: policy, factory)

        factory.clientData.topOrigin = Fixture.topOrigin
        let result = try await RegistrationVerifier(policy: policy).verify(factory)
        #expect(result.clientData.topOrigin == Fixture.topOrigin)
    }

    @Test("step 11: a top origin is refused when cross-origin embedding is not expected at all")
    func topOriginWithoutCrossOrigin() async {
        var factory = RegistrationFactory.es256()
        factory.clientData.topOrigin = Fixture.topOrigin
        let policy = Fixture.policy { $0.origins.allowedTopOrigins = [Fixture.topOrigin] }
        await expectRegistrationFailure(.topOriginNotAllowed, step: "7.1 step 11", policy: policy, factory)
    }

    @Test("steps 5–6: client data with a UTF-8 byte order mark is accepted and hashed as sent")
    func byteOrderMark() async throws {
        var factory = RegistrationFactory.es256(.packedSelf)
        factory.clientData.byteOrderMark = true
        let result = try await RegistrationVerifier(policy: Fixture.policy()).verify(factory)
        #expect(result.clientData.rawBytes.starts(with: [0xef, 0xbb, 0xbf]))
        #expect(result.clientData.origin == Fixture.origin)
        #expect(result.attestation.type == .self)
    }

    @Test(
        "step 9: native-app origins are accepted when listed, and only then",
        arguments: [
            "ios:bundle-id:com.example.app", "android:apk-key-hash:zY8xJX3tA6hTgyQbvW5s-2cBbTvD8N3fEC9XdS6JBqc",
        ]
    )
    func nativeAppOrigin(origin: String) async throws {
        var factory = RegistrationFactory.es256()
        factory.clientData.origin = origin
        let policy = Fixture.policy(origins: [Fixture.origin, origin])
        let result = try await RegistrationVerifier(policy: policy).verify(factory)
        #expect(result.clientData.origin == origin)
        #expect(result.record.id == factory.credentialID)

        await expectRegistrationFailure(.originNotAllowed, step: "7.1 step 9", factory)
    }
}
