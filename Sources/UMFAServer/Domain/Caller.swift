/// Who is calling, as the domain needs to know it: the request's trace id (for answers and
/// logs), the client address (for the abuse limits) and the bearer credential it presented.
/// Built by the HTTP layer from the request context; services never see HTTP.
package struct Caller: Sendable {
    /// The request's trace id (echoed or new).
    package let traceID: String
    /// The client address the abuse limits count by.
    package let clientAddress: String
    /// The `Authorization: Bearer` value, if any (an API key, the admin token or a login token).
    package let bearer: String?
    /// The `Authorization: UMFA-Device` value, if any: a device proof (docs/contract.md §7).
    package let deviceProof: String?
    /// The client certificate of the request (RFC 8705), when one was presented or trusted.
    var clientCertificate: PresentedClientCertificate?
    /// Where the request was addressed (the public URL or the mutual-TLS endpoint alias,
    /// RFC 8705 §5): a DPoP proof's `htu` names the URL the client sent to (RFC 9449 §4.3).
    var address = RequestAddress.publicListener

    /// Creates a caller.
    package init(
        traceID: String, clientAddress: String = "unknown", bearer: String? = nil, deviceProof: String? = nil
    ) {
        self.traceID = traceID
        self.clientAddress = clientAddress
        self.bearer = bearer
        self.deviceProof = deviceProof
    }
}
