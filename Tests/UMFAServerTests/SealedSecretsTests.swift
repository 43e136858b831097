import Foundation
import Testing
import UMFATokens

@testable import UMFAServer

/// Services hold purpose-bound sealing, not the master key: what one purpose sealed no other
/// purpose opens, and the admin token is only ever checked, never handed out.
struct SealedSecretsTests {
    static func sealer() throws -> SealedSecrets {
        SealedSecrets(masterKey: try MasterKey(base64: Data((0..<32).map { UInt8($0) }).base64EncodedString()))
    }

    @Test func eachPurposeOpensOnlyWhatItSealed() throws {
        let sealed = try Self.sealer()
        let purposes: [SealedSecrets.Purpose] = [
            .clientSecret(clientID: "a"), .clientSecret(clientID: "b"), .webhookSecret, .transactionToken,
            .dispatchToken,
        ]
        for (index, purpose) in purposes.enumerated() {
            let box = try sealed.seal("secret \(index)", for: purpose)
            #expect(!box.isEmpty && !String(decoding: box, as: UTF8.self).contains("secret \(index)"))
            #expect(try sealed.open(box, for: purpose) == "secret \(index)")
            for (other, wrong) in purposes.enumerated() where other != index {
                #expect(throws: (any Error).self, "\(purpose) opened as \(wrong)") {
                    try sealed.open(box, for: wrong)
                }
            }
        }
    }

    @Test func signingKeysAreOutOfEveryPurposesReach() throws {
        let key = try MasterKey(base64: Data((0..<32).map { UInt8($0) }).base64EncodedString())
        let signingKey = try key.seal([1, 2, 3], context: "signing-key:k1")
        for purpose: SealedSecrets.Purpose in [.clientSecret(clientID: "k1"), .webhookSecret, .dispatchToken] {
            #expect(throws: (any Error).self) { try SealedSecrets(masterKey: key).openBytes(signingKey, for: purpose) }
        }
    }

    @Test func theAdminTokenIsCheckedNeverShown() {
        let token = AdminToken(hash: Secrets.hash("umfa_admin_right"))
        #expect(token.accepts("umfa_admin_right"))
        #expect(!token.accepts("umfa_admin_wrong"))
        #expect(!token.accepts(""))
        #expect(token.consoleEpoch == ConsoleTokenEpoch.epoch(adminTokenHash: Secrets.hash("umfa_admin_right")))
    }
}
