import Foundation
import Hummingbird
import UMFAStorage
import UMFAWebAuthn

/// `/api/admin/applications…`, behind the admin token.
struct AdminRoutes {
    let services: ServerServices

    struct CreateBody: Decodable {
        let name: String
        let rpID: String
        let rpName: String?
        let origins: [String]
        let enrollmentPolicy: String?
        let userVerification: String?
        let attestation: String?
        let tokenTTLSeconds: Int?
        let attestationPolicy: String?
        let aaguidAllow: [String]?
        let aaguidDeny: [String]?

        enum CodingKeys: String, CodingKey {
            case name, origins, attestation
            case rpID = "rp_id"
            case rpName = "rp_name"
            case enrollmentPolicy = "enrollment_policy"
            case userVerification = "user_verification"
            case tokenTTLSeconds = "token_ttl_seconds"
            case attestationPolicy = "attestation_policy"
            case aaguidAllow = "aaguid_allow"
            case aaguidDeny = "aaguid_deny"
        }
    }

    struct PatchBody: Decodable {
        let name: String?
        let rpID: String?
        let rpName: String?
        let origins: [String]?
        let enrollmentPolicy: String?
        let userVerification: String?
        let attestation: String?
        let tokenTTLSeconds: Int?
        let attestationPolicy: String?
        let aaguidAllow: [String]?
        let aaguidDeny: [String]?

        enum CodingKeys: String, CodingKey {
            case name, origins, attestation
            case rpID = "rp_id"
            case rpName = "rp_name"
            case enrollmentPolicy = "enrollment_policy"
            case userVerification = "user_verification"
            case tokenTTLSeconds = "token_ttl_seconds"
            case attestationPolicy = "attestation_policy"
            case aaguidAllow = "aaguid_allow"
            case aaguidDeny = "aaguid_deny"
        }
    }

    func create(_ request: Request, context: some RequestContext) async throws -> Response {
        let input = try await JSONExchange.read(request)
        let traceID = input.traceID
        try authorize(request, traceID: traceID)
        let body = try input.decode(CreateBody.self)
        var application = ApplicationRecord(
            id: UUID(), name: body.name, rpID: body.rpID, rpName: body.rpName ?? body.name, origins: body.origins,
            enrollmentPolicy: .grant, userVerification: "preferred", attestation: "none", tokenTTLSeconds: 300,
            createdAt: services.now())
        try apply(
            PatchBody(
                name: nil, rpID: nil, rpName: nil, origins: nil, enrollmentPolicy: body.enrollmentPolicy,
                userVerification: body.userVerification, attestation: body.attestation,
                tokenTTLSeconds: body.tokenTTLSeconds, attestationPolicy: body.attestationPolicy,
                aaguidAllow: body.aaguidAllow, aaguidDeny: body.aaguidDeny), to: &application, traceID: traceID)
        try Self.validate(application, traceID: traceID)
        let apiKey = Secrets.make(prefix: "umfa_ak_")
        try await services.store.insertApplication(application)
        try await services.store.insertAPIKey(
            hash: Secrets.hash(apiKey), applicationID: application.id, createdAt: services.now())
        return try JSONExchange.response(
            ApplicationView(application, traceID: traceID, apiKey: apiKey), status: .created)
    }

    func show(_ request: Request, context: some RequestContext) async throws -> Response {
        let traceID = TraceID.from(request)
        try authorize(request, traceID: traceID)
        let application = try await lookup(context, traceID: traceID)
        return try JSONExchange.response(ApplicationView(application, traceID: traceID))
    }

    func list(_ request: Request, context: some RequestContext) async throws -> Response {
        let traceID = TraceID.from(request)
        try authorize(request, traceID: traceID)
        let applications = try await services.store.applications().map { ApplicationView($0, traceID: traceID) }
        return try JSONExchange.response(ApplicationList(traceID: traceID, applications: applications))
    }

    func update(_ request: Request, context: some RequestContext) async throws -> Response {
        let input = try await JSONExchange.read(request)
        let traceID = input.traceID
        try authorize(request, traceID: traceID)
        let body = try input.decode(PatchBody.self)
        var application = try await lookup(context, traceID: traceID)
        try apply(body, to: &application, traceID: traceID)
        try Self.validate(application, traceID: traceID)
        try await services.store.updateApplication(application)
        return try JSONExchange.response(ApplicationView(application, traceID: traceID))
    }

    func authorize(_ request: Request, traceID: String) throws {
        try services.abuse.checkCredentialGuessing(traceID: traceID)
        guard let token = BearerToken.from(request),
            constantTimeEqual(Secrets.hash(token), services.adminTokenHash)
        else {
            if BearerToken.from(request) != nil { services.abuse.recordCredentialFailure() }
            throw APIError.unauthorized("Missing or invalid admin token", traceID: traceID)
        }
    }

    func lookup(_ context: some RequestContext, traceID: String) async throws -> ApplicationRecord {
        guard let text = context.parameters.get("id")?.removingPercentEncoding, let id = UUID(uuidString: text) else {
            throw APIError.badRequest("The application id must be a UUID", traceID: traceID)
        }
        guard let application = try await services.store.application(id: id) else {
            throw APIError.notFound("Unknown application", traceID: traceID)
        }
        return application
    }

    private func apply(_ patch: PatchBody, to application: inout ApplicationRecord, traceID: String) throws {
        if let name = patch.name { application.name = name }
        if let rpID = patch.rpID { application.rpID = rpID }
        if let rpName = patch.rpName { application.rpName = rpName }
        if let origins = patch.origins { application.origins = origins }
        if let policy = patch.enrollmentPolicy {
            guard let value = EnrollmentPolicy(rawValue: policy) else {
                throw APIError.badRequest("enrollment_policy must be open or grant", traceID: traceID)
            }
            application.enrollmentPolicy = value
        }
        if let userVerification = patch.userVerification { application.userVerification = userVerification }
        if let attestation = patch.attestation { application.attestation = attestation }
        if let ttl = patch.tokenTTLSeconds { application.tokenTTLSeconds = ttl }
        if let policy = patch.attestationPolicy { application.attestationPolicy = policy }
        if let allow = patch.aaguidAllow {
            application.aaguidAllow = allow.isEmpty ? nil : allow.map { $0.lowercased() }
        }
        if let deny = patch.aaguidDeny { application.aaguidDeny = deny.map { $0.lowercased() } }
    }

    static func validate(_ application: ApplicationRecord, traceID: String) throws {
        guard (1...200).contains(application.name.count), (1...200).contains(application.rpName.count) else {
            throw APIError.badRequest("name and rp_name must be 1 to 200 characters", traceID: traceID)
        }
        guard ApplicationSettingsValidation.isValidRPID(application.rpID) else {
            throw APIError.badRequest("rp_id must be a lowercase domain name such as example.com", traceID: traceID)
        }
        guard !application.origins.isEmpty, application.origins.count <= 50,
            let invalid = Optional(application.origins.filter { !ApplicationSettingsValidation.isValidOrigin($0) }),
            invalid.isEmpty
        else {
            throw APIError.badRequest(
                "origins must be 1 to 50 web origins (https://host[:port]) or native-app origins", traceID: traceID)
        }
        guard ApplicationSettingsValidation.userVerificationValues.contains(application.userVerification) else {
            throw APIError.badRequest("user_verification must be required, preferred or discouraged", traceID: traceID)
        }
        guard ApplicationSettingsValidation.attestationValues.contains(application.attestation) else {
            throw APIError.badRequest("attestation must be none, indirect, direct or enterprise", traceID: traceID)
        }
        guard (30...86_400).contains(application.tokenTTLSeconds) else {
            throw APIError.badRequest("token_ttl_seconds must be 30 to 86400", traceID: traceID)
        }
        try ApplicationSettingsValidation.validateAttestation(application, traceID: traceID)
    }
}

/// An application as the admin API shows it.
struct ApplicationView: Encodable {
    let traceID: String
    let applicationID: String
    let apiKey: String?
    let name: String
    let rpID: String
    let rpName: String
    let origins: [String]
    let enrollmentPolicy: String
    let enrollmentPolicyDescription: String
    let userVerification: String
    let attestation: String
    let tokenTTLSeconds: Int
    let createdAt: String
    let attestationPolicy: String
    let aaguidAllow: [String]?
    let aaguidDeny: [String]

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case applicationID = "application_id"
        case apiKey = "api_key"
        case name, origins, attestation
        case rpID = "rp_id"
        case rpName = "rp_name"
        case enrollmentPolicy = "enrollment_policy"
        case enrollmentPolicyDescription = "enrollment_policy_description"
        case userVerification = "user_verification"
        case tokenTTLSeconds = "token_ttl_seconds"
        case createdAt = "created_at"
        case attestationPolicy = "attestation_policy"
        case aaguidAllow = "aaguid_allow"
        case aaguidDeny = "aaguid_deny"
    }

    init(_ application: ApplicationRecord, traceID: String, apiKey: String? = nil) {
        self.traceID = traceID
        applicationID = application.id.uuidString.lowercased()
        self.apiKey = apiKey
        name = application.name
        rpID = application.rpID
        rpName = application.rpName
        origins = application.origins
        enrollmentPolicy = application.enrollmentPolicy.rawValue
        enrollmentPolicyDescription = application.policyDescription
        userVerification = application.userVerification
        attestation = application.attestation
        tokenTTLSeconds = application.tokenTTLSeconds
        createdAt = Timestamps.rfc3339(application.createdAt)
        attestationPolicy = application.attestationPolicy
        aaguidAllow = application.aaguidAllow
        aaguidDeny = application.aaguidDeny
    }
}

/// Every application.
struct ApplicationList: Encodable {
    let traceID: String
    let applications: [ApplicationView]

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case applications
    }
}
