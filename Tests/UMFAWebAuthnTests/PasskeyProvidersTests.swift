import Foundation
import Testing

@testable import UMFAWebAuthn

/// docs/contract.md §8 credential names: FIDO metadata first, then the passkey-provider table.
@Suite("Passkey provider names")
struct PasskeyProvidersTests {
    static let onePassword: [UInt8] = [
        0xba, 0xda, 0x55, 0x66, 0xa7, 0xaa, 0x40, 0x1f, 0xbd, 0x96, 0x45, 0x61, 0x9a, 0x55, 0x12, 0x0d,
    ]

    @Test("the table knows the big providers by AAGUID, and nothing for the zero AAGUID")
    func table() {
        #expect(PasskeyProviders.name(for: Self.onePassword) == "1Password")
        #expect(PasskeyProviders.names["ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4"] == "Google Password Manager")
        #expect(PasskeyProviders.names["fbfc3007-154e-4ecc-8c0b-6e020557d7bd"] == "Apple Passwords")
        #expect(PasskeyProviders.names["08987058-cadc-4b81-b6e1-30de50dcbe96"] == "Windows Hello")
        #expect(PasskeyProviders.names["d548826e-79b4-db40-a3d8-11116f7e8349"] == "Bitwarden")
        #expect(PasskeyProviders.name(for: [UInt8](repeating: 0, count: 16)) == nil)
        #expect(PasskeyProviders.names.keys.allSatisfy { $0 == $0.lowercased() && $0.count == 36 })
    }

    @Test("a registration names its provider from the table when no metadata names it")
    func registrationName() async throws {
        var factory = RegistrationFactory.es256()
        factory.aaguid = Self.onePassword
        let result = try await RegistrationVerifier(policy: Fixture.policy()).verify(factory)
        #expect(result.attestation.authenticatorName == "1Password")
        let unknown = try await RegistrationVerifier(policy: Fixture.policy()).verify(RegistrationFactory.es256())
        #expect(unknown.attestation.authenticatorName == nil)
    }
}
