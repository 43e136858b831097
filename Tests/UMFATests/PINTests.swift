import Foundation
import Testing
import UMFA

@Suite("PIN and password on the device")
struct PINTests {
    /// An open application and a device whose passkeys are protected by what `pad` types.
    static func pinDevice(
        _ server: LiveServer, _ storage: DeviceStorage, pad: SecretPad, password: Bool = false
    ) async throws -> (TestApplication, ZSMConfig) {
        let app = try await server.createApplication(policy: "open")
        var config = server.config(app, storage: storage)
        config.userVerification = password ? .password(pad.provider) : .pin(pad.provider)
        config.enrollmentTokenProvider = server.grants(app)
        return (app, config)
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

    @Test("eight wrong PINs in a row lock the device, even for the right PIN; enrolling again is the way back")
    func lockout() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let pad = SecretPad("2468")
            let (app, config) = try await Self.pinDevice(server, storage, pad: pad)
            let first = try await UMFAClient(config).enroll(userId: "erin")
            _ = try await UMFAClient(config).enroll(userId: "finn")
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
            #expect(await UMFAClient(config).unenroll(userId: "erin") == false)

            // Start over: a new grant, a new PIN; the locked passkey is erased.
            pad.type("9999")
            let second = try await UMFAClient(config).enroll(userId: "erin")
            #expect(second.credentialId != first.credentialId)
            #expect(try storage.keyFiles() == [try storage.keyFile(credentialID: second.credentialId)])
            let login = try await UMFAClient(config).authenticate(userId: "erin")
            #expect(login.credentialId == second.credentialId)
            #expect(try await server.validate(app, user: "erin", token: login.token).status == 200)
            // The other locked passkey went too: the device no longer counts finn as enrolled.
            #expect(try await UMFAClient(config).checkEnrollment(userId: "finn").enrolled == false)
            let gone = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config).authenticate(userId: "finn")
            }
            #expect(gone?.code == .notEnrolled)
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
                try await UMFAClient(config).changePassword(from: "5678", to: "secret")
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
