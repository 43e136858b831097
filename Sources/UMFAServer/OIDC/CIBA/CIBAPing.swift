import Foundation
import UMFAContract
import UMFAEncoding

/// Where a CIBA request in ping mode is told that it ended (OpenID CIBA Core 1.0 §10.2): the
/// client's notification endpoint and the bearer token the client gave with the request. It is
/// kept sealed with the master key on the approval and on the outbox row that delivers it
/// (``WebhookDispatcher``), since the token is the client's secret.
struct CIBAPing: Codable, Sendable, Equatable {
    /// The client's `backchannel_client_notification_endpoint`.
    var endpoint: String
    /// The request's `client_notification_token`.
    var token: String
    /// The request the ping is about.
    var authReqID: String
    /// The client.
    var clientID: String
    /// Whether only a public address may receive it (the client registered itself).
    var publicOnly: Bool

    /// The ping's body.
    var body: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(BackchannelPing(authReqID: authReqID))) ?? Data(), as: UTF8.self)
    }

    /// The ping sealed for storage.
    func sealed(with secrets: SealedSecrets) throws -> [UInt8] {
        try secrets.seal(String(decoding: try JSONEncoder().encode(self), as: UTF8.self), for: .cibaPing)
    }

    /// The ping `sealed` holds.
    static func open(_ sealed: [UInt8], with secrets: SealedSecrets) throws -> CIBAPing {
        try JSONDecoder().decode(CIBAPing.self, from: Data(try secrets.open(sealed, for: .cibaPing).utf8))
    }
}
