import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn

/// The admin API: applications, their API keys and the signing keys. Callers are authorised
/// by ``AdminAuthorization`` (middleware on the admin route group) before anything here runs.
struct AdminService: Sendable {
    /// The stores the admin API reads and changes.
    typealias Store = ApplicationStore & CredentialStore & UserProfileStore & ConsoleStore & SigningKeyStore
        & OAuthClientStore

    let store: any Store
    /// Signing-key rotation.
    let tokens: TokenService
    let webhooks: Webhooks
    let signIns: SignInCredentials
    /// Issues a user's recovery codes on the admin's request.
    let recoveryCodes: RecoveryCodes
    /// Deletes users' whole accounts.
    let accounts: AccountDeletion
    let audit: AuditLog
    let now: @Sendable () -> Date

    /// Creates an application with its first API key (shown once, stored hashed).
    func create(_ request: CreateApplicationRequest, caller: Caller) async throws -> ApplicationResponse {
        var application = ApplicationRecord(
            id: UUID(), name: request.name, rpID: request.rpID, rpName: request.settings.rpName ?? request.name,
            origins: request.origins, enrollmentPolicy: .grant, userVerification: .preferred, attestation: .none,
            tokenTTLSeconds: 300, createdAt: now())
        var settings = request.settings.settings
        (settings.name, settings.rpID, settings.rpName, settings.origins) = (nil, nil, nil, nil)
        try apply(settings, to: &application)
        try Self.validate(application)
        try await checkResourcesUnique(application)
        try await checkRelatedOriginLabels(application)
        try await checkIntrospectionClients(application)
        let webhookSecret = try issueWebhookSecretIfNeeded(&application)
        let apiKey = Secrets.make(prefix: "umfa_ak_")
        try await store.insertApplication(application)
        let hash = Secrets.hash(apiKey)
        try await store.insertAPIKey(hash: hash, applicationID: application.id, createdAt: now())
        await audit.record(
            .applicationCreated, application: application.id, actor: .admin, caller: caller,
            details: ["name": .string(application.name), "rp_id": .string(application.rpID)])
        await audit.record(
            .apiKeyCreated, application: application.id, actor: .admin, caller: caller,
            details: ["key_id": .string(APIKeyRecord.keyID(forHash: hash))])
        return Self.view(application, traceID: caller.traceID, apiKey: apiKey, webhookSecret: webhookSecret)
    }

    /// One application.
    func show(id: String?, caller: Caller) async throws -> ApplicationResponse {
        Self.view(try await lookup(id), traceID: caller.traceID)
    }

    /// Every application.
    func list(caller: Caller) async throws -> ApplicationListResponse {
        let applications = try await store.applications().map { Self.view($0, traceID: caller.traceID) }
        return ApplicationListResponse(traceID: caller.traceID, applications: applications)
    }

    /// Changes the settings the request names.
    func update(id: String?, _ request: ApplicationSettingsRequest, caller: Caller) async throws
        -> ApplicationResponse
    {
        var application = try await lookup(id)
        try apply(request.settings, to: &application)
        try Self.validate(application)
        if request.resourceIndicators != nil { try await checkResourcesUnique(application) }
        if request.relatedOrigins != nil || request.rpID != nil { try await checkRelatedOriginLabels(application) }
        if request.introspectionClients != nil { try await checkIntrospectionClients(application) }
        let webhookSecret = try issueWebhookSecretIfNeeded(&application)
        try await store.updateApplication(application)
        await audit.record(
            .applicationUpdated, application: application.id, actor: .admin, caller: caller,
            details: ["settings": .array(request.settings.presentMembers.map(JSONValue.string))])
        return Self.view(application, traceID: caller.traceID, webhookSecret: webhookSecret)
    }

    /// `POST /api/admin/applications/{id}/webhook-secret`: a new webhook secret, shown once;
    /// the old one signs nothing from now on.
    func rotateWebhookSecret(values: RequestValues, caller: Caller) async throws -> WebhookSecretResponse {
        var application = try await lookup(values.path("id"))
        guard application.webhookURL != nil else {
            throw ServiceError.conflict("The application has no webhook_url; set one first")
        }
        let (secret, sealed) = try webhooks.newSecret()
        application.sealedWebhookSecret = sealed
        try await store.updateApplication(application)
        await audit.record(.webhookSecretRotated, application: application.id, actor: .admin, caller: caller)
        return WebhookSecretResponse(traceID: caller.traceID, webhookSecret: secret)
    }

    /// A webhook secret for an application that has a webhook URL and no secret yet: the secret
    /// to show once (the record keeps it sealed). A removed URL takes its secret with it.
    private func issueWebhookSecretIfNeeded(_ application: inout ApplicationRecord) throws -> String? {
        guard application.webhookURL != nil else {
            application.sealedWebhookSecret = nil
            return nil
        }
        guard application.sealedWebhookSecret == nil else { return nil }
        let (secret, sealed) = try webhooks.newSecret()
        application.sealedWebhookSecret = sealed
        return secret
    }

    /// The application a path's `{id}` names: 400 when it is not a UUID, 404 when unknown.
    func lookup(_ text: String?) async throws -> ApplicationRecord {
        try await store.administeredApplication(text)
    }

    private func apply(_ patch: ApplicationSettings, to application: inout ApplicationRecord) throws {
        if let name = patch.name { application.name = name }
        if let rpID = patch.rpID { application.rpID = rpID }
        if let rpName = patch.rpName { application.rpName = rpName }
        if let origins = patch.origins { application.origins = origins }
        if let related = patch.relatedOrigins { application.relatedOrigins = related }
        if let policy = patch.enrollmentPolicy {
            guard let value = EnrollmentPolicy(rawValue: policy) else {
                throw ServiceError.invalid("enrollment_policy must be open or grant")
            }
            application.enrollmentPolicy = value
        }
        if let value: UserVerificationSetting = try Self.setting(
            patch.userVerification, "user_verification must be required, preferred or discouraged")
        {
            application.userVerification = value
        }
        if let value: AttestationConveyanceSetting = try Self.setting(
            patch.attestation, "attestation must be none, indirect, direct or enterprise")
        {
            application.attestation = value
        }
        if let ttl = patch.tokenTTLSeconds { application.tokenTTLSeconds = ttl }
        if let value: AttestationPolicySetting = try Self.setting(
            patch.attestationPolicy, "attestation_policy must be any, self_or_trusted or trusted")
        {
            application.attestationPolicy = value
        }
        if let allow = patch.aaguidAllow {
            application.aaguidAllow = allow.isEmpty ? nil : allow.map { $0.lowercased() }
        }
        if let deny = patch.aaguidDeny { application.aaguidDeny = deny.map { $0.lowercased() } }
        if let emailRecovery = patch.emailRecovery { application.emailRecovery = emailRecovery }
        if let value: SignupSetting = try Self.setting(patch.signup, "signup must be enabled or disabled") {
            application.signup = value
        }
        if let value: TokenSigningAlgorithm = try Self.setting(
            patch.tokenSigningAlg, "token_signing_alg must be RS256, ES256 or EdDSA")
        {
            application.tokenSigningAlgorithm = value
        }
        if let ids = patch.appleAppIDs { application.appleAppIDs = ids }
        if let value: DPoPNonceSetting = try Self.setting(patch.dpopNonce, "dpop_nonce must be off or required") {
            application.dpopNonce = value
        }
        if let url = patch.webhookURL {
            guard url.isEmpty || Webhooks.validURL(url) else {
                throw ServiceError.invalid("webhook_url must be an https URL, or http to a loopback address")
            }
            let changed = (url.isEmpty ? nil : url) != application.webhookURL
            application.webhookURL = url.isEmpty ? nil : url
            // A new receiver gets a new secret: the old one must not sign for it.
            if changed { application.sealedWebhookSecret = nil }
        }
        if let scopes = patch.allowedScopes {
            application.allowedScopes = try OAuthClientSettings.scopes(scopes.joined(separator: " "))
            guard application.allowedScopes.count == scopes.count else {
                throw ServiceError.invalid("allowed_scopes must be distinct scope tokens (RFC 6749 §3.3)")
            }
        }
        if let resources = patch.resourceIndicators { application.resourceIndicators = resources }
        if let clients = patch.introspectionClients { application.introspectionClients = clients }
        if let types = patch.authorizationDetailsTypes {
            guard types.count <= 20, Set(types).count == types.count,
                types.allSatisfy({
                    (1...64).contains($0.utf8.count) && $0.utf8.allSatisfy { (0x21...0x7E).contains($0) }
                })
            else {
                throw ServiceError.invalid(
                    "authorization_details_types must be at most 20 distinct names of 1 to 64 printable ASCII characters"
                )
            }
            application.authorizationDetailsTypes = types
        }
        try application.ceremonyPreferences.apply(patch)
        if let apps = patch.androidApps {
            application.androidApps = apps.map {
                AndroidAppIdentity(
                    packageName: $0.packageName,
                    sha256CertFingerprints: $0.sha256CertFingerprints.map { $0.uppercased() })
            }
        }
    }

    /// A setting's raw value parsed into its type; `nil` when absent, 400 with `message` when unknown.
    private static func setting<Value: RawRepresentable<String>>(_ text: String?, _ message: String) throws -> Value? {
        guard let text else { return nil }
        guard let value = Value(rawValue: text) else { throw ServiceError.invalid(message) }
        return value
    }

    static func validate(_ application: ApplicationRecord) throws {
        guard (1...200).contains(application.name.count), (1...200).contains(application.rpName.count) else {
            throw ServiceError.invalid("name and rp_name must be 1 to 200 characters")
        }
        guard ApplicationSettingsValidation.isValidRPID(application.rpID) else {
            throw ServiceError.invalid("rp_id must be a lowercase domain name such as example.com")
        }
        guard !application.origins.isEmpty, application.origins.count <= 50,
            let invalid = Optional(application.origins.filter { !ApplicationSettingsValidation.isValidOrigin($0) }),
            invalid.isEmpty
        else {
            throw ServiceError.invalid(
                "origins must be 1 to 50 web origins (https://host[:port]) or native-app origins")
        }
        guard (30...86_400).contains(application.tokenTTLSeconds) else {
            throw ServiceError.invalid("token_ttl_seconds must be 30 to 86400")
        }
        try ApplicationSettingsValidation.validateAttestation(application)
        try ApplicationSettingsValidation.validateNativeApps(application)
        try ApplicationSettingsValidation.validateResourceIndicators(application)
        try RelatedOrigins.validate(application.relatedOrigins)
    }

    /// The applications of one RP ID publish one `/.well-known/webauthn` document together, so
    /// their related origins together must stay within the labels a client honours (§5.11.1).
    private func checkRelatedOriginLabels(_ application: ApplicationRecord) async throws {
        guard !application.relatedOrigins.isEmpty else { return }
        let others = try await store.applications(rpID: application.rpID).filter { $0.id != application.id }
        guard !others.isEmpty else { return }
        try RelatedOrigins.checkLabels(
            RelatedOrigins.merged(others.map(\.relatedOrigins) + [application.relatedOrigins]),
            context: "related_origins of the applications of rp_id \(application.rpID) together")
    }

    /// A resource indicator names one application only: an `aud` then tells a resource server
    /// which issuer's tokens it takes, though every issuer signs with the server's keys.
    private func checkResourcesUnique(_ application: ApplicationRecord) async throws {
        guard !application.resourceIndicators.isEmpty else { return }
        for other in try await store.applications() where other.id != application.id {
            if let taken = other.resourceIndicators.first(where: application.resourceIndicators.contains) {
                throw ServiceError.conflict("resource_indicators: \(taken) belongs to another application")
            }
        }
    }
}

extension AdminService {
    /// An application as the admin API shows it: each setting of the record in its wire form.
    static func view(
        _ application: ApplicationRecord, traceID: String, apiKey: String? = nil, webhookSecret: String? = nil
    ) -> ApplicationResponse {
        let preferences = application.ceremonyPreferences
        let settings = ApplicationSettings(
            name: application.name, rpID: application.rpID, rpName: application.rpName, origins: application.origins,
            relatedOrigins: application.relatedOrigins, enrollmentPolicy: application.enrollmentPolicy.rawValue,
            userVerification: application.userVerification.rawValue, attestation: application.attestation.rawValue,
            tokenTTLSeconds: application.tokenTTLSeconds, attestationPolicy: application.attestationPolicy.rawValue,
            aaguidAllow: application.aaguidAllow, aaguidDeny: application.aaguidDeny,
            signup: application.signup.rawValue, tokenSigningAlg: application.tokenSigningAlgorithm.rawValue,
            appleAppIDs: application.appleAppIDs,
            androidApps: application.androidApps.map {
                AndroidApp(packageName: $0.packageName, sha256CertFingerprints: $0.sha256CertFingerprints)
            }, dpopNonce: application.dpopNonce.rawValue, webhookURL: application.webhookURL,
            allowedScopes: application.allowedScopes, resourceIndicators: application.resourceIndicators,
            hints: preferences.hints.map(\.rawValue), attestationFormats: preferences.attestationFormats,
            credentialProtectionPolicy: preferences.credentialProtectionPolicy?.rawValue,
            enforceCredentialProtectionPolicy: preferences.enforceCredentialProtectionPolicy,
            introspectionClients: application.introspectionClients, emailRecovery: application.emailRecovery,
            authorizationDetailsTypes: application.authorizationDetailsTypes)
        return ApplicationResponse(
            traceID: traceID, applicationID: application.id.uuidString.lowercased(), apiKey: apiKey,
            createdAt: Timestamps.rfc3339(application.createdAt),
            enrollmentPolicyDescription: application.policyDescription, webhookSecret: webhookSecret,
            settings: settings)
    }
}
