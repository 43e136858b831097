import Foundation
import Logging
import Testing
import UMFAStorage

@testable import UMFAServer
@testable import UMFATokens

/// Each signing key keeps the headers of the JWTs the server signs encoded, so signing one
/// encodes no header. The fallback builds the same bytes, so only this test sees a miss.
@Suite("Signing keys keep the typed headers of access and ID tokens")
struct TypedHeaderCacheTests {
    @Test("every key has the encoded header of each type the server signs, as the fallback would build it")
    func headersKept() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-headers-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteStore.open(
            path: directory.appendingPathComponent("umfa.sqlite").path, logger: Logger(label: "umfa-test"))
        let masterKey = try MasterKey(base64: Data((0..<32).map { UInt8($0) }).base64EncodedString())
        let tokens = TokenService(store: store, masterKey: masterKey)
        try await tokens.loadKeys()
        // The types the server's token issuers pass to `sign(_:type:algorithm:)`.
        let signed = [AccessTokens.type, JWTType.idToken]
        for algorithm in TokenSigningAlgorithm.allCases {
            let key = try await tokens.currentSigningKey(algorithm)
            for type in signed {
                let built = try SigningKeySet.encodedTypedHeader(algorithm: algorithm, kid: key.kid, type: type)
                #expect(key.typedHeaders[type] == built, "\(algorithm.rawValue) \(type)")
            }
        }
        try await store.close()
    }
}
