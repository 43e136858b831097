import Testing
import UMFAContract

/// Every status a route can answer is in `openapi.yaml`, in the shape the route answers it in:
/// what its access check answers (401 for a missing or wrong credential; 429 once an address
/// keeps guessing a credential the abuse guard counts, docs/contract.md §4), what reading a body
/// answers (400, 408, 413), 404 for an unknown issuer and 503 while the database is away.
@Suite("Contract: the statuses each operation can answer")
struct ResponseStatusTests {
    /// The statuses the access check of `operation` answers. Operations open in the table that
    /// take a credential of their own (metrics, RFC 7591/7592 registration, userinfo) are
    /// read from the document's `security`.
    static func accessStatuses(_ operation: APIOperation) -> Set<String> {
        switch operation.access {
        case .adminToken, .apiKey, .oauthClient, .deviceProof: return ["401", "429"]
        case .loginToken, .flowToken: return ["401"]
        case .open:
            let schemes = Set(securitySchemes(operation))
            if !schemes.isDisjoint(with: countedSchemes) { return ["401", "429"] }
            return schemes.contains("bearerAccessToken") ? ["401"] : []
        }
    }

    /// The credentials of open operations whose wrong guesses the abuse guard counts.
    static let countedSchemes: Set<String> = ["metricsToken", "initialAccessToken", "registrationAccessToken"]

    /// The operations that answer from memory or from files built in, never from the database.
    static let servedWithoutStore: Set<APIOperation> = [
        .health, .metrics, .openAPI, .demoPage, .demoStylesheet, .demoScript, .demoWebAuthnScript, .hostedStylesheet,
        .hostedScript, .hostedWebAuthnScript, .hostedRecoveryScript, .hostedAccountScript, .hostedDeviceScript,
        .hostedPageScript, .consolePage,
        .consoleStylesheet, .consoleScript,
        .consoleWebAuthnScript, .openAppLink,
    ]

    /// The schemes of the operation's `security` in the document.
    static func securitySchemes(_ operation: APIOperation) -> [String] {
        let requirements = ContractTests.operation(operation)?["security"] as? [[String: Any]] ?? []
        return requirements.flatMap(\.keys)
    }

    /// The documented statuses of the operation and the shared response each refers to
    /// (`inline` for an answer written out in place).
    static func responses(_ operation: APIOperation) -> [String: String] {
        let responses = ContractTests.operation(operation)?["responses"] as? [String: Any] ?? [:]
        return responses.mapValues { response in
            ((response as? [String: Any])?["$ref"] as? String)?.split(separator: "/").last.map(String.init)
                ?? "inline"
        }
    }

    @Test(
        "an operation lists the statuses its access check answers (401, and 429 for counted credentials)",
        arguments: APIOperation.allCases)
    func accessCheck(_ operation: APIOperation) {
        let missing = Self.accessStatuses(operation).subtracting(Self.responses(operation).keys)
        #expect(missing.isEmpty, "\(operation) (\(operation.access)) does not list \(missing.sorted())")
    }

    @Test(
        "an operation with a body lists 400, 408 and 413 (the flow answers them all as a 400 problem)",
        arguments: APIOperation.allCases)
    func bodyStatuses(_ operation: APIOperation) {
        guard ContractTests.operation(operation)?["requestBody"] != nil else { return }
        let expected: Set<String> = operation.errorShape == .problem ? ["400"] : ["400", "408", "413"]
        let missing = expected.subtracting(Self.responses(operation).keys)
        #expect(missing.isEmpty, "\(operation) takes a body but does not list \(missing.sorted())")
    }

    @Test(
        "an operation that reads the database lists 503; one under an issuer lists 404",
        arguments: APIOperation.allCases)
    func storeAndIssuer(_ operation: APIOperation) {
        let listed = Set(Self.responses(operation).keys)
        if !Self.servedWithoutStore.contains(operation) {
            #expect(listed.contains("503"), "\(operation) reads the database but does not list 503")
        }
        if operation.declaration.isUnderIssuer, operation.errorShape != .problem {
            #expect(listed.contains("404"), "\(operation) is under an issuer but does not list 404")
        }
    }

    @Test(
        "each error status refers to the shared response of the operation's error shape",
        arguments: APIOperation.allCases)
    func errorShape(_ operation: APIOperation) {
        for (status, response) in Self.responses(operation) where status >= "400" {
            let expected: Set<String>
            switch operation.errorShape {
            case .umfa: expected = status == "429" ? ["RateLimited"] : status == "503" ? ["Unavailable"] : ["Error"]
            case .oauth: expected = ["OAuthError"]
            // A refused flow token is an RFC 6750 challenge, as at every protected resource.
            case .problem: expected = status == "401" ? ["OAuthError"] : ["FlowProblem"]
            // The pages' own refusals are HTML; what the router answers is UMFA's JSON error.
            case .page:
                expected = ["inline", status == "429" ? "RateLimited" : status == "503" ? "Unavailable" : "Error"]
            }
            #expect(expected.contains(response), "\(operation) \(status) is \(response), not \(expected.sorted())")
        }
    }

    @Test("the rules would notice a missing status")
    func rulesAreStrict() {
        #expect(Self.accessStatuses(.rotateWebhookSecret) == ["401", "429"])
        #expect(Self.accessStatuses(.listAuditEvents) == ["401", "429"])
        #expect(Self.accessStatuses(.metrics) == ["401", "429"])
        #expect(Self.accessStatuses(.oauthUserinfo) == ["401"])
        #expect(Self.accessStatuses(.health).isEmpty)
    }
}
