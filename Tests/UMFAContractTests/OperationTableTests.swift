import Testing
import UMFAContract

/// The one table of operations (``APIOperation/declaration``) holds together: every operation
/// has a route of its own, and what a declaration says about access, shape and status agrees with
/// the method and path it declares.
struct OperationTableTests {
    @Test func everyMethodAndPathIsDeclaredOnce() {
        var seen: [String: APIOperation] = [:]
        for operation in APIOperation.allCases {
            let key = operation.method + " " + operation.path
            #expect(seen[key] == nil, "\(operation) and \(seen[key].map { "\($0)" } ?? "") share \(key)")
            seen[key] = operation
        }
        #expect(seen.count == APIOperation.allCases.count)
    }

    @Test func adminOperationsLiveUnderTheAdminPrefixAndOnlyThere() {
        for operation in APIOperation.allCases where operation.path.hasPrefix("/api/admin/") {
            #expect(operation.access == .adminToken, "\(operation) is under /api/admin but not admin-only")
        }
        for operation in APIOperation.allCases where operation.access == .adminToken {
            #expect(operation.path.hasPrefix("/api/admin/"), "\(operation) is admin-only outside /api/admin")
        }
    }

    @Test func issuerRoutesAnswerInAnIssuerShape() {
        // Under an issuer, everything answers as OAuth, as the flow's problems, or as a page;
        // nothing else answers in OAuth shape.
        for operation in APIOperation.allCases {
            let declaration = operation.declaration
            if declaration.errorShape == .oauth {
                #expect(
                    declaration.isUnderIssuer || operation.path.hasPrefix("/.well-known/oauth-authorization-server"),
                    "\(operation) answers in OAuth shape outside an issuer")
            }
            if declaration.errorShape == .problem {
                #expect(operation.path.contains("/flow/"), "\(operation) answers problems outside the flow")
                #expect(operation.access == .flowToken)
            }
        }
        #expect(APIOperation.oauthToken.errorShape == .oauth)
        #expect(APIOperation.flowSignIn.errorShape == .problem)
        #expect(APIOperation.oauthAuthorize.errorShape == .page)
        #expect(APIOperation.registrationOptions.errorShape == .umfa)
    }

    @Test func statusesFollowTheMethod() {
        for operation in APIOperation.allCases {
            switch operation.successStatus {
            case 201: #expect(operation.method == "POST", "\(operation): 201 from a \(operation.method)")
            // 202: a request taken, whose outcome the answer does not tell (recovery by email).
            case 202: #expect(operation == .requestEmailRecovery, "\(operation): 202")
            case 204: #expect(operation.method == "DELETE" && operation.responseBody == nil, "\(operation)")
            default: #expect(operation.successStatus == 200, "\(operation)")
            }
        }
    }

    @Test func bodiesOnlyWhereTheMethodCarriesOne() {
        for operation in APIOperation.allCases where operation.requestBody != nil {
            #expect(["POST", "PUT", "PATCH"].contains(operation.method), "\(operation) has a body on a GET/DELETE")
        }
    }

    @Test func pathParametersFillIn() {
        let path = APIOperation.deleteApplicationUserCredential.path([
            "id": "a", "user_id": "b c/d", "credential_id": "e",
        ])
        #expect(path == "/api/admin/applications/a/users/b%20c%2Fd/credentials/e")
    }
}
