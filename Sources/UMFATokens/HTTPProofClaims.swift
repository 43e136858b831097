import Foundation
import UMFAJOSE

/// The claims that bind a proof JWT to one HTTP request, shared by DPoP proofs (RFC 9449 §4.2)
/// and UMFA's device proofs (docs/contract.md §7): `jti` (1–256 bytes), `htm`, `htu` without query
/// and fragment, and an `iat` within ``window`` of the server's clock.
struct HTTPProofClaims {
    let jti: String
    let issuedAt: Date

    /// How far a proof's `iat` may be from the server's clock, either way.
    static let window: TimeInterval = 60

    /// A claim refused.
    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// Checks the request-binding claims; `name` names the proof in messages ("the DPoP proof").
    init(_ claims: JWTClaims, name: String, method: String, url: String, now: Date) throws(Failure) {
        guard let jti = claims.jti, !jti.isEmpty, jti.utf8.count <= 256 else {
            throw Failure("\(name) needs a jti of 1 to 256 bytes")
        }
        guard let htm = claims.htm, let htu = claims.htu, let iat = claims.iat else {
            throw Failure("\(name) needs htm, htu and iat claims")
        }
        guard htm == method else { throw Failure("\(name)'s htm is not \(method)") }
        guard let claimed = Self.normalized(htu), claimed == Self.normalized(url) else {
            throw Failure("\(name)'s htu is not this endpoint's URL")
        }
        guard abs(iat - now.timeIntervalSince1970) <= Self.window else {
            throw Failure("\(name)'s iat is more than \(Int(Self.window)) s from the server's time")
        }
        self.jti = jti
        self.issuedAt = Date(timeIntervalSince1970: iat)
    }

    /// `scheme://host[:port]/path` with scheme and host in lower case and a default port
    /// dropped (RFC 3986 §6.2.3), without query and fragment (RFC 9449 §4.3 step 9).
    static func normalized(_ text: String) -> String? {
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        components.query = nil
        components.fragment = nil
        let port = components.port.flatMap {
            (scheme == "https" && $0 == 443) || (scheme == "http" && $0 == 80) ? nil : $0
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")\(path)"
    }
}
