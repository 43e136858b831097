import Foundation
import UMFAContract
import UMFAStorage
import UMFAWebAuthn

/// Recovery codes (docs/contract.md §8): ten codes of 80 random bits, shown once, kept as SHA-256 of
/// their canonical form, each good once for an enrollment token, so a passkey-only account
/// survives a lost device. New codes replace the old set.
struct RecoveryCodeService: Sendable {
    /// The stores recovery codes are kept and spent in.
    typealias Store = ApplicationStore & CredentialStore & SelfServiceStore

    let store: any Store
    /// Issues and keeps the sets of codes.
    let codes: RecoveryCodes
    let loginTokens: LoginTokens
    let apiKeys: APIKeyAuthentication
    let enrollmentTokens: EnrollmentTokenService
    let abuse: AbuseGuard
    let audit: AuditLog
    let now: @Sendable () -> Date

    static let count = 10
    /// Crockford's base32 alphabet: no I, L, O or U to misread.
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// `POST /api/umfa/me/recovery-codes`.
    func createMine(caller: Caller) async throws -> RecoveryCodesResponse {
        let user = try await SignedInUser.from(caller, loginTokens: loginTokens, applications: store)
        return RecoveryCodesResponse(
            traceID: caller.traceID,
            recoveryCodes: try await codes.issue(
                application: user.application.id, userID: user.userID, actor: .user(user.userID), caller: caller))
    }

    /// `GET /api/umfa/me/recovery-codes`.
    func countMine(caller: Caller) async throws -> RecoveryCodeCountResponse {
        let user = try await SignedInUser.from(caller, loginTokens: loginTokens, applications: store)
        let remaining = try await store.recoveryCodes(applicationID: user.application.id, userID: user.userID)
        return RecoveryCodeCountResponse(traceID: caller.traceID, remaining: remaining.count)
    }

    /// `POST /api/umfa/users/{user_id}/recovery-codes` (API key).
    func createForUser(_ request: UserRecoveryCodesRequest, values: RequestValues, caller: Caller) async throws
        -> RecoveryCodesResponse
    {
        let application =
            try await apiKeys
            .application(for: caller, applicationID: request.applicationID)
        guard let userID = values.path("user_id") else {
            throw ServiceError.invalid("user_id must be percent-encoded UTF-8")
        }
        try FieldRules.checkUserID(userID)
        guard try await store.user(applicationID: application.id, userID: userID) != nil else {
            throw ServiceError.notFound("Unknown user")
        }
        return RecoveryCodesResponse(
            traceID: caller.traceID,
            recoveryCodes: try await codes.issue(
                application: application.id, userID: userID, actor: AuditLog.apiKeyActor(caller), caller: caller))
    }

    /// `POST /api/umfa/recovery`: a code for an enrollment token of ten minutes. A wrong code
    /// counts against the user and the address like a failed sign-in, and says nothing more.
    func redeem(_ request: RecoveryRequest, caller: Caller) async throws -> EnrollmentTokenResponse {
        guard let applicationID = UUID(uuidString: request.applicationID),
            let application = try await store.application(id: applicationID)
        else { throw ServiceError.invalid("application_id must name an application") }
        try FieldRules.checkUserID(request.userID)
        guard request.recoveryCode.utf8.count <= 64 else { throw ServiceError.invalid("recovery_code is too long") }
        let hash = Secrets.hash(Self.canonical(request.recoveryCode))
        return try await abuse.ceremony(application: application.id, userID: request.userID, caller: caller) {
            guard try await spend(hash, application: application.id, userID: request.userID) else {
                await audit.record(
                    .recoveryFailed, application: application.id, actor: .anonymous, userID: request.userID,
                    caller: caller)
                throw ServiceError.unauthenticated("Recovery failed")
            }
            let answer =
                try await enrollmentTokens
                .issue(applicationID: application.id, userID: request.userID, caller: caller)
            let left = try await store.recoveryCodes(applicationID: application.id, userID: request.userID)
            await audit.record(
                .recoveryUsed, application: application.id, actor: .user(request.userID), userID: request.userID,
                caller: caller, details: ["remaining": .number(Double(left.count))])
            return answer
        }
    }

    /// Removes `hash` from the user's set, once, whoever else spends a code at the same time.
    private func spend(_ hash: [UInt8], application: UUID, userID: String) async throws -> Bool {
        for _ in 0..<5 {
            let codes = try await store.recoveryCodes(applicationID: application, userID: userID)
            guard let index = codes.firstIndex(where: { constantTimeEqual($0, hash) }) else { return false }
            var remaining = codes
            remaining.remove(at: index)
            if try await store.spendRecoveryCode(
                applicationID: application, userID: userID, expected: codes, remaining: remaining, at: now())
            {
                return true
            }
        }
        throw ServiceError(.unavailable, "The recovery codes are changing; try again")
    }

    /// `XXXX-XXXX-XXXX-XXXX`: 16 base32 characters, 80 bits.
    static func makeCode() -> String {
        let bytes = Secrets.randomBytes(10)
        var bits = 0
        var value = 0
        var characters: [Character] = []
        for byte in bytes {
            value = value << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                characters.append(alphabet[(value >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        return stride(from: 0, to: 16, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// Upper case without dashes or spaces, the look-alikes read as Crockford does (O → 0, I and
    /// L → 1).
    static func canonical(_ code: String) -> String {
        String(
            code.uppercased().compactMap { character -> Character? in
                switch character {
                case "-", " ": nil
                case "O": "0"
                case "I", "L": "1"
                default: character
                }
            })
    }
}
