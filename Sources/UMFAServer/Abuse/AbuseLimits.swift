import Foundation

/// How many failures the server tolerates before it answers 429, and for how long.
///
/// Failures are counted in a sliding window per key. When a key reaches its limit it is
/// blocked for ``baseBlock``; each further block of the same key doubles that, up to
/// ``maxBlock``, so a persistent attacker waits longer and longer while a real user is never
/// blocked for more than ``maxBlock`` after the last failure. Keys whose window and block have
/// passed are forgotten.
package struct AbuseLimits: Sendable, Equatable {
    /// Failed ceremony verifications (registration, sign-in, unenroll)
    /// for one user from one client address within ``window``.
    package var userFailures: Int
    /// Failed ceremony verifications from one client address, over all users, within ``window``.
    package var addressFailures: Int
    /// Wrong or missing admin tokens and API keys from one client address within ``window``.
    package var credentialFailures: Int
    /// Requests for ceremony options (registration and authentication) from one client address
    /// within ``window``: those routes answer anyone and store a challenge.
    package var optionsRequests: Int
    /// The counting window.
    package var window: Duration
    /// The first block.
    package var baseBlock: Duration
    /// The longest block.
    package var maxBlock: Duration
    /// At most this many keys are tracked; past it the oldest are dropped, so the limiter
    /// cannot be used to exhaust memory.
    package var maxTrackedKeys: Int

    /// Creates limits; the defaults are the documented ones (docs/operators/configuration.md).
    package init(
        userFailures: Int = 50, addressFailures: Int = 200, credentialFailures: Int = 50,
        optionsRequests: Int = 3000, window: Duration = .seconds(300),
        baseBlock: Duration = .seconds(30), maxBlock: Duration = .seconds(900), maxTrackedKeys: Int = 100_000
    ) {
        self.userFailures = userFailures
        self.addressFailures = addressFailures
        self.credentialFailures = credentialFailures
        self.optionsRequests = optionsRequests
        self.window = window
        self.baseBlock = baseBlock
        self.maxBlock = maxBlock
        self.maxTrackedKeys = maxTrackedKeys
    }

    /// The limits from every source of settings (``SettingsReader``): `UMFA_LIMIT_USER_FAILURES`,
    /// `UMFA_LIMIT_ADDRESS_FAILURES`, `UMFA_LIMIT_CREDENTIAL_FAILURES`, `UMFA_LIMIT_OPTIONS_REQUESTS`,
    /// `UMFA_LIMIT_WINDOW_SECONDS`,
    /// `UMFA_LIMIT_BLOCK_SECONDS` and `UMFA_LIMIT_MAX_BLOCK_SECONDS`; a limit of 0 turns that
    /// limit off.
    package static func from(_ settings: SettingsReader) throws -> AbuseLimits {
        var limits = AbuseLimits()
        let counts = 0...1_000_000
        limits.userFailures = try settings.integer(.limitUserFailures, in: counts) ?? limits.userFailures
        limits.addressFailures =
            try settings.integer(.limitAddressFailures, in: counts) ?? limits.addressFailures
        limits.credentialFailures =
            try settings.integer(.limitCredentialFailures, in: counts) ?? limits.credentialFailures
        limits.optionsRequests =
            try settings.integer(.limitOptionsRequests, in: counts) ?? limits.optionsRequests
        let day = 1.0...86_400
        limits.window = try settings.duration(.limitWindowSeconds, seconds: day) ?? limits.window
        limits.baseBlock = try settings.duration(.limitBlockSeconds, seconds: day) ?? limits.baseBlock
        limits.maxBlock = try settings.duration(.limitMaxBlockSeconds, seconds: day) ?? limits.maxBlock
        guard limits.maxBlock >= limits.baseBlock else {
            throw ConfigurationError("UMFA_LIMIT_MAX_BLOCK_SECONDS must be at least UMFA_LIMIT_BLOCK_SECONDS")
        }
        return limits
    }
}
