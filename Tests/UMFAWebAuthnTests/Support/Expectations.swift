import Testing
import UMFAWebAuthn

/// Expects `body` to throw a ``WebAuthnError`` with exactly `code` and `step`, and returns it.
@discardableResult
func expectWebAuthnError(
    _ code: WebAuthnError.Code, step: String?, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> WebAuthnError? {
    let error = await #expect(throws: WebAuthnError.self, sourceLocation: sourceLocation) { try await body() }
    #expect(error?.code == code, "wrong code: \(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.step == step, "wrong step: \(String(describing: error))", sourceLocation: sourceLocation)
    return error
}

/// Expects a registration built by `factory` to fail with `code` at `step`, and returns the error.
@discardableResult
func expectRegistrationFailure(
    _ code: WebAuthnError.Code, step: String?, policy: RelyingPartyPolicy = Fixture.policy(),
    sourceLocation: SourceLocation = #_sourceLocation, _ factory: RegistrationFactory
) async -> WebAuthnError? {
    await expectWebAuthnError(code, step: step, sourceLocation: sourceLocation) {
        _ = try await RegistrationVerifier(policy: policy).verify(factory)
    }
}

/// Expects the assertion built by `factory` to fail with `code` at `step` against `record`.
func expectAuthenticationFailure(
    _ code: WebAuthnError.Code, step: String?, policy: RelyingPartyPolicy = Fixture.policy(),
    record: CredentialRecord, identifiedUserHandle: [UInt8]? = Fixture.userHandle,
    sourceLocation: SourceLocation = #_sourceLocation, _ factory: AssertionFactory
) async {
    await expectWebAuthnError(code, step: step, sourceLocation: sourceLocation) {
        _ = try AuthenticationVerifier(policy: policy).verify(
            factory, record: record, identifiedUserHandle: identifiedUserHandle)
    }
}
