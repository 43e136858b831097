import Foundation
import Testing
import UMFAAuthenticator
import UMFAWebAuthn

@testable import UMFA

@Suite("PIN and password on the device")
struct PINTests {
    /// An open application and a device whose passkeys are protected by what `pad` types.
    /// The seals use a small scrypt N so the many PIN checks stay fast; `defaultCost` checks
    /// that an app's configuration gets the full cost.
    static func pinDevice(
        _ server: LiveServer, _ storage: DeviceStorage, pad: SecretPad, password: Bool = false,
        fullCost: Bool = false
    ) async throws -> (TestApplication, ZSMConfig) {
        let app = try await server.createApplication(policy: "open")
        var config = server.config(app, storage: storage)
        config.userVerification = password ? .password(pad.provider) : .pin(pad.provider)
        config.enrollmentTokenProvider = server.grants(app)
        if !fullCost { config.scryptRounds = 1 << 10 }
        return (app, config)
    }

    /// The stored protection of the passkey `credentialId` in `storage`.
    static func protection(_ storage: DeviceStorage, _ credentialId: String) throws -> KeyProtection {
        let data = try Data(contentsOf: try storage.keyFile(credentialID: credentialId))
        return try JSONDecoder().decode(CredentialSource.self, from: data).protection
    }

    @Test("the right PIN signs in and amr says pin; wrong PINs count down across clients; a right one resets")
    func rightAndWrongPIN() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let pad = SecretPad("4711")
            let (app, config) = try await Self.pinDevice(server, storage, pad: pad)
            let enrolled = try await UMFAClient(config).enroll(userId: "dave")
            #expect(enrolled.userVerification == "pin")
            #expect(pad.prompts == [.create(userId: "dave")])

            let login = try await UMFAClient(config).authenticate(userId: "dave")
            #expect(pad.prompts.last == .enter(userId: "dave"))
            #expect(login.userVerification == "pin")
            #expect(try jwtClaims(login.token)["amr"]?.strings.contains("pin") == true)
            #expect(try await server.validate(app, user: "dave", token: login.token).status == 200)

            pad.type("0000")
            let wrong = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "dave")
            }
            #expect(wrong?.code == .userVerificationFailed)
            #expect(wrong?.recovery == .retry)
            #expect(wrong?.message == "wrong pin; 7 attempts left")
            // A new client on the same device sees the same count.
            let again = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "dave")
            }
            #expect(again?.message == "wrong pin; 6 attempts left")

            pad.type("4711")
            _ = try await UMFAClient(config).authenticate(userId: "dave")
            pad.type("1111")
            let reset = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "dave")
            }
            #expect(reset?.message == "wrong pin; 7 attempts left")
        }
    }

    @Test(
        "eight wrong PINs in a row lock that passkey, even for the right PIN; another passkey keeps its own count; enrolling again is the way back"
    )
    func lockout() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let pad = SecretPad("2468")
            let (app, config) = try await Self.pinDevice(server, storage, pad: pad)
            let first = try await UMFAClient(config).enroll(userId: "erin")
            let finn = try await UMFAClient(config).enroll(userId: "finn")
            pad.type("1357")
            for attempt in 1...8 {
                let error = await #expect(throws: ZSMError.self) {
                    try await UMFAClient(config).authenticate(userId: "erin")
                }
                #expect(error?.code == (attempt < 8 ? .userVerificationFailed : .lockedOut), "attempt \(attempt)")
            }
            pad.type("2468")
            let locked = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "erin")
            }
            #expect(locked?.code == .lockedOut)
            #expect(locked?.recovery == .startOver)
            #expect(locked?.message.contains("too many wrong attempts") == true)
            #expect(await UMFAClient(config).unenroll(userId: "erin") == false)
            // finn's passkey counts its own attempts: none were wrong.
            #expect(try await UMFAClient(config).authenticate(userId: "finn").credentialId == finn.credentialId)

            // Start over: a new grant, a new PIN; the locked passkey is erased, finn's stays.
            pad.type("9999")
            let second = try await UMFAClient(config).enroll(userId: "erin")
            #expect(second.credentialId != first.credentialId)
            let expected = try [second, finn].map { try storage.keyFile(credentialID: $0.credentialId) }
            #expect(try storage.keyFiles() == expected.sorted { $0.path < $1.path })
            let login = try await UMFAClient(config).authenticate(userId: "erin")
            #expect(login.credentialId == second.credentialId)
            #expect(try await server.validate(app, user: "erin", token: login.token).status == 200)
        }
    }

    @Test("a right PIN for the thief's own passkey does not reset the count of the owner's: alternating still locks it")
    func alternatingPasskeysDoNotResetTheCount() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let pad = SecretPad("4711")
            let (_, config) = try await Self.pinDevice(server, storage, pad: pad)
            _ = try await UMFAClient(config).enroll(userId: "owner")
            pad.type("1234")
            _ = try await UMFAClient(config).enroll(userId: "thief")
            for attempt in 1...8 {
                pad.type(String(format: "%04d", 5000 + attempt))
                let error = await #expect(throws: ZSMError.self) {
                    try await UMFAClient(config).authenticate(userId: "owner")
                }
                #expect(error?.code == (attempt < 8 ? .userVerificationFailed : .lockedOut), "attempt \(attempt)")
                pad.type("1234")
                _ = try await UMFAClient(config).authenticate(userId: "thief")
            }
            pad.type("4711")
            let locked = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "owner")
            }
            #expect(locked?.code == .lockedOut)
        }
    }

    @Test("a new PIN of fewer than 4 digits, or not all digits, is refused before anything is stored")
    func weakPIN() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let pad = SecretPad("123")
            let (_, config) = try await Self.pinDevice(server, storage, pad: pad)
            for pin in ["1", "123", "12ab"] {
                pad.type(pin)
                let error = await #expect(throws: ZSMError.self) {
                    try await UMFAClient(config).enroll(userId: "ivy")
                }
                #expect(error?.code == .userVerificationFailed, "PIN \(pin)")
                #expect(error?.recovery == .retry)
                #expect(error?.message == "a PIN must be at least 4 digits (0-9), and digits only")
                #expect(error?.message.contains(pin) == false)
            }
            #expect(try storage.keyFiles().isEmpty)
            #expect(try await UMFAClient(config).checkEnrollment(userId: "ivy").enrolled == false)

            pad.type("7531")
            _ = try await UMFAClient(config).enroll(userId: "ivy")
            let short = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).changePIN(from: "7531", to: "42")
            }
            #expect(short?.code == .userVerificationFailed)
            _ = try await UMFAClient(config).authenticate(userId: "ivy")
        }
    }

    @Test("an app's configuration seals PINs with scrypt N of at least 2^17")
    func defaultCost() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let pad = SecretPad("8520")
            let (_, config) = try await Self.pinDevice(server, storage, pad: pad, fullCost: true)
            #expect(config.scryptRounds == SoftwareAuthenticator.defaultScryptRounds)
            let enrolled = try await UMFAClient(config).enroll(userId: "jay")
            let protection = try Self.protection(storage, enrolled.credentialId)
            #expect(protection.secretKind == .pin)
            #expect(try #require(protection.rounds) >= 1 << 17)
        }
    }

    @Test("wrong PINs from several clients at once all count (the counter is locked across clients and processes)")
    func parallelWrongPINs() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let pad = SecretPad("3141")
            let (_, config) = try await Self.pinDevice(server, storage, pad: pad)
            _ = try await UMFAClient(config).enroll(userId: "gus")
            pad.type("2718")
            let codes = await withTaskGroup(of: ZSMError.Code?.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        do throws(ZSMError) {
                            _ = try await UMFAClient(config).authenticate(userId: "gus")
                            return nil
                        } catch {
                            return error.code
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(codes == [.userVerificationFailed, .userVerificationFailed, .userVerificationFailed])
            let fourth = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "gus")
            }
            #expect(fourth?.message == "wrong pin; 4 attempts left")
        }
    }

    @Test("changePIN: the old PIN stops working, the new one works; a wrong current PIN changes nothing")
    func changePIN() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let pad = SecretPad("1234")
            let (_, config) = try await Self.pinDevice(server, storage, pad: pad)
            _ = try await UMFAClient(config).enroll(userId: "frank")
            _ = try await UMFAClient(config).enroll(userId: "fay")

            let wrong = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).changePIN(from: "4321", to: "5678")
            }
            #expect(wrong?.code == .userVerificationFailed)
            #expect(wrong?.message == "wrong pin; 7 attempts left")
            _ = try await UMFAClient(config).authenticate(userId: "frank")

            try await UMFAClient(config).changePIN(from: "1234", to: "5678")
            let old = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "frank")
            }
            #expect(old?.code == .userVerificationFailed)
            pad.type("5678")
            _ = try await UMFAClient(config).authenticate(userId: "frank")
            _ = try await UMFAClient(config).authenticate(userId: "fay")

            let noPassword = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).changePassword(from: "5678", to: "a long secret")
            }
            #expect(noPassword?.code == .notEnrolled)
        }
    }

    @Test("a PIN prompt answered with nil cancels, stores nothing and costs no attempt")
    func cancelled() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let pad = SecretPad(nil)
            let (_, config) = try await Self.pinDevice(server, storage, pad: pad)
            let noEnrollment = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).enroll(userId: "gina")
            }
            #expect(noEnrollment?.code == .cancelled)
            #expect(noEnrollment?.recovery == .retry)
            #expect(try storage.keyFiles().isEmpty)
            #expect(try await UMFAClient(config).checkEnrollment(userId: "gina").enrolled == false)

            pad.type("8642")
            _ = try await UMFAClient(config).enroll(userId: "gina")
            pad.type(nil)
            let noLogin = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "gina")
            }
            #expect(noLogin?.code == .cancelled)
            pad.type("0")
            let wrong = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "gina")
            }
            #expect(wrong?.message == "wrong pin; 7 attempts left")
        }
    }

    @Test("a password works the same way and amr says pwd")
    func password() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let pad = SecretPad("correct horse battery staple")
            let (app, config) = try await Self.pinDevice(server, storage, pad: pad, password: true)
            let enrolled = try await UMFAClient(config).enroll(userId: "hank")
            #expect(enrolled.userVerification == "password")
            let login = try await UMFAClient(config).authenticate(userId: "hank")
            let amr = try jwtClaims(login.token)["amr"]?.strings ?? []
            #expect(amr.contains("pwd"))
            #expect(!amr.contains("pin"))
            #expect(try await server.validate(app, user: "hank", token: login.token).status == 200)

            pad.type("Tr0ub4dor&3")
            let wrong = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "hank")
            }
            #expect(wrong?.code == .userVerificationFailed)
            #expect(wrong?.message == "wrong password; 7 attempts left")
            try await UMFAClient(config).changePassword(from: "correct horse battery staple", to: "Tr0ub4dor&3")
            _ = try await UMFAClient(config).authenticate(userId: "hank")
        }
    }
}
