import Synchronization

/// The user's answer to a consent question (ForgeRock: `WebAuthnUserConsentResult`).
public enum WebAuthnUserConsentResult: String, Sendable, Hashable {
    /// The user agreed.
    case allow
    /// The user refused.
    case reject
}

/// What the user is told before a new credential is made (WebAuthn L3 §6.3.2 step 6), as
/// ForgeRock's `createNewCredentialConsent` names it.
public struct NewCredentialConsentContext: Sendable, Hashable {
    /// The name the new credential will be known by: the device name sent with it, else the user's name.
    public var keyName: String
    /// The relying party's name.
    public var rpName: String
    /// The RP ID; `nil` when the options left it to the caller's origin.
    public var rpId: String?
    /// The account's user name.
    public var userName: String
    /// The account's display name.
    public var userDisplayName: String

    /// Creates a context.
    public init(keyName: String, rpName: String, rpId: String?, userName: String, userDisplayName: String) {
        self.keyName = keyName
        self.rpName = rpName
        self.rpId = rpId
        self.userName = userName
        self.userDisplayName = userDisplayName
    }
}

/// Decisions the user makes while a credential is created, the hooks of ForgeRock's
/// `PlatformAuthenticatorRegistrationDelegate` as `async` calls. The app may show its own UI and
/// take as long as the user needs; nothing is blocked meanwhile.
///
/// - ``createNewCredentialConsent(_:)`` runs before the key pair is made (WebAuthn L3 §6.3.2
///   step 6): `reject` ends the creation with `NotAllowedError`, which the SDK reports as
///   `cancelled`.
/// - ``excludeCredentialDescriptorConsent(rpId:)`` runs when a credential of
///   `excludeCredentials` is already on the authenticator (§6.3.2 step 3): `allow` reports it
///   (`InvalidStateError`, the SDK's `alreadyEnrolled`), `reject` hides it behind
///   `NotAllowedError` (`cancelled`).
public protocol AuthenticatorConsent: Sendable {
    /// Whether to create the credential described by `context`.
    func createNewCredentialConsent(_ context: NewCredentialConsentContext) async -> WebAuthnUserConsentResult
    /// Whether to tell the relying party of `rpId` that this device already holds a credential
    /// for the account.
    func excludeCredentialDescriptorConsent(rpId: String) async -> WebAuthnUserConsentResult
}

/// Consent that always agrees: the default where the app asks nothing (a platform
/// authenticator's own sheet is then the user's consent).
public struct AlwaysConsent: AuthenticatorConsent {
    /// Creates the consent.
    public init() {}
    /// Always `allow`.
    public func createNewCredentialConsent(_ context: NewCredentialConsentContext) async -> WebAuthnUserConsentResult {
        .allow
    }
    /// Always `allow`.
    public func excludeCredentialDescriptorConsent(rpId: String) async -> WebAuthnUserConsentResult { .allow }
}

/// Consent made of two closures.
public struct ConsentClosures: AuthenticatorConsent {
    let create: @Sendable (NewCredentialConsentContext) async -> WebAuthnUserConsentResult
    let excluded: @Sendable (String) async -> WebAuthnUserConsentResult

    /// Asks `create` before a credential is made and `excluded` before an excluded one is reported.
    public init(
        create: @escaping @Sendable (NewCredentialConsentContext) async -> WebAuthnUserConsentResult,
        excluded: @escaping @Sendable (String) async -> WebAuthnUserConsentResult = { _ in .allow }
    ) {
        self.create = create
        self.excluded = excluded
    }

    /// The answer of `create`.
    public func createNewCredentialConsent(_ context: NewCredentialConsentContext) async -> WebAuthnUserConsentResult {
        await create(context)
    }

    /// The answer of `excluded`.
    public func excludeCredentialDescriptorConsent(rpId: String) async -> WebAuthnUserConsentResult {
        await excluded(rpId)
    }
}

/// ForgeRock's consent callback: called once with the user's answer.
public typealias WebAuthnUserConsentCallback = @Sendable (WebAuthnUserConsentResult) -> Void

/// ForgeRock's registration delegate, in its documented callback shape, for code ported from
/// the ForgeRock SDK; ``AuthenticatorConsent/forgeRock(_:)`` makes it an ``AuthenticatorConsent``.
/// Each method must call `consentCallback` once; a second call is ignored.
public protocol PlatformAuthenticatorRegistrationDelegate: Sendable {
    /// Asked when an excluded credential is on this device; `allow` reports it.
    func excludeCredentialDescriptorConsent(consentCallback: @escaping WebAuthnUserConsentCallback)
    /// Asked before a new credential is made; `reject` cancels.
    func createNewCredentialConsent(
        keyName: String, rpName: String, rpId: String?, userName: String, userDisplayName: String,
        consentCallback: @escaping WebAuthnUserConsentCallback)
}

extension AuthenticatorConsent where Self == DelegateConsent {
    /// The consent of a ForgeRock-style `delegate`.
    public static func forgeRock(_ delegate: any PlatformAuthenticatorRegistrationDelegate) -> DelegateConsent {
        DelegateConsent(delegate: delegate)
    }
}

/// An ``AuthenticatorConsent`` that asks a ``PlatformAuthenticatorRegistrationDelegate``.
public struct DelegateConsent: AuthenticatorConsent {
    /// The delegate asked.
    public let delegate: any PlatformAuthenticatorRegistrationDelegate

    /// Asks the delegate's `createNewCredentialConsent`.
    public func createNewCredentialConsent(_ context: NewCredentialConsentContext) async -> WebAuthnUserConsentResult {
        await Self.answer { callback in
            delegate.createNewCredentialConsent(
                keyName: context.keyName, rpName: context.rpName, rpId: context.rpId, userName: context.userName,
                userDisplayName: context.userDisplayName, consentCallback: callback)
        }
    }

    /// Asks the delegate's `excludeCredentialDescriptorConsent`.
    public func excludeCredentialDescriptorConsent(rpId: String) async -> WebAuthnUserConsentResult {
        await Self.answer { callback in delegate.excludeCredentialDescriptorConsent(consentCallback: callback) }
    }

    /// The first answer given to the callback `ask` receives.
    private static func answer(_ ask: (@escaping WebAuthnUserConsentCallback) -> Void) async
        -> WebAuthnUserConsentResult
    {
        await withCheckedContinuation { continuation in
            let pending = PendingAnswer(continuation)
            ask { result in pending.resume(result) }
        }
    }
}

/// A continuation resumed at most once, however often a delegate calls back.
private final class PendingAnswer: Sendable {
    private let continuation: Mutex<CheckedContinuation<WebAuthnUserConsentResult, Never>?>

    init(_ continuation: CheckedContinuation<WebAuthnUserConsentResult, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ result: WebAuthnUserConsentResult) {
        continuation.withLock { $0.take() }?.resume(returning: result)
    }
}
