import Foundation
import Logging
import UMFAContract
import UMFAEncoding
import UMFAJOSE
import UMFAStorage
import UMFATokens
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Out-of-band enrollment and approval (docs/contract.md §7): the backend starts a transaction with its
/// API key; the phone redeems the single-use dispatch token of the app link for a WebAuthn
/// ceremony and completes it; the backend polls the status token for the outcome and the login
/// token. Every end of a transaction is one compare-and-set, so it ends once.
struct OutOfBandService: Sendable {
    /// The stores out-of-band enrollment and approval use.
    typealias Store = ApplicationStore & CredentialStore & OutOfBandStore & DeviceKeyStore

    let store: any Store
    let apiKeys: APIKeyAuthentication
    let ceremonies: Ceremonies
    let registration: RegistrationService
    let authentication: AuthenticationService
    let loginTokens: LoginTokens
    let webhooks: Webhooks
    /// Push services for approvals (``ServerConfiguration/approvalDispatchers``).
    let approvalDispatchers: [any ApprovalDispatcher]
    let sealed: SealedSecrets
    let abuse: AbuseGuard
    let audit: AuditLog
    let logger: Logger
    /// The server's public URL, the base of app links.
    let publicURL: String
    let now: @Sendable () -> Date

    static let enrollmentTTL = 600
    static let approvalTTL = 300
    static let ttlRange = 60...3600
    static let messageLength = 500

    // MARK: The backend

    /// `POST /api/umfa/users/enroll`.
    func enroll(_ request: OutOfBandEnrollRequest, caller: Caller) async throws -> OutOfBandEnrollResponse {
        let application =
            try await apiKeys
            .application(for: caller, applicationID: request.applicationID)
        return try await enroll(request, application: application, caller: caller)
    }

    /// `POST /api/admin/applications/{id}/users/{user_id}/enroll`: the same for the admin (the
    /// console's enrollment QR code).
    func enroll(values: RequestValues, caller: Caller) async throws -> OutOfBandEnrollResponse {
        let application = try await store.administeredApplication(values.path("id"))
        guard let userID = values.path("user_id") else {
            throw ServiceError.invalid("user_id must be percent-encoded UTF-8")
        }
        return try await enroll(
            OutOfBandEnrollRequest(applicationID: application.id.uuidString, userID: userID), application: application,
            caller: caller)
    }

    private func enroll(_ request: OutOfBandEnrollRequest, application: ApplicationRecord, caller: Caller)
        async throws -> OutOfBandEnrollResponse
    {
        try FieldRules.checkUserID(request.userID)
        try FieldRules.checkName(request.displayName, field: "display_name", maximumBytes: 256)
        try FieldRules.checkName(request.username, field: "username", maximumBytes: 256)
        let ttl = try Self.ttl(request.ttlSeconds, default: Self.enrollmentTTL)
        let user = try await store.insertUser(
            UserRecord(
                applicationID: application.id, userID: request.userID, userHandle: Secrets.randomBytes(32),
                displayName: request.displayName ?? request.username ?? request.userID, createdAt: now()))
        let credentials = try await store.credentials(applicationID: application.id, userID: request.userID)
        let started = try await start(
            application: application, operation: .registration, userID: request.userID, username: request.username,
            ttl: ttl)
        let username = request.username ?? request.userID
        let updated = credentials.map(\.createdAt).max() ?? user.createdAt
        return OutOfBandEnrollResponse(
            traceID: caller.traceID, userId: request.userID, username: username,
            status: credentials.isEmpty ? "new" : "registered", createdAt: Timestamps.rfc3339(user.createdAt),
            updatedAt: Timestamps.rfc3339(updated),
            authenticators: credentials.map {
                OutOfBandAuthenticator(
                    credentialId: Base64URL.encode($0.credentialID), name: $0.deviceName ?? $0.authenticatorName,
                    createdAt: Timestamps.rfc3339($0.createdAt), lastUsedAt: $0.lastUsedAt.map(Timestamps.rfc3339),
                    aaguid: AAGUID.string($0.aaguid))
            },
            enrollment: OutOfBandEnrollment(
                transactionId: started.record.transactionID, statusToken: started.statusToken,
                qrCode: started.qrCode, appLinkUri: started.appLink))
    }

    /// `POST /api/umfa/approvals`.
    func approve(_ request: ApprovalRequest, caller: Caller) async throws -> ApprovalResponse {
        let application =
            try await apiKeys
            .application(for: caller, applicationID: request.applicationID)
        if let userID = request.userID {
            try FieldRules.checkUserID(userID)
            guard try await !store.credentials(applicationID: application.id, userID: userID).isEmpty else {
                throw ServiceError.notFound("The user has no passkey to approve with")
            }
        }
        if let message = request.message {
            guard message.count <= Self.messageLength else {
                throw ServiceError.invalid("message must be at most \(Self.messageLength) characters")
            }
            try FieldRules.refuseNUL(message, field: "message")
        }
        var details: AuthorizationDetails?
        if let given = request.authorizationDetails {
            do {
                details = try AuthorizationDetails.check(given, types: application.authorizationDetailsTypes)
            } catch {
                throw ServiceError.invalid(error.reason, field: "authorization_details")
            }
        }
        return try await startApproval(
            application: application, userID: request.userID, message: request.message ?? "", details: details,
            ttl: try Self.ttl(request.ttlSeconds, default: Self.approvalTTL),
            numberMatching: request.numberMatching == true,
            caller: caller)
    }

    /// Starts an approval for `userID` (any user's device when `nil`) and tells the dispatchers.
    /// The caller checked the user and the message; an unknown user's approval can never succeed.
    /// The device shows (and the passkey signs) the message followed by the canonical text of
    /// `details`; a CIBA request in ping mode is told of the end through `sealedPing`.
    func startApproval(
        application: ApplicationRecord, userID: String?, message: String, details: AuthorizationDetails? = nil,
        ttl: Int, numberMatching: Bool, sealedPing: [UInt8]? = nil, caller: Caller
    ) async throws -> ApprovalResponse {
        let matching = numberMatching ? String(10 + Int.random(in: 0..<90)) : nil
        let message = AuthorizationDetails.approvalText(message: message, details: details)
        let started = try await start(
            application: application, operation: .authentication, userID: userID, ttl: ttl, message: message,
            matchingNumber: matching, details: try details.map { try Self.jsonText($0.json) }, sealedPing: sealedPing)
        await dispatch(
            OutOfBandTransactionNotice(
                applicationID: application.id, userID: userID, transactionID: started.record.transactionID,
                message: message, expiresAt: started.record.expiresAt), caller: caller)
        return ApprovalResponse(
            traceID: caller.traceID, transactionId: started.record.transactionID, statusToken: started.statusToken,
            qrCode: started.qrCode, appLinkUri: started.appLink, matchingNumber: matching)
    }

    /// `POST /api/umfa/status`.
    func status(_ request: StatusRequest, caller: Caller) async throws -> StatusResponse {
        guard
            let transaction = try await store.outOfBandTransaction(
                statusTokenHash: Secrets.hash(request.statusToken))
        else {
            try await abuse.refuseCredential(
                caller, counting: true, ServiceError.unauthenticated("Unknown status token"))
        }
        let status = Self.currentStatus(transaction, now: now())
        var token: String?
        if status == .succeeded, let sealed = transaction.sealedToken {
            token = try self.sealed.open(sealed, for: .transactionToken)
        }
        return StatusResponse(
            traceID: caller.traceID, transactionId: transaction.transactionID, status: status.rawValue,
            userId: transaction.userID, username: transaction.username ?? transaction.userID, token: token,
            createdAt: Timestamps.rfc3339(transaction.createdAt),
            lastUpdatedAt: Timestamps.rfc3339(transaction.updatedAt),
            evidence: transaction.evidence.flatMap {
                try? JSONDecoder().decode(ApprovalEvidence.self, from: Data($0.utf8))
            })
    }

    // MARK: The phone

    /// `POST /api/umfa/dispatch/redeem`: the dispatch token works once; the answer is the
    /// ceremony to run.
    func redeem(_ request: DispatchRedeemRequest, caller: Caller) async throws -> DispatchRedeemResponse {
        let hash = Secrets.hash(request.token)
        // The challenge is made before the token is spent, so spending it and setting the
        // challenge are one statement; the approval's needs the transaction, read first.
        guard
            let found = try await store.outOfBandTransaction(dispatchTokenHash: hash),
            found.redeemedAt == nil, found.status == .pending, found.expiresAt > now(),
            let application = try await store.application(id: found.applicationID)
        else {
            try await abuse.refuseCredential(
                caller, counting: true,
                ServiceError.unauthenticated("The dispatch token is unknown, used or expired"))
        }
        let challenge =
            found.operation == .authentication
            ? ApprovalChallenge.bytes(
                transactionID: found.transactionID, message: found.message ?? "", nonce: found.approvalNonce ?? [])
            : Secrets.randomBytes(32)
        guard
            let transaction = try await store.redeemOutOfBandDispatch(
                tokenHash: hash, challenge: challenge, at: now())
        else { throw ServiceError.unauthenticated("The dispatch token is unknown, used or expired") }
        let expiresAt = transaction.expiresAt
        let publicKey: JSONValue
        switch transaction.operation {
        case .registration:
            guard let userID = transaction.userID else { throw ServiceError.internalFailure }
            let existing = try await store.credentials(applicationID: application.id, userID: userID)
            let user = try await store.user(applicationID: application.id, userID: userID)
            let options = try await registration.options(
                application: application, userID: userID, userName: userID,
                displayName: user?.displayName ?? userID, existing: existing,
                grant: EnrollmentGrant.Grant(kind: .outOfBand), caller: caller, challenge: challenge,
                expiresAt: expiresAt, ceremony: .outOfBandRegistration)
            publicKey = try Self.json(options.publicKey)
        case .authentication:
            let options = try await authentication.options(
                application: application, userID: transaction.userID, caller: caller, challenge: challenge,
                expiresAt: expiresAt, ceremony: .outOfBandApproval)
            publicKey = try Self.json(options.publicKey)
        }
        return DispatchRedeemResponse(
            traceID: caller.traceID, operation: transaction.operation.rawValue,
            applicationID: application.id.uuidString.lowercased(), userID: transaction.userID,
            transactionID: transaction.transactionID, publicKey: publicKey,
            message: transaction.operation == .authentication ? transaction.message : nil,
            approvalNonce: transaction.approvalNonce.map(Base64URL.encode),
            matching: transaction.operation == .authentication ? transaction.matchingNumber != nil : nil,
            authorizationDetails: transaction.authorizationDetails.flatMap {
                try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8))
            })
    }

    /// `POST /api/umfa/dispatch/complete`: the ceremony's answer for a redeemed transaction.
    func complete(_ request: DispatchCompleteRequest, caller: Caller) async throws -> DispatchCompleteResponse {
        guard let transaction = try await store.outOfBandTransaction(id: request.transactionID),
            transaction.redeemedAt != nil, let challenge = transaction.challenge,
            let application = try await store.application(id: transaction.applicationID)
        else { throw ServiceError.notFound("Unknown transaction") }
        guard transaction.status == .pending, transaction.expiresAt > now() else {
            throw ServiceError.conflict(
                "The transaction is \(transaction.status == .pending ? "expired" : transaction.status.rawValue)")
        }
        switch transaction.operation {
        case .registration:
            return try await completeRegistration(
                request, transaction: transaction, application: application, challenge: challenge, caller: caller)
        case .authentication:
            return try await completeApproval(
                request, transaction: transaction, application: application, challenge: challenge, caller: caller)
        }
    }

    // MARK: Steps

    struct Started {
        let record: OutOfBandTransactionRecord
        let statusToken: String
        let appLink: String
        let qrCode: QRCodeImage
    }

    private func start(
        application: ApplicationRecord, operation: OutOfBandOperation, userID: String?, username: String? = nil,
        ttl: Int, message: String? = nil, matchingNumber: String? = nil, details: String? = nil,
        sealedPing: [UInt8]? = nil
    ) async throws -> Started {
        let statusToken = Secrets.make(prefix: "umfa_st_")
        let dispatchToken = Secrets.make(prefix: "umfa_dt_")
        let now = self.now()
        let record = OutOfBandTransactionRecord(
            transactionID: TimeOrderedID.next(at: now), applicationID: application.id, operation: operation,
            userID: userID, username: username, statusTokenHash: Secrets.hash(statusToken),
            dispatchTokenHash: Secrets.hash(dispatchToken),
            // Only an approval for a named user is ever listed to a device again.
            sealedDispatchToken: operation == .authentication && userID != nil
                ? try self.sealed.seal(dispatchToken, for: .dispatchToken) : nil,
            message: message, approvalNonce: operation == .authentication ? Secrets.randomBytes(32) : nil,
            matchingNumber: matchingNumber, authorizationDetails: details, sealedPing: sealedPing, createdAt: now,
            updatedAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(ttl)))
        try await store.insertOutOfBandTransaction(record)
        await webhooks.record(record, status: .pending, userID: userID)
        let link = try OutOfBandLinks.appLink(
            publicURL: publicURL, payload: OutOfBandLinks.payload(record, token: dispatchToken, publicURL: publicURL))
        return Started(record: record, statusToken: statusToken, appLink: link, qrCode: try OutOfBandLinks.qrCode(link))
    }

    private func completeRegistration(
        _ request: DispatchCompleteRequest, transaction: OutOfBandTransactionRecord, application: ApplicationRecord,
        challenge: [UInt8], caller: Caller
    ) async throws -> DispatchCompleteResponse {
        guard let userID = transaction.userID else { throw ServiceError.internalFailure }
        let credential = try Self.decode(request.credential, as: RegistrationResponseJSON.self)
        try Self.requireChallenge(challenge, in: credential.response.clientDataJSON)
        if let device = request.device {
            try FieldRules.checkName(device.name, field: "device.name", maximumBytes: 128)
            try FieldRules.checkName(device.pushToken, field: "device.push_token", maximumBytes: 4096)
            if let key = device.key { _ = try Self.deviceKey(key) }
            guard device.pushToken == nil || device.key != nil else {
                throw ServiceError.invalid(
                    "device.push_token needs device.key: a push token is kept with the device key")
            }
        }
        let verify = RegistrationVerifyRequest(
            applicationID: application.id.uuidString, userID: userID, credential: credential,
            deviceName: request.device?.name)
        let registered: RegistrationService.Registered
        do {
            registered = try await registration.register(
                verify, application: application, caller: caller, ceremony: .outOfBandRegistration)
        } catch let error as ServiceError where error.code == .unauthenticated {
            await finish(transaction, .failed, userID: userID, credentialID: nil, token: nil, caller: caller)
            throw error
        }
        if let device = request.device, let key = device.key {
            try await store.upsertDeviceKey(
                DeviceKeyRecord(
                    applicationID: application.id, credentialID: registered.credential.credentialID, userID: userID,
                    name: device.name, pushToken: device.pushToken, publicJWK: try Self.deviceKey(key),
                    createdAt: now()))
        }
        let token = try await loginTokens.issue(
            application: application, credential: registered.credential,
            authenticatorData: registered.authenticatorData, userpwTime: nil)
        let status = await finish(
            transaction, .succeeded, userID: userID, credentialID: registered.credential.credentialID, token: token,
            caller: caller)
        return DispatchCompleteResponse(
            traceID: caller.traceID, status: status.rawValue, userID: userID,
            credentialID: Base64URL.encode(registered.credential.credentialID))
    }

    private func completeApproval(
        _ request: DispatchCompleteRequest, transaction: OutOfBandTransactionRecord, application: ApplicationRecord,
        challenge: [UInt8], caller: Caller
    ) async throws -> DispatchCompleteResponse {
        let decision = request.decision ?? "approve"
        guard SignedDecision.decisions.contains(decision) else {
            throw ServiceError.invalid("decision must be approve or deny")
        }
        let credential = try Self.decode(request.credential, as: AuthenticationResponseJSON.self)
        guard let clientData = try? CollectedClientData(bytes: credential.response.clientDataJSON.bytes),
            let signed = Base64URL.decode(clientData.challenge)
        else { throw ServiceError.invalid("credential.response.clientDataJSON is not valid client data") }
        // Step 1: which decision on this transaction the passkey signed (docs/ciba.md): the one
        // sent, another one, or (an app from before signed decisions) the transaction alone.
        // Anything else answers another challenge and changes nothing.
        let expected = ApprovalChallenge.decision(challenge, decision: decision, matchingNumber: request.matchingNumber)
        let unsignedDecision = signed == challenge
        let signedDecision =
            signed == expected
            ? SignedDecision(decision: decision, matchingNumber: request.matchingNumber)
            : SignedDecision.recognize(signed, transaction: challenge, sentNumber: request.matchingNumber)
        guard signedDecision != nil || unsignedDecision else {
            throw ServiceError.unauthenticated("The response does not answer this transaction's challenge")
        }
        // Step 2: the assertion, over what it signed; denying needs the passkey too.
        let outcome: AssertionCheck.Outcome
        do {
            var check = AssertionCheck(
                ceremonies: ceremonies, application: application, caller: caller,
                failureMessage: AuthenticationService.failureMessage, purpose: "approval", ceremony: .outOfBandApproval)
            check.derivedChallenge = (challenge, signed)
            outcome = try await check.verify(credential, expectedUserID: transaction.userID)
        } catch let error as ServiceError where error.code == .unauthenticated {
            // The transaction's challenge is spent: nothing can answer it now.
            await finish(
                transaction, .failed, userID: transaction.userID, credentialID: nil, token: nil, caller: caller,
                reason: "assertion_refused")
            throw error
        }
        // Step 3: an app that signs only the transaction is told to update; its answer counts for
        // nothing.
        guard let signedDecision else {
            await finish(
                transaction, .failed, userID: outcome.credential.userID, credentialID: outcome.credential.credentialID,
                token: nil, caller: caller, reason: "unsigned_decision")
            throw ServiceError.invalid(
                "The passkey signed the transaction but not the decision: update the app to one that signs "
                    + "decisions (docs/ciba.md); the transaction has failed")
        }
        let userID = outcome.credential.userID
        let credentialID = outcome.credential.credentialID
        let evidence = signedDecision.evidence(
            credential, signed: signed, transactionChallenge: challenge, nonce: transaction.approvalNonce ?? [])
        // Step 4: what was sent must be what was signed: a decision or number changed on the way
        // ends the transaction, whatever was signed.
        guard signed == expected else {
            await finish(
                transaction, .failed, userID: userID, credentialID: credentialID, token: nil, caller: caller,
                evidence: evidence, reason: "decision_mismatch")
            throw ServiceError.forbidden(
                "The decision or number sent is not the one the passkey signed; the transaction has failed")
        }
        if decision == "deny" {
            let status = await finish(
                transaction, .denied, userID: userID, credentialID: credentialID, token: nil, caller: caller,
                evidence: evidence)
            return DispatchCompleteResponse(
                traceID: caller.traceID, status: status.rawValue, userID: userID,
                credentialID: Base64URL.encode(credentialID))
        }
        if let expectedNumber = transaction.matchingNumber {
            // A wrong number ends the transaction: the number cannot be guessed by trying.
            guard let given = request.matchingNumber,
                constantTimeEqual(Array(given.utf8), Array(expectedNumber.utf8))
            else {
                await finish(
                    transaction, .failed, userID: userID, credentialID: credentialID, token: nil, caller: caller,
                    evidence: evidence, reason: "wrong_number")
                throw ServiceError.forbidden("The number does not match the one shown; the transaction has failed")
            }
        }
        let token = try await loginTokens.issue(
            application: application, credential: outcome.credential,
            authenticatorData: outcome.verified.authenticatorData, userpwTime: nil)
        let status = await finish(
            transaction, .succeeded, userID: userID, credentialID: credentialID, token: token, caller: caller,
            evidence: evidence)
        return DispatchCompleteResponse(
            traceID: caller.traceID, status: status.rawValue, userID: userID,
            credentialID: Base64URL.encode(credentialID))
    }

    /// A transaction's status now: a pending one past its expiry is expired, whether or not the
    /// background sweep has marked it yet.
    static func currentStatus(_ transaction: OutOfBandTransactionRecord, now: Date) -> OutOfBandStatus {
        transaction.status == .pending && transaction.expiresAt <= now ? .expired : transaction.status
    }

    /// Ends a pending approval nobody answered as failed (its requester gave up); a finished one
    /// stays as it is.
    func cancel(transactionID: String, caller: Caller) async throws {
        guard let transaction = try await store.outOfBandTransaction(id: transactionID),
            Self.currentStatus(transaction, now: now()) == .pending
        else { return }
        await finish(transaction, .failed, userID: transaction.userID, credentialID: nil, token: nil, caller: caller)
    }

    /// Ends a pending transaction (once) and records it in the audit log; the status it has now.
    /// - Parameters:
    ///   - evidence: the signed decision that ended an approval, kept with it.
    ///   - reason: why an approval failed, for the audit log.
    @discardableResult
    private func finish(
        _ transaction: OutOfBandTransactionRecord, _ status: OutOfBandStatus, userID: String?, credentialID: [UInt8]?,
        token: String?, caller: Caller, evidence: ApprovalEvidence? = nil, reason: String? = nil
    ) async -> OutOfBandStatus {
        do {
            let sealed = try token.map { try self.sealed.seal($0, for: .transactionToken) }
            guard
                try await store.finishOutOfBandTransaction(
                    id: transaction.transactionID, status: status, userID: userID, credentialID: credentialID,
                    sealedToken: sealed, evidence: try evidence.map(Self.jsonText), at: now())
            else {
                return try await store.outOfBandTransaction(id: transaction.transactionID)?.status ?? status
            }
        } catch {
            logger.error(
                "an out-of-band transaction could not be ended",
                metadata: ["trace.id": .string(caller.traceID), "error.message": .string("\(error)")])
            return .pending
        }
        await webhooks.record(transaction, status: status, userID: userID)
        let action: AuditAction? =
            switch (transaction.operation, status) {
            case (.authentication, .succeeded): .approvalApproved
            case (.authentication, .denied): .approvalDenied
            case (.authentication, .failed): .approvalFailed
            default: nil
            }
        if let action {
            var details: [String: JSONValue] = ["transaction_id": .string(transaction.transactionID)]
            if let evidence {
                details["signed_decision"] = .string(evidence.decision)
                details["signed_challenge"] = .string(evidence.challenge)
            }
            if let reason { details["reason"] = .string(reason) }
            await audit.record(
                action, application: transaction.applicationID, actor: userID.map(AuditActor.user) ?? .anonymous,
                userID: userID, credentialID: credentialID, caller: caller, details: details)
        }
        return status
    }

    /// The response must answer this transaction's challenge (not any other the server issued).
    static func requireChallenge(_ challenge: [UInt8], in clientDataJSON: Base64URLBytes) throws {
        guard let clientData = try? CollectedClientData(bytes: clientDataJSON.bytes),
            Base64URL.decode(clientData.challenge) == challenge
        else { throw ServiceError.unauthenticated("The response does not answer this transaction's challenge") }
    }

    /// `value` as compact JSON text with sorted keys, as stored.
    static func jsonText(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func json(_ value: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    static func decode<Value: Decodable>(_ json: JSONValue, as type: Value.Type) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: JSONEncoder().encode(json))
        } catch {
            throw ServiceError.invalid("credential: \(JSONExchange.describe(error))")
        }
    }

    /// A device key as stored: a P-256 public JWK (ES256) with only its public members.
    static func deviceKey(_ key: JSONValue) throws -> String {
        guard case .object(let members) = key,
            let jwk = try? JSONDecoder().decode(JWK.self, from: JSONEncoder().encode(key)),
            (try? PublicJWK(jwk: jwk, alg: "ES256")) != nil
        else { throw ServiceError.invalid("device.key must be a P-256 public JWK (kty EC, crv P-256, x, y)") }
        let kept = members.filter { ["kty", "crv", "x", "y"].contains($0.key) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(JSONValue.object(kept)), as: UTF8.self)
    }

    static func ttl(_ given: Int?, default value: Int) throws -> Int {
        let ttl = given ?? value
        guard ttlRange.contains(ttl) else { throw ServiceError.invalid("ttl_seconds must be 60 to 3600") }
        return ttl
    }
}
