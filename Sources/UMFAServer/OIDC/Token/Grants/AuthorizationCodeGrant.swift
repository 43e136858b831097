import Crypto
import Foundation
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.6): the code once, for the
/// client it was issued to, with the same redirect URI and the PKCE verifier. A code presented
/// twice revokes everything issued with it (RFC 6749 §4.1.2).
struct AuthorizationCodeGrant: GrantHandler {
    static let grantType = "authorization_code"
    let grants: OAuthGrants
    let userTokens: UserTokens

    func grant(_ input: GrantInput) async throws -> OAuthTokenResponse {
        try input.requireRegistered(for: Self.grantType)
        let client = input.client
        let code = try input.form.require("code")
        let redirectURI = try input.form.require("redirect_uri")
        let verifier = try input.form.require("code_verifier")
        // RFC 7636 §4.1: 43 to 128 unreserved characters.
        guard (43...128).contains(verifier.utf8.count),
            verifier.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-._~".unicodeScalars.contains($0))
            })
        else { throw OAuthError.invalidRequest("code_verifier must be 43 to 128 unreserved characters") }
        let (found, replayed) = try await grants.consume(
            .authorizationCode, code, as: AuthorizationFlow.CodeGrant.self)
        if let family = replayed?.family {
            try await grants.revokeFamily(family)
            throw OAuthError(code: .invalidGrant, "The code was used before; the tokens issued with it are revoked")
        }
        guard let grant = found?.payload else {
            throw OAuthError(code: .invalidGrant, "The code is invalid or expired")
        }
        guard grant.request.clientID.utf8.elementsEqual(client.clientID.utf8) else {
            throw OAuthError(code: .invalidGrant, "The code was issued to another client")
        }
        guard grant.request.redirectURI.utf8.elementsEqual(redirectURI.utf8) else {
            throw OAuthError(code: .invalidGrant, "redirect_uri differs from the authorization request's")
        }
        let computed = Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
        guard constantTimeEqual(Array(computed.utf8), Array(grant.request.codeChallenge.utf8)) else {
            throw OAuthError(code: .invalidGrant, "code_verifier does not match the code_challenge")
        }
        // RFC 9449 §10: a code bound by dpop_jkt needs a proof of that key.
        if let bound = grant.request.dpopJKT, input.binding.jkt != bound {
            throw OAuthError(code: .invalidDPoPProof, "The code is bound to a DPoP key (dpop_jkt): send a proof of it")
        }
        let confidential = client.authenticationMethod.isConfidential
        return try await userTokens.issue(
            to: client, signIn: grant.signIn, scopes: grant.request.scopes, family: grant.family,
            nonce: grant.request.nonce, jkt: input.binding.jkt, refreshJKT: confidential ? nil : input.binding.jkt,
            x5t: input.binding.x5t, refreshX5T: confidential ? nil : input.binding.x5t)
    }
}
