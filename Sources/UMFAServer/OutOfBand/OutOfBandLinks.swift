import Foundation
import UMFAContract
import UMFAEncoding
import UMFAQR
import UMFAStorage
import UMFAWebAuthn

/// The app link and QR code of a transaction (docs/contract.md §7): `<public URL>/open?dispatchTokenResponse=`
/// base64url of `{"version":1,"server":…,"application_id":…,"operation":…,"token":"umfa_dt_…"}`,
/// and a PNG of it from UMFA's own QR encoder (error correction M).
enum OutOfBandLinks {
    /// The payload of `transaction`'s link with its dispatch token.
    static func payload(_ transaction: OutOfBandTransactionRecord, token: String, publicURL: String)
        -> AppLinkPayload
    {
        AppLinkPayload(
            server: publicURL, applicationID: transaction.applicationID.uuidString.lowercased(),
            operation: transaction.operation.rawValue, token: token)
    }

    /// The `dispatchTokenResponse` value of a link: base64url of the payload's JSON.
    static func dispatchTokenResponse(_ payload: AppLinkPayload) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Base64URL.encode(Array(try encoder.encode(payload)))
    }

    static let scale = 4
    static let border = 4

    static func appLink(publicURL: String, payload: AppLinkPayload) throws -> String {
        publicURL + "/open?dispatchTokenResponse=" + (try dispatchTokenResponse(payload))
    }

    static func qrCode(_ link: String) throws -> QRCodeImage {
        let code = try QRCode(text: link, errorCorrection: .medium)
        return QRCodeImage(
            size: (code.size + 2 * border) * scale, dataUri: try code.pngDataURI(scale: scale, border: border))
    }
}
