import Foundation
import UMFAAuthenticator
import UMFAContract
import UMFAEncoding
import UMFAWebAuthnModel
import UMFAWebAuthnTypes

/// Sign-up and sign-in for a native app without a browser: the API-driven flow (docs/contract.md §6)
/// driven to its end, with the passkey made and used by this device's authenticator (PIN or
/// password user verification as ``ZSMConfig/userVerification`` says), and the tokens bound to
/// the device's DPoP key.
///
/// ```swift
/// let accounts = try PasskeyAccountClient(device: ZSMConfig(hostURL: server, applicationId: appId),
///                                         oauth: OAuthConfiguration(issuer: issuer, clientId: clientId))
/// let signedUp = try await accounts.signUp(profile: AccountProfile(email: "ada@example.com"))
/// let later = try await accounts.logIn(email: "ada@example.com")
/// later.claims["sub"]     // the verified ID token's subject
/// ```
public final class PasskeyAccountClient: Sendable {
    /// The flow driver (and through it the token manager).
    public let driver: FlowDriver
    let device: UMFAClient
    /// Asked when the client is not first-party and the user has not consented yet: the client's
    /// name and the scopes; `true` allows. Without one, consent is refused.
    public let consent: (@Sendable (String?, [String]) async -> Bool)?

    /// A client on the device of `device` (its storage location, user verification and origin)
    /// for the issuer and client of `oauth`.
    ///
    /// - Parameters:
    ///   - device: the device's storage location, user verification and origin.
    ///   - oauth: the issuer and the client.
    ///   - authenticator: makes and uses the passkeys; `nil`, the default, is UMFA's software
    ///     authenticator over the device's storage location (see ``UMFAClient``).
    ///   - authenticatorConsent: asked before a passkey is created or an existing one
    ///     reported; a refusal ends the journey as ``ZSMError/Code/cancelled``.
    ///   - consent: the OAuth consent for a client that is not first-party.
    public init(
        device: ZSMConfig, oauth: OAuthConfiguration, authenticator: (any Authenticator)? = nil,
        authenticatorConsent: any AuthenticatorConsent = AlwaysConsent(),
        consent: (@Sendable (String?, [String]) async -> Bool)? = nil
    ) throws(ZSMError) {
        self.device = UMFAClient(
            device, relyingParty: UMFAHTTPRelyingParty(config: device), consent: authenticatorConsent,
            authenticator: authenticator)
        self.driver = FlowDriver(tokens: try OAuthTokenManager(configuration: oauth, device: device))
        self.consent = consent
    }

    /// Creates an account with `profile` and a passkey named `friendlyName` on this device.
    ///
    /// The profile's identifier is its email or mobile number, as ReachFive's sign-up takes
    /// either; UMFA's server needs the email today (a profile with only a mobile number is
    /// refused as `FlowProblem` `invalidInput` naming the `email` field) and keeps the
    /// number as the `phone_number` claim.
    public func signUp(profile: AccountProfile, friendlyName: String? = nil, scopes: [String]? = nil)
        async throws(FlowError) -> AccountTokens
    {
        var form: [String: JSONValue] = [:]
        if let value = profile.email { form["email"] = .string(value) }
        if let value = profile.givenName { form["given_name"] = .string(value) }
        if let value = profile.familyName { form["family_name"] = .string(value) }
        if let value = profile.phoneNumber { form["phone_number"] = .string(value) }
        if let friendlyName { form["device_name"] = .string(friendlyName) }
        return try await run(
            action: "create-account", form: form, label: profile.identifier, prompt: "create", scopes: scopes)
    }

    /// Signs in with this device's passkey for `email` (any discoverable passkey when `nil`).
    public func logIn(email: String?, scopes: [String]? = nil) async throws(FlowError) -> AccountTokens {
        try await run(
            action: "passkey-sign-in", form: ["username": .string(email ?? "")], label: email ?? "", prompt: nil,
            scopes: scopes)
    }

    /// Runs the journey from the start; a flow that expired or lost its token is started once more.
    private func run(
        action: String, form: [String: JSONValue], label: String, prompt: String?, scopes: [String]?
    ) async throws(FlowError) -> AccountTokens {
        do {
            return try await journey(action: action, form: form, label: label, prompt: prompt, scopes: scopes)
        } catch  where error.recovery == .startOver {
            driver.tokens.configuration.logger.info("the flow must start again: \(error.message)")
            return try await journey(action: action, form: form, label: label, prompt: prompt, scopes: scopes)
        }
    }

    private func journey(
        action kind: String, form: [String: JSONValue], label: String, prompt: String?, scopes: [String]?
    ) async throws(FlowError) -> AccountTokens {
        var step = try await driver.beginStep(prompt: prompt, loginHint: nil, scopes: scopes)
        guard let first = step.action(kind)?.form else {
            throw FlowError(ZSMError(.serverError, "the flow does not offer \(kind)", recovery: .giveUp))
        }
        step = try await driver.sendForm(first, parameters: form)
        var created: DeviceEnrollments.Entry?
        for _ in 0..<6 {
            switch step.type {
            case .authorizationResponse:
                let (tokens, claims) = try await driver.finishStep(step)
                if var entry = created, let subject = claims["sub"]?.stringValue {
                    // The device knows the new passkey as the account's, as after an enrollment.
                    entry.userId = subject
                    do {
                        try device.device().enrollments.record(entry)
                    } catch {
                        throw FlowError(error)
                    }
                }
                return AccountTokens(tokens: tokens, claims: claims)
            case .userConsent:
                var scopes: [String] = []
                if case .array(let listed)? = step.properties["scopes"] { scopes = listed.compactMap(\.stringValue) }
                let allowed = await consent?(step.properties["clientName"]?.stringValue, scopes) ?? false
                guard let answer = step.action(allowed ? "consent-allow" : "consent-deny")?.form else {
                    throw FlowError(ZSMError(.serverError, "the consent step has no answer", recovery: .giveUp))
                }
                step = try await driver.sendForm(answer, parameters: [:])
            case .authentication, .registration:
                guard let action = step.actions.first(where: { $0.clientOperation != nil }),
                    let operation = action.clientOperation, let next = operation.continueActions.first?.form
                else {
                    throw FlowError(ZSMError(.serverError, "the flow offers no passkey ceremony", recovery: .giveUp))
                }
                let (credential, verified) = try await run(
                    operation, label: label, keyName: form["device_name"]?.stringValue)
                if operation.name == "webauthn-registration", let id = credential.objectValue?["id"]?.stringValue {
                    created = DeviceEnrollments.Entry(
                        applicationId: device.config.applicationId, userId: "", credentialId: id,
                        rpId: Self.rpID(of: operation) ?? "", enrolledAt: Date(), userVerification: verified.label,
                        biometricSetHash: verified.biometricSetHash,
                        devicePasscodeFallback: verified.devicePasscodeFallback)
                }
                step = try await driver.sendForm(next, parameters: ["credential": credential])
            default:
                throw FlowError(
                    ZSMError(.serverError, "the flow answered a \(step.type.rawValue) this client does not handle"))
            }
        }
        throw FlowError(ZSMError(.serverError, "the flow did not end", recovery: .startOver))
    }

    /// Runs a WebAuthn client operation (`webauthn-registration`, `webauthn-authentication`) on
    /// this device's authenticator, the user verified as configured (`label` names the account
    /// in the PIN prompt); the response JSON for the continue form's `credential`.
    public func perform(_ operation: FlowClientOperation, label: String) async throws(FlowError) -> JSONValue {
        try await run(operation, label: label, keyName: nil).0
    }

    /// ``perform(_:label:)`` with how the user was verified.
    private func run(_ operation: FlowClientOperation, label: String, keyName: String?) async throws(FlowError) -> (
        JSONValue, VerifiedUser
    ) {
        do throws(ZSMError) {
            let opened = try device.device()
            switch operation.name {
            case "webauthn-registration":
                let options = try Self.options(operation, "credentialCreationOptions", as: CreationOptionsJSON.self)
                try device.checkRelyingPartyID(options.rp.id)
                let verified = try await device.verifyUser(userId: label, creating: true)
                let response = try await opened.create(options, context: device.context(verified, keyName: keyName))
                return (try Self.json(response), verified)
            case "webauthn-authentication":
                let options = try Self.options(operation, "credentialRequestOptions", as: RequestOptionsJSON.self)
                try device.checkRelyingPartyID(options.rpId)
                let verified = try await device.verifyUser(userId: label, creating: false)
                let response = try await opened.get(options, context: device.context(verified, keyName: nil))
                return (try Self.json(response), verified)
            default:
                throw ZSMError(.serverError, "the client operation \(operation.name) is not one this SDK performs")
            }
        } catch {
            throw FlowError(error)
        }
    }

    private static func rpID(of operation: FlowClientOperation) -> String? {
        guard case .object(let argument)? = operation.arguments["credentialCreationOptions"],
            case .object(let publicKey)? = argument["publicKey"], case .object(let rp)? = publicKey["rp"]
        else { return nil }
        return rp["id"]?.stringValue
    }

    private static func options<Options: Decodable>(
        _ operation: FlowClientOperation, _ name: String, as type: Options.Type
    ) throws(ZSMError) -> Options {
        guard case .object(let argument)? = operation.arguments[name], let publicKey = argument["publicKey"],
            let options = try? JSONDecoder().decode(type, from: JSONEncoder().encode(publicKey))
        else { throw ZSMError(.serverError, "the client operation carries no \(name).publicKey") }
        return options
    }

    private static func json(_ value: some Encodable) throws(ZSMError) -> JSONValue {
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value)) else {
            throw ZSMError(.keyStoreDamaged, "the authenticator's response does not encode")
        }
        return json
    }
}

/// The profile of a new account (OpenID Connect Core §5.1 claims). Its identifier is the
/// email or the mobile number (ReachFive's `ProfileWebAuthnSignupRequest`); give at least one.
public struct AccountProfile: Sendable, Equatable {
    /// The email address.
    public var email: String?
    /// Optional.
    public var givenName: String?
    /// Optional.
    public var familyName: String?
    /// The mobile number, E.164 (`+33612345678`).
    public var phoneNumber: String?

    /// Creates a profile identified by `email`, `phoneNumber` or both.
    public init(
        email: String? = nil, givenName: String? = nil, familyName: String? = nil, phoneNumber: String? = nil
    ) {
        self.email = email
        self.givenName = givenName
        self.familyName = familyName
        self.phoneNumber = phoneNumber
    }

    /// The email, else the mobile number: what names the account in the PIN prompt.
    public var identifier: String { email ?? phoneNumber ?? "" }
}

/// The tokens of a sign-up or sign-in, with the verified ID token's claims.
public struct AccountTokens: Sendable {
    /// The token endpoint's answer (access, ID and refresh token).
    public var tokens: OAuthTokenResponse
    /// The ID token's claims, its signature and `iss`, `aud`, `exp`, `nonce` checked.
    public var claims: [String: JSONValue]

    /// The account's user id (`sub`).
    public var subject: String? { claims["sub"]?.stringValue }
}
