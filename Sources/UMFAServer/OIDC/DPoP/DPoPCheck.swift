import Crypto
import Foundation
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn

/// DPoP at an issuer's endpoints (RFC 9449): the stateless checks of ``DPoPProof``, then what
/// needs the server: the application's nonce when it requires one (§8) and the `jti` seen
/// before on any instance (§11.1, a store row that expires with the proof's window).
struct DPoPCheck: Sendable {
    /// Where spent proofs are remembered.
    let grants: OAuthGrants
    /// The server secret nonces derive from.
    let serverSecret: [UInt8]
    let now: @Sendable () -> Date
    let issuer: OAuthIssuer

    /// The proof among `values` (the request's `DPoP` header values, RFC 9449 §4.1) for `method`
    /// and `url`, checked; `nil` when the request has none.
    /// - Parameter accessToken: the access token presented with it (resources), whose hash the
    ///   proof must carry.
    /// - Throws: ``OAuthError`` `invalid_dpop_proof`, or `use_dpop_nonce` with a fresh nonce.
    func verify(proofs values: [String], method: String, url: String, accessToken: String? = nil) async throws
        -> DPoPProof?
    {
        guard let proof = values.first else { return nil }
        guard values.count == 1 else { throw OAuthError(code: .invalidDPoPProof, "Send exactly one DPoP header") }
        let now = self.now()
        let checked: DPoPProof
        do {
            checked = try DPoPProof(proof, method: method, url: url, accessToken: accessToken, now: now)
        } catch {
            throw OAuthError(code: .invalidDPoPProof, "The DPoP proof is refused: \(error.message)")
        }
        if issuer.application.dpopNonce == .required {
            guard let nonce = checked.nonce, isValidNonce(nonce, now: now) else {
                var refusal = OAuthError(
                    code: .useDPoPNonce, "Send the DPoP proof again with the nonce of the DPoP-Nonce header")
                refusal.dpopNonce = self.nonce(at: now)
                throw refusal
            }
        }
        // The proof's key and jti: a second use anywhere conflicts with the first's row.
        do {
            try await grants.store(
                .dpopProof, handleHash: Secrets.hash("dpop:\(checked.thumbprint):\(checked.jti)"), Seen(),
                lifetime: 2 * DPoPProof.window + 10)
        } catch let error as StoreError where error.code == .conflict {
            throw OAuthError(code: .invalidDPoPProof, "The DPoP proof was used before")
        }
        return checked
    }

    /// Nothing: the row itself is the record of the proof.
    private struct Seen: Codable, Sendable {}

    /// How long one nonce is current; the one before it is still accepted, so a nonce lives
    /// between one and two periods.
    static let noncePeriod: TimeInterval = 300

    /// The nonce of the period `now` falls in: the period number and a MAC over it under the
    /// server secret, so every instance issues and accepts the same nonces without storing them.
    func nonce(at now: Date) -> String {
        nonce(period: Int64(now.timeIntervalSince1970 / Self.noncePeriod))
    }

    private func nonce(period: Int64) -> String {
        let label = "dpop-nonce:\(issuer.application.id.uuidString.lowercased()):\(period)"
        return "\(period)." + Base64URL.encode(Array(Secrets.derive(label, key: serverSecret).prefix(16)))
    }

    func isValidNonce(_ text: String, now: Date) -> Bool {
        let current = Int64(now.timeIntervalSince1970 / Self.noncePeriod)
        guard let dot = text.firstIndex(of: "."), let period = Int64(text[..<dot]),
            period == current || period == current - 1
        else { return false }
        return constantTimeEqual(Array(nonce(period: period).utf8), Array(text.utf8))
    }
}
