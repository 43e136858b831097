import Foundation
import UMFAStorage
import UMFATokens

/// Request objects (RFC 9101) at the authorization and PAR endpoints: a `request` parameter is
/// checked (``RequestObject``: signed with a key the client registered, `aud` the issuer, `exp`,
/// a `jti` used once on any instance) and its parameters take the place of the query's, as
/// §6.3 asks; a client with `require_signed_request_object` sends nothing else.
struct RequestObjects: Sendable {
    let grants: OAuthGrants
    let now: @Sendable () -> Date

    /// The parameters the request is made of: the request object's when `query` carries one,
    /// else the query's own.
    /// - Throws: ``AuthorizationRequest/Failure``: to the redirect URI the query names when the
    ///   client registered it, else the error page.
    func unpack(_ query: OAuthForm, client: OAuthClientRecord) async throws -> OAuthForm {
        guard let text = query["request"] else {
            guard !client.requireSignedRequestObject else {
                throw failure(query, client, .invalidRequest, "This client must send a signed request object (request)")
            }
            return query
        }
        let object: RequestObject
        do {
            object = try RequestObject(
                text, clientID: client.clientID, jwks: client.jwks, issuer: grants.issuer.issuer, now: now())
        } catch {
            throw failure(query, client, .invalidRequestObject, "The request object is refused: \(error.message)")
        }
        do {
            try await grants.store(
                .requestObject, handleHash: Secrets.hash("request_object:\(client.clientID):\(object.jti)"), Seen(),
                lifetime: max(1, object.expiresAt.timeIntervalSince(now())) + ClientAssertion.skew)
        } catch let error as StoreError where error.code == .conflict {
            throw failure(query, client, .invalidRequestObject, "The request object was used before (its jti)")
        }
        return OAuthForm(object.parameters)
    }

    /// Nothing: the row is the record of the object's `jti`.
    private struct Seen: Codable, Sendable {}

    /// A refusal before the request object's own redirect URI is known: to the query's, when the
    /// client registered it (RFC 6749 §4.1.2.1), else the page.
    private func failure(_ query: OAuthForm, _ client: OAuthClientRecord, _ code: OAuthError.Code, _ text: String)
        -> AuthorizationRequest.Failure
    {
        if let redirectURI = query["redirect_uri"],
            AuthorizationRequest.matches(redirectURI, registered: client.redirectURIs)
        {
            return .redirect(OAuthError(code: code, text), to: redirectURI, state: query["state"])
        }
        return .page(title: "This sign-in link is not valid", message: text + ".", code: code)
    }
}
