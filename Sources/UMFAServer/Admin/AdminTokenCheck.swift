/// The admin token's check, shared by the admin API (through ``AdminAuthorization``, or a console
/// session standing for the token) and the console's enrollment: the valid token is judged first,
/// so others failing at the caller's address never lock the token's holder out; a wrong one counts
/// against the address, and 429 answers it while the address is blocked.
struct AdminTokenCheck: Sendable {
    let adminToken: AdminToken
    /// Where wrong tokens count against the caller's address.
    let abuse: AbuseGuard

    /// Passes `caller`'s bearer when it is the admin token.
    /// - Throws: ``ServiceError`` 401 for a missing or wrong token, 429 while the address is blocked.
    func authorize(_ caller: Caller) async throws {
        guard let token = caller.bearer, adminToken.accepts(token) else {
            try await abuse.refuseCredential(
                caller, counting: caller.bearer != nil, ServiceError.unauthenticated("Missing or invalid admin token"))
        }
    }
}
